"""Draft files: kgvault drafts an agent wrote, and Mnemon and mini-context-graph drafts (DESIGN §4)."""

from kgvault.drafts.read import DraftFile, DraftFormat, read_draft_data

__all__ = ["DraftFile", "DraftFormat", "read_draft_data"]

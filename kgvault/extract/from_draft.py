"""The draft extractor: a draft file's items, validated, with quotes checked against the note they name."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import replace
from typing import Any, TypeVar

from kgvault.drafts import DraftFile, read_draft_data
from kgvault.extract import Extraction
from kgvault.extract.draft import (
    IGNORED,
    Draft,
    DraftEntity,
    DraftLink,
    DraftNode,
    DraftRelation,
    normalize_for_match,
)
from kgvault.extract.offline import normalize_tag
from kgvault.records import Chunk, Source
from kgvault.secrets import find_secrets, mask_secrets

EXTRACTOR = "draft@1"


UNCHECKED = "; quotes not checked"
"""How a notice ends that leaves every item in: the note a draft names is not there to check against."""


def is_notice(reason: str) -> bool:
    """Whether a reason left every item in: the quotes went unchecked (`checked_quotes`), or a field
    the contract does not know was left out (`validate_items`)."""
    return reason.endswith((UNCHECKED, IGNORED))


def extract_draft(chunk: Chunk, sources: Mapping[str, Source]) -> Extraction:
    """Read the draft file a `draft` chunk spans; every item left out is named with its pointer and why.

    A kgvault draft that names the note it was made from (`source_description: "notes/a.md lines
    1-3"` or `source`) has each `supporting_text` looked up in that note: an item whose quote is not
    there is left out, as for any extractor. Foreign drafts (Mnemon, mini-context-graph) have no
    note to check against; their items stand on their own.
    """
    found = read_draft_data(json.loads(chunk.text))
    if found is None:  # the sources stage said it was a draft: only a changed file gets here
        return Extraction(chunk, Draft(skip_reason="not a draft any more"), EXTRACTOR)
    dropped = [f"{pointer or '/'}: {reason}" for pointer, reason in found.problems]
    found = replace(found, draft=_with_tags_normalized(found.draft))
    draft, unquoted = checked_quotes(found, lambda path: note.text if (note := sources.get(path)) else None)
    dropped.extend(unquoted)
    return Extraction(chunk=chunk, draft=masked(draft), extractor=EXTRACTOR, dropped=tuple(dropped))


def checked_quotes(found: DraftFile, read_note: Callable[[str], str | None]) -> tuple[Draft, list[str]]:
    """The draft without the items whose quote the note they name does not hold, and what was left out.

    One named note checks every item; a list of drafts naming different notes checks each draft's
    items against its own. `read_note` gives a note's text by notes path, None when it is not there.
    """
    if found.named_source:
        targets: list[tuple[str, str, tuple[int, int] | None]] = [("", found.named_source, found.named_lines)]
    else:
        targets = list(found.named_each)
    draft, dropped = found.draft, []
    for prefix, path, lines in targets:
        text = read_note(path)
        if text is None:
            if found.format == "kgvault.draft/1":
                dropped.append(
                    f"{prefix or '/'}: the note it names, {path}, is not among the notes{UNCHECKED}"
                )
            continue
        draft, unquoted = quoted_in(draft, named_lines(text, lines), text, prefix)
        dropped.extend(unquoted)
    return draft, dropped


def masked(draft: Draft) -> Draft:
    """The draft with every secret masked as a note's are (`sk-…9f3a`); a node that held one is
    confidential, and a quote that held one is left out (a masked quote is found in no note)."""
    if not find_secrets("\n".join(_texts(draft))):
        return draft
    nodes = []
    for node in draft.nodes:
        node_masked = _masked(node, ("title", "body"), ("entities",))
        if any(mask_secrets(value)[1] for value in (node.title, node.body, node.supporting_text or "")):
            node_masked = node_masked.model_copy(update={"sensitivity": "confidential"})
        nodes.append(node_masked)
    return draft.model_copy(
        update={
            "episode_name": mask_secrets(draft.episode_name)[0],
            "nodes": nodes,
            "entities": [_masked(e, ("name", "description"), ("aliases",)) for e in draft.entities],
            "relations": [_masked(r, ("subject", "object", "label", "statement")) for r in draft.relations],
            "links": [_masked(link, ("source", "target", "reason")) for link in draft.links],
        }
    )


_Item = TypeVar("_Item", DraftNode, DraftEntity, DraftRelation, DraftLink)


def _masked(item: _Item, texts: tuple[str, ...], lists: tuple[str, ...] = ()) -> _Item:
    """One item with its texts and lists of texts masked, and a quote that held a secret left out."""
    update: dict[str, Any] = {
        name: mask_secrets(value)[0] for name in texts if isinstance(value := getattr(item, name), str)
    }
    update.update({name: [mask_secrets(v)[0] for v in getattr(item, name)] for name in lists})
    quote = getattr(item, "supporting_text", None)
    if quote is not None and mask_secrets(quote)[1]:
        update["supporting_text"] = None
    return item.model_copy(update=update)


def _with_tags_normalized(draft: Draft) -> Draft:
    """Tags as the vault writes them (`vector-db` → `vector_db`); one with nothing left goes."""
    nodes = [
        node.model_copy(update={"tags": sorted({t for t in map(normalize_tag, node.tags) if t})})
        for node in draft.nodes
    ]
    return draft.model_copy(update={"nodes": nodes})


def _texts(draft: Draft) -> Iterator[str]:
    """Every text of a draft's items that `masked` masks."""
    yield draft.episode_name
    for node in draft.nodes:
        yield from (node.title, node.body, node.supporting_text or "", *node.entities)
    for entity in draft.entities:
        yield from (entity.name, entity.description, entity.supporting_text or "", *entity.aliases)
    for relation in draft.relations:
        yield from (relation.subject, relation.object, relation.label, relation.statement)
        yield relation.supporting_text or ""
    for link in draft.links:
        yield from (link.source, link.target, link.reason or "")


def named_lines(text: str, lines: tuple[int, int] | None) -> str:
    """The named lines of a note (the whole note when none are named or they do not exist)."""
    if lines is None:
        return text
    all_lines = text.split("\n")
    first, last = lines
    if not 1 <= first <= last or first > len(all_lines):
        return text
    return "\n".join(all_lines[first - 1 : last])


def quoted_in(draft: Draft, text: str, whole: str | None = None, prefix: str = "") -> tuple[Draft, list[str]]:
    """The draft without the items whose supporting_text the note does not hold; what was left out.

    `text` is what the draft names (a note's lines); a quote not there is looked for in the `whole`
    note: lines added above since (the note edited after an import) move what a draft quoted. With
    `prefix`, only the items whose pointer starts with it (one draft of a list) are looked at.
    """
    folded = normalize_for_match(text)
    whole_folded: list[str] = []
    dropped: list[str] = []

    def holds(item: Any) -> bool:
        quote = item.supporting_text
        if prefix and not (item.pointer or "").startswith(prefix + "/"):
            return True  # another draft's item, checked against its own note
        if not quote or quote in text or normalize_for_match(quote) in folded:
            return True
        if whole is not None and whole != text:
            if not whole_folded:
                whole_folded.append(normalize_for_match(whole))
            if quote in whole or normalize_for_match(quote) in whole_folded[0]:
                return True
        dropped.append(f"{item.pointer or '/'}: supporting_text not found in the note it names")
        return False

    nodes = [n for n in draft.nodes if holds(n)]
    entities = [e for e in draft.entities if holds(e)]
    names = {e.name.casefold() for e in entities} | {a.casefold() for e in entities for a in e.aliases}
    relations = []
    for relation in draft.relations:
        if not holds(relation):
            continue
        if relation.subject.casefold() in names and relation.object.casefold() in names:
            relations.append(relation)
        else:
            dropped.append(f"{relation.pointer or '/'}: an end's entity was left out")
    titles = {n.title.casefold() for n in nodes}
    links = []
    for link in draft.links:
        if link.source.casefold() in titles and link.target.casefold() in titles:
            links.append(link)
        else:
            dropped.append(f"{link.pointer or '/'}: a node it joins was left out")
    update = {"nodes": nodes, "entities": entities, "relations": relations, "links": links}
    return draft.model_copy(update=update), dropped

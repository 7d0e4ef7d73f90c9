"""Secrets: every kind is found and masked; dates, versions and plain numbers are left alone."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kgvault import secrets
from kgvault.secrets import mask_secrets

OPENAI = "sk-test-51HfakeKEYabcdefghijklmnop1234"
ANTHROPIC = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123"
GITHUB = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
GITHUB_PAT = "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz"
AWS = "AKIAIOSFODNN7EXAMPLE"
SLACK = "xoxb-123456789012-abcdefghijkl"
GOOGLE = "AIzaSyA1234567890abcdefghijklmnopqrstuv"
STRIPE = "sk_live_51Habcdefghijklmnop"
STRIPE_RESTRICTED = "rk_live_abcdefghijklmnop12"


@pytest.mark.parametrize(
    ("secret", "kind", "mask"),
    [
        (OPENAI, "openai_key", "sk-…1234"),
        (ANTHROPIC, "anthropic_key", "sk-…0123"),
        (GITHUB, "github_token", "ghp…6789"),
        (GITHUB_PAT, "github_token", "git…wxyz"),
        (AWS, "aws_key", "AKI…MPLE"),
        (SLACK, "slack_token", "xox…ijkl"),
        (GOOGLE, "google_key", "AIz…stuv"),
        (STRIPE, "stripe_key", "sk_…mnop"),
        (STRIPE_RESTRICTED, "stripe_key", "rk_…op12"),
    ],
)
def test_keys_are_masked_to_first_three_and_last_four(secret: str, kind: str, mask: str) -> None:
    masked, kinds = mask_secrets(f"the key is {secret}, keep it safe")
    assert masked == f"the key is {mask}, keep it safe"
    assert kinds == (kind,)


def test_private_key_blocks_are_masked_whole() -> None:
    block = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAabc\nxyz==\n-----END RSA PRIVATE KEY-----"
    text = f"before\n{block}\nafter"
    masked, kinds = mask_secrets(text)
    assert masked == "before\n[private key]\nafter"
    assert kinds == ("private_key",)


@pytest.mark.parametrize(
    "text",
    ["password: hunter2", "password=hunter2", 'PASSWORD = "correct horse"', "the password is hunter2",
     "mot de passe : hunter2", '"password": "hunter2"'],
)  # fmt: skip
def test_password_values_are_masked_whole(text: str) -> None:
    masked, kinds = mask_secrets(text)
    assert "hunter2" not in masked and "correct horse" not in masked
    assert masked.endswith("…")
    assert kinds == ("password",)


def test_email_keeps_its_first_letter_and_domain() -> None:
    assert mask_secrets("write to dana.kim@example.com today") == (
        "write to d…@example.com today",
        ("email",),
    )


@pytest.mark.parametrize(
    ("phone", "mask"),
    [
        ("+1 415 555 0199", "+1 …0199"),
        ("+33 6 12 34 56 78", "+33 …5678"),
        ("+442079460000", "+…0000"),
        ("(415) 555-0199", "…0199"),
        ("415-555-0199", "…0199"),
        ("06 12 34 56 78", "…5678"),
        ("020 7946 0000", "…0000"),
    ],
)
def test_phone_numbers_keep_country_code_and_last_four_digits(phone: str, mask: str) -> None:
    assert mask_secrets(f"call {phone} now") == (f"call {mask} now", ("phone",))


@pytest.mark.parametrize(
    "text",
    [
        "On 2025-03-12 we updated to Marlin 2.1.3 (v2.1.3).",
        "2.3 million rows in 41 minutes, 350 mm bed, 1234567890 rows total.",
        "From 2025-03-12 - 2025-03-14, at 10:00-12:00.",
        "ISBN 978-3-16-148410-0 and IP 192.168.1.254.",
        "Set the temperature to +5 degrees and the key to 12.",
        "The password manager holds the real key.",
        "Use sk-learn and the task-runner; see AKIA docs.",
        "Tag @dana in the channel.",
    ],
)
def test_no_false_positives(text: str) -> None:
    assert mask_secrets(text) == (text, ())


def test_every_kind_in_one_text_is_reported_sorted_and_nothing_leaks() -> None:
    secrets = [OPENAI, GITHUB, AWS, "dana.kim@example.com", "+1 415 555 0199"]
    text = " | ".join(["password: hunter2", *secrets])
    masked, kinds = mask_secrets(text)
    assert kinds == ("aws_key", "email", "github_token", "openai_key", "password", "phone")
    for secret in [*secrets, "hunter2"]:
        assert secret not in masked


def test_masking_is_idempotent() -> None:
    once, _ = mask_secrets(f"key {OPENAI} mail dana.kim@example.com phone +1 415 555 0199")
    assert mask_secrets(once)[0] == once


# -- speed-ups that must change nothing ---------------------------------------------------------

JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.abcdefghijk"
PIECES = [
    *(OPENAI, ANTHROPIC, GITHUB, GITHUB_PAT, AWS, SLACK, GOOGLE, STRIPE, STRIPE_RESTRICTED, JWT, "sk-"),
    *("password: ", "Passwort=", "mot de passe est ", "api_key: ", "Bearer ", "client_secret=", "hunter2"),
    *("abcdefghijklmnop1234", "dana.kim@example.com", "@", "-----BEGIN RSA PRIVATE KEY-----", "PRIVATE KEY"),
    *("+1 415 555 0199", "+33612345678", "(415) 555-0199", "415.555.0199", "06 12 34 56 78", "0612 345 678"),
    *("+44 (20) 7946 0958", "2025-03-12", "v2.1.3", "1234567890", "-", " ", ".", "(", ")", "+", "7", "12"),
    *("x", "\n", ",", ":"),
]
LOOKAHEAD = re.compile(r"\(\?=\[[^\]]*\]\)")


@settings(max_examples=400, database=None, deadline=None, derandomize=True)
@given(st.lists(st.sampled_from(PIECES), max_size=10).map("".join))
def test_the_finder_lookaheads_and_the_phone_screen_hide_nothing(text: str) -> None:
    """Finders start with a lookahead for the characters a find can start with, and phones are
    looked for only in text with nine digits a few separators apart: neither changes a find."""
    for regex in (secrets._TOKEN, secrets._PASSWORD, secrets._CREDENTIAL, secrets._PHONE):
        plain_pattern = LOOKAHEAD.sub("", regex.pattern, count=1)
        assert plain_pattern != regex.pattern
        plain = re.compile(plain_pattern, regex.flags)
        assert [(m.span(), m.lastgroup) for m in regex.finditer(text)] == [
            (m.span(), m.lastgroup) for m in plain.finditer(text)
        ]
    if secrets._phone_spans(text):
        assert secrets._PHONE_SHAPE.search(text)

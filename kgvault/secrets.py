"""Secrets: find API keys, private keys, passwords, e-mail addresses and phone numbers, and mask them.

Masking happens in pass 1, before anything is stored, cached or sent (DESIGN §5). A mask keeps
just enough to recognise the value and never enough to use it:

* tokens and keys: the first 3 and the last 4 characters (`sk-…9f3a`); a value shorter than
  16 characters is masked whole (`…`), since 7 visible characters would give most of it away;
* passwords: always masked whole (`password: …`);
* private key blocks: `[private key]`;
* e-mail addresses: the first character of the local part and the domain (`d…@example.com`);
* phone numbers: the country code, if any, and the last 4 digits (`+1 …0199`, `…5678`; `+…0000`
  when no separator shows where the country code ends).
"""

from __future__ import annotations

import re
from collections.abc import Callable

_TOKEN_KINDS: tuple[tuple[str, str], ...] = (
    # Order matters where shapes share a prefix: sk-ant- is Anthropic, not OpenAI.
    ("anthropic_key", r"sk-ant-[A-Za-z0-9_-]{20,}"),
    ("openai_key", r"sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}"),
    ("github_token", r"(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})"),
    ("aws_key", r"(?:AKIA|ASIA)[0-9A-Z]{16}"),
    ("slack_token", r"xox[abposr]-[A-Za-z0-9-]{10,}"),
    ("google_key", r"AIza[0-9A-Za-z_-]{35}"),
    ("stripe_key", r"(?:sk|rk|pk)_(?:live|test)_[0-9A-Za-z]{16,}"),
    ("jwt", r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
)
# Each finder starts with a lookahead for the characters a find can start with: the regex engine then
# rejects most positions at once instead of trying every branch there (three times faster here).
# Every token shape above starts with one of these letters.
_TOKEN = re.compile(
    "(?=[sgAxrpe])(?:"
    + "|".join(rf"(?<![\w-])(?P<{kind}>{pattern})(?![\w-])" for kind, pattern in _TOKEN_KINDS)
    + ")"
)
_PRIVATE_KEY = re.compile(
    r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----.*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY"
    r"(?: BLOCK)?-----|\Z)",
    re.DOTALL,
)
_PASSWORD = re.compile(
    r"""(?ix)
    (?=[pcm])
    (?<![\w-])(?:password|passwd|passphrase|pwd|passwort|contraseña|mot[ ]de[ ]passe|mdp)["']?
    [ \t]*(?:[:=]|\bis\b|\best\b)[ \t]*
    (?P<value>"[^"\n]+"|'[^'\n]+'|[^\s,;]+)
    """
)
_CREDENTIAL = re.compile(
    r"""(?ix)
    (?=[ascb])
    (?<![\w-])(?:api[_-]?key|secret[_-]?key|access[_-]?token|auth[_-]?token|client[_-]?secret|bearer)["']?
    [ \t]*[:=\s][ \t]*
    (?P<value>"[^"\n]{8,}"|'[^'\n]{8,}'|[A-Za-z0-9_./+=-]{16,})
    """
)
_EMAIL = re.compile(
    r"(?<![\w.%+-])(?P<local>[A-Za-z0-9][A-Za-z0-9._%+-]*)@(?P<domain>[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,})(?![\w-])"
)
# Phones: international (+CC, then groups) or national shapes that need separators, so plain
# numbers, ISO dates (4-2-2 digits) and versions (2.1.3) never match.
_PHONE = re.compile(
    r"""(?x)
    (?=[+(\d])
    (?<![\w+.-])
    (?:
        (?P<intl>\+\d{1,3})(?:[ .-]?\(\d{1,4}\))?(?:[ .-]?\d{1,5}){2,6}
      | \(\d{3}\)[ ]?\d{3}[-. ]\d{4}
      | \d{3}[-. ]\d{3}[-. ]\d{4}
      | 0\d(?:[ .-]\d{2}){4}
      | 0\d{2,4}[ -]\d{3,4}[ -]\d{3,4}
    )
    (?![\w.+-]*\d)(?![\w-])
    """
)
_PHONE_SHAPE = re.compile(r"\d(?:[ .()-]{0,2}\d){8}")
"""Nine digits at most two separators apart: every phone number long enough to mask holds them."""
# Cheap screens (plain substring tests, much faster than regexes): most text holds none of them,
# so most finders never run.
_TOKEN_HINTS = (
    *("sk-", "_live_", "_test_", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    *("AKIA", "ASIA", "xox", "AIza", "eyJ"),
)
_PASSWORD_HINTS = ("pass", "pwd", "mdp", "mot de passe", "contraseña")
_CREDENTIAL_HINTS = ("key", "token", "secret", "bearer")
_DIGITS = "0123456789"


def _holds_any(text: str, hints: tuple[str, ...]) -> bool:
    """Whether any hint occurs in the text (a plain loop: faster than any() over a generator)."""
    for hint in hints:  # noqa: SIM110
        if hint in text:
            return True
    return False


_Span = tuple[int, int, str, str]
"""(start, end, kind, mask)."""


def mask_token(value: str) -> str:
    """Mask a key or token: first 3 and last 4 characters, or all of it when short."""
    return f"{value[:3]}…{value[-4:]}" if len(value) >= 16 else "…"


def _token_spans(text: str) -> list[_Span]:
    spans: list[_Span] = []
    for match in _TOKEN.finditer(text):
        kind = match.lastgroup or "token"
        spans.append((match.start(), match.end(), kind, mask_token(match.group())))
    return spans


def _private_key_spans(text: str) -> list[_Span]:
    return [(m.start(), m.end(), "private_key", "[private key]") for m in _PRIVATE_KEY.finditer(text)]


def _password_spans(text: str) -> list[_Span]:
    return [(m.start("value"), m.end("value"), "password", "…") for m in _PASSWORD.finditer(text)]


def _credential_spans(text: str) -> list[_Span]:
    return [
        (m.start("value"), m.end("value"), "credential", mask_token(m.group("value").strip("\"'")))
        for m in _CREDENTIAL.finditer(text)
    ]


def _email_spans(text: str) -> list[_Span]:
    return [
        (m.start(), m.end(), "email", f"{m.group('local')[0]}…@{m.group('domain')}")
        for m in _EMAIL.finditer(text)
    ]


def _phone_spans(text: str) -> list[_Span]:
    spans: list[_Span] = []
    for match in _PHONE.finditer(text):
        digits = re.sub(r"\D", "", match.group())
        if not 9 <= len(digits) <= 15:
            continue
        code = match.group("intl")
        if code and text[match.end("intl")].isdigit():
            code = "+"  # no separator: where the country code ends is unknown, so show none of it
        mask = f"{code} …{digits[-4:]}" if code and code != "+" else f"{code or ''}…{digits[-4:]}"
        spans.append((match.start(), match.end(), "phone", mask))
    return spans


def find_secrets(text: str) -> list[_Span]:
    """Return non-overlapping (start, end, kind, mask) spans of every secret in the text, in order.

    Where two finds overlap the one starting first wins; at the same start a key shape beats a
    password value, which beats an e-mail address, which beats a phone number.
    """
    lower = text.lower()
    finders: list[tuple[int, Callable[[str], list[_Span]]]] = []
    if "PRIVATE KEY" in text:
        finders.append((0, _private_key_spans))
    if _holds_any(text, _TOKEN_HINTS):
        finders.append((1, _token_spans))
    if _holds_any(lower, _PASSWORD_HINTS):
        finders.append((2, _password_spans))
    if _holds_any(lower, _CREDENTIAL_HINTS):
        finders.append((3, _credential_spans))
    if "@" in text:
        finders.append((4, _email_spans))
    if sum(map(text.count, _DIGITS)) >= 9 and _PHONE_SHAPE.search(text):
        finders.append((5, _phone_spans))
    if not finders:
        return []
    candidates: list[tuple[int, int, int, str, str]] = []
    for rank, finder in finders:
        candidates.extend((start, rank, -end, kind, mask) for start, end, kind, mask in finder(text))
    candidates.sort()
    spans: list[_Span] = []
    covered = 0
    for start, _rank, negative_end, kind, mask in candidates:
        if start < covered:
            continue
        spans.append((start, -negative_end, kind, mask))
        covered = -negative_end
    return spans


def mask_secrets(text: str) -> tuple[str, tuple[str, ...]]:
    """Return the text with every secret masked (`sk-…9f3a`) and the sorted kinds found."""
    spans = find_secrets(text)
    if not spans:
        return text, ()
    pieces: list[str] = []
    position = 0
    for start, end, _kind, mask in spans:
        pieces.append(text[position:start])
        pieces.append(mask)
        position = end
    pieces.append(text[position:])
    return "".join(pieces), tuple(sorted({kind for _s, _e, kind, _m in spans}))

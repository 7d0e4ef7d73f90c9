"""Secrets: find keys, tokens, passwords, e-mail addresses, phones, IBANs and card numbers; mask them.

Masking happens in pass 1, before anything is stored, cached or sent (DESIGN §5). A mask keeps
just enough to recognise the value and never enough to use it:

* tokens and keys: the first 3 and the last 4 characters (`sk-…9f3a`); a value shorter than
  16 characters is masked whole (`…`), since 7 visible characters would give most of it away;
* passwords: always masked whole (`password: …`);
* private key blocks: `[private key]`;
* e-mail addresses: the first character of the local part and the domain (`d…@example.com`);
* phone numbers: the country code, if any, and the last 4 digits (`+1 …0199`, `…5678`; `+…0000`
  when no separator shows where the country code ends);
* IBANs: the country code and the last 4 characters (`DE…3000`);
* payment card numbers: the last 4 digits (`…1111`);
* the password of a URL with credentials: whole (`https://dana:…@db.example.com`);
* other key-like strings (`token`): as keys, first 3 and last 4 characters.

What counts, beyond the known key shapes:

* an IBAN is 2 letters, 2 check digits and 11 to 30 letters or digits, compact or in groups of 4,
  that passes the ISO 7064 mod-97 check (a random string of that shape passes one time in 97) and
  holds 8 digits in a row or two groups of 4 digits, as every country's account numbers do;
* a card number is 13 to 19 digits, compact or in groups (`4111 1111 1111 1111`, `3782-822463-10005`),
  that passes the Luhn check and starts like a card scheme's numbers (Visa 4, Mastercard 51-55 and
  2221-2720, Amex 34/37, Diners, JCB, Discover, UnionPay and Maestro 3/5/6): ISBNs (978/979),
  phone numbers (0, 1, +) and dates never do;
* a key-like string is a run of 24 or more `[A-Za-z0-9_/+-]` (base64 padding allowed) that mixes
  upper case, lower case and digits and looks random: its Shannon entropy per character is near
  that of a random string of its length (`_expected_entropy`), its character class changes often
  between neighbours, and one of its pieces between `-`, `/`, `_` and `+` has 10 characters or
  more; words, CamelCase names, slugs, model names and paths fail one of these. A word like key,
  token, secret, password, api, bearer or credential on its line (up to 120 characters before it
  or 40 after; `apiKey` counts, and a few French and German words), or ending the line before a
  value that opens its own (`API token:`), lowers the bar (`_CONTEXT_*`).
  Alone, it must be 32 characters or more, clear higher bars (`_ALONE_*`), not be base64 of
  readable text and not be in a URL. In a URL only a parameter's value (`?token=…`) is looked at.
  Hex strings (git hashes, digests) and UUIDs never mix cases, so never count.

Finds that overlap are masked as one; the lines where masks went are searched again, for a
secret glued to another one.
"""

from __future__ import annotations

import base64
import binascii
import itertools
import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from functools import partial

from kgvault.layout import TABLE_DELIMITER

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
_PASSWORD_WORDS = r"(?:password|passwd|passphrase|pwd|pw|passwort|kennwort|contraseña|mot[ ]de[ ]passe|mdp)"
_PASSWORD = re.compile(
    rf"""(?ix)
    (?=[pcmk])
    (?<![A-Za-z0-9-]){_PASSWORD_WORDS}["']?
    [ \t]*(?:[:=]|\bis\b|\best\b|\bist\b|\bes\b)[ \t]*
    (?P<value>"[^"\n]+"|'[^'\n]+'|[^\s,;]+)
    """
)
# "the password for the router is …", "the password was …": prose whose value must look like one
# (a digit or a sign in it), so "the password was reset" keeps its word.
_PASSWORD_PROSE = re.compile(
    rf"""(?ix)
    (?=[pcmk])
    (?<![A-Za-z0-9-]){_PASSWORD_WORDS}
    (?:[ \t]+(?:for|to|of|für|de|pour)[ \t]+[^:=\n]{{1,40}}?[ \t]*(?:[:=]|\bis\b|\bist\b|\bes\b|\best\b)
      |[ \t]+(?:was|war|era|était)\b)
    [ \t]*
    (?P<value>(?=[^\s,;]*[\d!@#$%^&*()+=?<>{{}}\[\]|~])[^\s,;]{{4,}})
    """
)
# "pw NetflixPass2024": a label and a value with letters and digits, no word between.
_PASSWORD_BARE = re.compile(
    r"(?i)(?=[pP])(?<![A-Za-z0-9-])(?:pwd|pw)[ \t]+"
    r"(?P<value>(?=[^\s,;]*\d)(?=[^\s,;]*[A-Za-z])[^\s,;|]{6,})"
)
_SECRET_HEADER = re.compile(
    rf"(?i:{_PASSWORD_WORDS}s?|passcodes?|pin[ _-]?codes?|api[ _-]?keys?|secret[ _-]?keys?"
    rf"|(?:access|auth|api)[ _-]?tokens?)|PINs?"
)
"""A table column whose every cell is a secret: its header says so (not a GPIO table's `Pin`, nor a
game's `Secret` door)."""
_CREDENTIAL = re.compile(
    r"""(?ix)
    (?=[ascb])
    (?<![A-Za-z0-9-])(?:api[_-]?key|secret[_-]?key|access[_-]?token|auth[_-]?token|client[_-]?secret|bearer)["']?
    [ \t]*[:=\s][ \t]*
    (?P<value>"[^"\n]{8,}"|'[^'\n]{8,}'|[A-Za-z0-9_./+=-]{16,})
    """
)
_EMAIL = re.compile(
    r"(?<![\w.%+@-])(?P<local>[A-Za-z0-9][A-Za-z0-9._%+-]*)@(?P<domain>[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,})(?![\w-])"
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
      | 0\d{3,4}[ ]\d{6,8}                 # 07700 900123, 0176 12345678
      | (?<![/=\#])07[1-9]\d{8}              # a British mobile written unspaced, not in a link or a query
    )
    (?![\w.+-]*\d)(?![\w-])
    """
)
_PHONE_SHAPE = re.compile(r"\d(?:[ .()-]{0,2}\d){8}")
"""Nine digits at most two separators apart: every phone number long enough to mask holds them."""
_URL_PASSWORD = re.compile(
    r"(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{1,15}://[^\s:/?#@\[\]]*:(?P<value>[^\s/?#]+)@(?=[\w\[])"
)
"""`scheme://user:password@host`: the password may hold `@` (the last one before the host ends it)."""
_URL_USER = re.compile(r"[A-Za-z][A-Za-z0-9+.-]{1,15}://[^\s:/?#@\[\]]*:\Z")
"""What comes before a URL's password (`https://bob:`), up to where an address would start."""
_IBAN = re.compile(
    r"(?<![A-Za-z0-9])[A-Z]{2}[0-9]{2}(?:[ ]?[A-Z0-9]{4}){2,7}(?:[ ]?[A-Z0-9]{1,4})?(?![A-Za-z0-9])"
)
_CARD = re.compile(
    r"(?<![A-Za-z0-9_+.,/-])[0-9]{4}(?:(?P<sep>[ -])[0-9]{4,6}(?:(?P=sep)[0-9]{1,6}){1,4}|[0-9]{9,15})"
    r"(?![A-Za-z0-9_])"
)
_KEYLIKE_CHARS = "A-Za-z0-9_/+-"
_KEYLIKE = re.compile(rf"(?<![{_KEYLIKE_CHARS}])[{_KEYLIKE_CHARS}]{{24,}}+={{0,2}}+(?![={_KEYLIKE_CHARS}])")
_CONTEXT_WORDS = frozenset(
    {
        *("key", "keys", "apikey", "token", "tokens", "authtoken", "accesstoken", "secret", "secrets"),
        *("secretkey", "password", "passwords", "passwd", "passphrase", "pwd", "passwort", "kennwort"),
        *("mdp", "api", "bearer", "credential", "credentials", "auth", "authorization", "jeton", "clé"),
        *("clef", "schlüssel", "aws"),
    }
)
"""Words that make a key-like string nearby a likely secret (camelCase is split: `apiKey` holds key)."""
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
_WORD = re.compile(r"[^\W\d_]+")
_CONTEXT_BEFORE = 120
_CONTEXT_AFTER = 40
"""How far (characters, same line) a context word may be from a key-like string."""
_LINE_OPENERS = " \t>-*+`|"
"""What may come before a value that opens its line (a quote, a list item, a code span, a cell)."""
_CONTEXT_MARGIN = 0.5
_ALONE_MARGIN = 0.25
"""How far below a random string's expected entropy a key-like string may be (bits per character)."""
_SEPARATORS = re.compile(r"[-/_+]")
_LONGEST_PIECE = 10
"""A key's longest piece between `-`, `/`, `_` and `+` (a random key holds few of them; a slug, a
model name or a path is made of short pieces: `Qwen3-Coder-30B-A3B-Instruct`)."""
_CONTEXT_WORDY = 0.5
_LETTER_RUNS = re.compile(r"[a-z]{4,}|[A-Z]{4,}")
"""Near a key word, a string half made of runs of 4 letters or more is a name, not a key."""
_CONTEXT_CHANGES = 0.35
_ALONE_CHANGES = 0.45
"""The least share of neighbouring letters and digits of different classes (random: about 0.6;
CamelCase names, paths and slugs: 0.2 to 0.4)."""
# Cheap screens (plain substring tests, much faster than regexes): most text holds none of them,
# so most finders never run.
_TOKEN_HINTS = ("sk-", "AKIA", "ASIA", "xox", "AIza", "eyJ")
_UNDERSCORE_TOKEN_HINTS = ("_live_", "_test_", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_")
"""The token hints that hold `_`, which prose seldom does: one test for it spares most of these."""
_PASSWORD_HINTS = ("pass", "pwd", "pw", "mdp", "mot de passe", "contraseña", "kennwort")
_CREDENTIAL_HINTS = ("key", "token", "secret", "bearer")
_COLUMN_HINTS = ("pin", "key", "token")
"""What else a table's secret column may be headed (see `_SECRET_HEADER`)."""


def _byte_classes(classes: dict[bytes, bytes], other: bytes) -> bytes:
    """A bytes.translate table: every byte of a key maps to its value, any other byte to `other`."""
    table = bytearray(other * 256)
    for members, symbol in classes.items():
        for byte in members:
            table[byte] = symbol[0]
    return bytes(table)


_ASCII_LETTERS = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_CLASS_TABLE = _byte_classes(
    {b"ABCDEFGHIJKLMNOPQRSTUVWXYZ": b"U", b"abcdefghijklmnopqrstuvwxyz": b"l", b"0123456789": b"d"}, b"?"
)
_NOT_ALNUM = bytes(b for b in range(256) if b not in _ASCII_LETTERS + b"0123456789")
_CLASS_RUNS = re.compile(rb"U+|l+|d+")
# Where numbers and key-like strings can be is found in the text's shape: its bytes (`ascii` with
# `?` for anything else, so offsets stay those of the text) translated to one symbol per class.
# A literal pattern is searched some 20 times faster than the character classes of the finders,
# which then run only on the lines where the shape says something may be.
_KEYLIKE_TABLE = _byte_classes({_ASCII_LETTERS + b"0123456789_/+-": b"x"}, b" ")
_KEYLIKE_RUN = re.compile(b"x" * 24 + b"+")
"""Every key-like string is a run of 24 or more key characters."""
_NUMBER_TABLE = _byte_classes({b"0123456789": b"0", b" -": b"-"}, b"a")
_NUMBER_RUN = re.compile(rb"0000-?0000")
"""Every card number and every IBAN kept holds 8 digits in a row or two groups of 4 digits (an
IBAN's account number is mostly digits; one without is not taken)."""
# `?` stands for any other character in the shape, a digit of another script among them (`\d`
# matches those): as a digit here, the shape's run is found wherever `_PHONE_SHAPE` matches.
_PHONE_TABLE = _byte_classes({b"0123456789?": b"0", b" .()-": b"-"}, b"a")
_PHONE_RUN = re.compile(rb"0(?:-{0,2}0){8}")
"""`_PHONE_SHAPE` in the shape: a cheap screen that runs before it (a literal start scans fast)."""


def _holds_any(text: str, hints: tuple[str, ...]) -> bool:
    """Whether any hint occurs in the text (a plain loop: faster than any() over a generator)."""
    for hint in hints:  # noqa: SIM110
        if hint in text:
            return True
    return False


_Span = tuple[int, int, str, str]
"""(start, end, kind, mask)."""
_MASK_PASSES = 4
"""How many times mask_secrets searches the text it masked, at most."""


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
    found = [*_PASSWORD.finditer(text), *_PASSWORD_PROSE.finditer(text), *_PASSWORD_BARE.finditer(text)]
    spans = {(m.start("value"), m.end("value"), "password", "…") for m in found}
    if "|" in text:
        spans.update(_secret_column_spans(text))
    return sorted(spans)


def _secret_column_spans(text: str) -> Iterator[_Span]:
    """The cells of a Markdown table's columns headed `Password`, `PIN`, `Token`, `API key`, …"""
    lines = text.split("\n")
    starts = [0]
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)
    index = 0
    while index < len(lines) - 1:
        header = lines[index]
        if "|" not in header or not TABLE_DELIMITER.fullmatch(lines[index + 1]):
            index += 1
            continue
        secret = {
            column for column, (_, _, cell) in enumerate(_cells(header)) if _SECRET_HEADER.fullmatch(cell)
        }
        index += 2
        while index < len(lines) and "|" in lines[index]:
            for column, (start, end, cell) in enumerate(_cells(lines[index])):
                if column in secret and cell:
                    yield (starts[index] + start, starts[index] + end, "password", "…")
            index += 1


def _cells(row: str) -> list[tuple[int, int, str]]:
    """A table row's cells: (start, end, text) of each, stripped, by the row's unescaped pipes."""
    bounds = [i for i, char in enumerate(row) if char == "|" and (i == 0 or row[i - 1] != "\\")]
    if not bounds:
        return []
    edges = [-1, *bounds] if row[: bounds[0]].strip() else bounds  # a row may leave out its outer pipes
    if row[edges[-1] + 1 :].strip():
        edges.append(len(row))
    cells = []
    for left, right in itertools.pairwise(edges):
        raw = row[left + 1 : right]
        stripped = raw.strip()
        start = left + 1 + (len(raw) - len(raw.lstrip()))
        cells.append((start, start + len(stripped), stripped))
    return cells


def _credential_spans(text: str) -> list[_Span]:
    return [
        (m.start("value"), m.end("value"), "credential", mask_token(m.group("value").strip("\"'")))
        for m in _CREDENTIAL.finditer(text)
    ]


def _email_spans(text: str) -> list[_Span]:
    return [
        (m.start(), m.end(), "email", f"{m.group('local')[0]}…@{m.group('domain')}")
        for m in _EMAIL.finditer(text)
        if not _in_url_credentials(text, m.start())
    ]


def _in_url_credentials(text: str, start: int) -> bool:
    """Whether an address-like `password@host` is a URL's credentials (`https://bob:pw@host`): the
    URL's password is masked, and its host stays (a `mailto:` address is still an address)."""
    token = max(text.rfind(blank, 0, start) for blank in (" ", "\n", "\t")) + 1
    return _URL_USER.search(text, token, start) is not None


def _in_iban_shape(text: str, start: int, end: int) -> bool:
    """Whether the span lies inside something shaped like an IBAN, valid or not (not a phone then)."""
    line_end = text.find("\n", end)
    for match in _IBAN.finditer(text, max(0, start - 48), len(text) if line_end < 0 else line_end):
        if match.start() > start:
            break
        if end <= match.end():
            return True
    return False


_NUMBER_NAMED_BEFORE = re.compile(
    r"(?i)\b(?:ticket|tracking|order|invoice|ref|reference|booking|case|account|policy|serial|customer"
    r"|isbn|upc|ean|barcode|part|product|item|sku|id|patient|employee|nhs|receipt|parcel|claim|build|po)"
    r"(?:\s+(?:no|number|nr|id))?\.?\s*[:#]?\s*$"
)
"""What names a number as something else than a phone, right before it."""


def _phone_spans(text: str) -> list[_Span]:
    spans: list[_Span] = []
    for match in _PHONE.finditer(text):
        digits = re.sub(r"\D", "", match.group())
        if not 9 <= len(digits) <= 15 or _in_iban_shape(text, match.start(), match.end()):
            continue
        if match.group()[:1] == "0" and _NUMBER_NAMED_BEFORE.search(
            text, max(0, match.start() - 24), match.start()
        ):
            continue  # "Ticket 0815 123456", "Tracking no. 0034 12345678": no phone
        code = match.group("intl")
        if code and text[match.end("intl")].isdigit():
            code = "+"  # no separator: where the country code ends is unknown, so show none of it
        mask = f"{code} …{digits[-4:]}" if code and code != "+" else f"{code or ''}…{digits[-4:]}"
        spans.append((match.start(), match.end(), "phone", mask))
    return spans


def _url_password_spans(text: str) -> list[_Span]:
    spans: list[_Span] = []
    end = -1
    position = text.find("://")
    while position >= 0:  # only lines with a `://`: the regex starts with a class, slow to scan
        if position >= end:
            start = text.rfind("\n", 0, position) + 1
            end = text.find("\n", position)
            end = len(text) if end < 0 else end
            spans.extend(
                (m.start("value"), m.end("value"), "url_password", "…")
                for m in _URL_PASSWORD.finditer(text, start, end)
            )
        position = text.find("://", position + 3)
    return spans


def _prefixes(match: re.Match[str], separators: str) -> Iterator[tuple[int, str]]:
    """The ends of a grouped number's whole and of its shorter prefixes (at each separator, longest
    first) with their characters, separators dropped: a group after the number (a year, a page) is
    then not taken for part of it. A number without separators is taken whole or not at all."""
    value = match.group()
    for end in range(len(value), 0, -1):
        if end == len(value) or value[end] in separators:
            yield match.start() + end, "".join(c for c in value[:end] if c not in separators)


def iban_valid(compact: str) -> bool:
    """ISO 13616: 15 to 34 characters, check digits 02 to 98, and the ISO 7064 mod-97 check."""
    if not 15 <= len(compact) <= 34 or not 2 <= int(compact[2:4]) <= 98:
        return False
    rearranged = compact[4:] + compact[:4]
    return int("".join(str(int(c, 36)) for c in rearranged)) % 97 == 1


_Lines = list[tuple[int, int]]
"""(start, end) of lines of a text, in order."""


def _lines_holding(text: str, shape: bytes, run: re.Pattern[bytes]) -> _Lines:
    """The lines of the text where the run occurs in its shape."""
    lines: _Lines = []
    end = -1
    for match in run.finditer(shape):
        if match.start() < end:
            continue
        start = text.rfind("\n", 0, match.start()) + 1
        end = text.find("\n", match.end())
        end = len(text) if end < 0 else end
        lines.append((start, end))
    return lines


def _all_lines(text: str) -> _Lines:
    return [(0, len(text))]


def _iban_spans(text: str, lines: _Lines | None = None) -> list[_Span]:
    spans: list[_Span] = []
    for line_start, line_end in _all_lines(text) if lines is None else lines:
        for match in _IBAN.finditer(text, line_start, line_end):
            for end, compact in _prefixes(match, " "):
                shape = text[match.start() : end].encode("ascii").translate(_NUMBER_TABLE)
                if iban_valid(compact) and _NUMBER_RUN.search(shape):
                    spans.append((match.start(), end, "iban", f"{compact[:2]}…{compact[-4:]}"))
                    break
    return spans


def luhn_valid(digits: str) -> bool:
    """The Luhn check every payment card number passes."""
    total = 0
    for position, char in enumerate(reversed(digits)):
        digit = ord(char) - 48
        if position % 2:
            digit = digit * 2 - 9 if digit > 4 else digit * 2
        total += digit
    return total % 10 == 0


def card_scheme_known(digits: str) -> bool:
    """Whether a number's first digits and length are those of a card scheme's numbers."""
    length = len(digits)
    first = digits[0]
    if first == "4":  # Visa
        return length in (13, 16, 19)
    if first == "2":  # Mastercard 2-series
        return length == 16 and 2221 <= int(digits[:4]) <= 2720
    if first == "3":  # Amex 34/37; Diners 30, 36, 38, 39; JCB 35
        if digits[1] in "47":
            return length == 15
        return digits[1] in "05689" and 14 <= length <= 19
    return first in "56" and 13 <= length <= 19  # Mastercard, Maestro, Discover, UnionPay, RuPay


def _card_spans(text: str, lines: _Lines | None = None) -> list[_Span]:
    spans: list[_Span] = []
    for line_start, line_end in _all_lines(text) if lines is None else lines:
        for match in _CARD.finditer(text, line_start, line_end):
            for end, digits in _prefixes(match, " -"):
                if 13 <= len(digits) <= 19 and card_scheme_known(digits) and luhn_valid(digits):
                    spans.append((match.start(), end, "card", f"…{digits[-4:]}"))
                    break
    return spans


def _expected_entropy(length: int) -> float:
    """About the Shannon entropy (bits per character) of a random string of letters and digits of
    this length (a fit, within 0.03 bits of the mean from 24 to 64 characters, of 2,000 samples each)."""
    return 1.30 + 0.643 * math.log2(length)


def shannon_entropy(value: str) -> float:
    """Bits per character of the value's character distribution."""
    size = len(value)
    return -sum(count / size * math.log2(count / size) for count in Counter(value).values())


def _classes(value: str) -> bytes:
    """The value's ASCII letters and digits as their classes: `U` upper case, `l` lower, `d` digit."""
    return value.encode("ascii", "replace").translate(_CLASS_TABLE, _NOT_ALNUM)


def _class_changes(classes: bytes) -> float:
    """The share of neighbouring letters and digits (of `_classes`) of different classes."""
    if len(classes) < 2:
        return 0.0
    return (len(_CLASS_RUNS.findall(classes)) - 1) / (len(classes) - 1)


def _wordy(value: str) -> float:
    """The share of the value in runs of 4 or more lower-case (or upper-case) letters: names are
    made of words, random strings seldom hold such runs (over 0.5 in 1 of 100 random strings)."""
    return sum(map(len, _LETTER_RUNS.findall(value))) / len(value)


def _decodes_to_text(value: str) -> bool:
    """Whether the value is base64 (standard or URL-safe) of readable text."""
    core = value.rstrip("=")
    core = core[: len(core) - len(core) % 4]
    try:
        raw = base64.b64decode(core.replace("-", "+").replace("_", "/"), validate=True)
    except (binascii.Error, ValueError):
        return False
    decoded = raw.decode("utf-8", "replace")
    if not decoded or "\ufffd" in decoded:
        return False
    return sum(c.isprintable() or c in "\n\t\r" for c in decoded) >= 0.95 * len(decoded)


def _has_context(text: str, start: int, end: int) -> bool:
    """Whether a word like key, token or password is near the span, on its line, outside it."""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    if line_end < 0:
        line_end = len(text)
    before = text[max(line_start, start - _CONTEXT_BEFORE) : start]
    after = text[end : min(line_end, end + _CONTEXT_AFTER)]
    if _holds_key_word(before) or _holds_key_word(after):
        return True
    if before.strip(_LINE_OPENERS):
        return False
    # The value opens its line: a line before it that ends with `:` may name it (`API token:`),
    # a code fence between them aside.
    previous_end = line_start - 1
    for _ in range(3):
        if previous_end <= 0:
            return False
        previous_start = text.rfind("\n", 0, previous_end) + 1
        previous = text[previous_start:previous_end].strip()
        previous_end = previous_start - 1
        if previous and not previous.startswith(("```", "~~~")):
            return previous.endswith(":") and _holds_key_word(previous[-_CONTEXT_BEFORE:])
    return False


def _holds_key_word(text: str) -> bool:
    return not _CONTEXT_WORDS.isdisjoint(word.lower() for word in _WORD.findall(_CAMEL.sub(" ", text)))


def _in_url(text: str, start: int) -> bool:
    """Whether the position is inside a URL (`scheme://` earlier in the same whitespace-free run)."""
    run_start = start
    while run_start > 0 and not text[run_start - 1].isspace():
        run_start -= 1
    return "://" in text[run_start:start] or text[run_start:start].startswith(("www.", "data:"))


def keylike(value: str, context: bool) -> bool:
    """Whether a run of key characters looks like a random key: see the module docstring."""
    core = value.rstrip("=")
    size = len(core)
    if size < (24 if context else 32) or core.startswith("/"):
        return False
    classes = _classes(core)
    upper, lower, digits = classes.count(b"U"), classes.count(b"l"), classes.count(b"d")
    if min(upper, lower, digits) < (1 if context else 2):
        return False
    if max(map(len, _SEPARATORS.split(core))) < _LONGEST_PIECE:
        return False
    if context:
        return (
            _class_changes(classes) >= _CONTEXT_CHANGES
            and _wordy(core) < _CONTEXT_WORDY
            and shannon_entropy(core) >= _expected_entropy(size) - _CONTEXT_MARGIN
        )
    return (
        _class_changes(classes) >= _ALONE_CHANGES
        and shannon_entropy(core) >= _expected_entropy(size) - _ALONE_MARGIN
        and not _decodes_to_text(value)
    )


def _keylike_spans(text: str, lines: _Lines | None = None) -> list[_Span]:
    spans: list[_Span] = []
    for line_start, line_end in _all_lines(text) if lines is None else lines:
        spans.extend(_keylike_line_spans(text, line_start, line_end))
    return spans


def _keylike_line_spans(text: str, line_start: int, line_end: int) -> list[_Span]:
    spans: list[_Span] = []
    for match in _KEYLIKE.finditer(text, line_start, line_end):
        start, end = match.span()
        value = match.group()
        # In a URL only a parameter's value (`?token=…`) may be a key: paths and ids are not.
        if not (start and text[start - 1] == "=") and _in_url(text, start):
            continue
        if keylike(value, _has_context(text, start, end)):
            spans.append((start, end, "token", mask_token(value.rstrip("="))))
    return spans


def find_secrets(text: str) -> list[_Span]:
    """Return non-overlapping (start, end, kind, mask) spans of every secret in the text, in order.

    Finds that overlap are masked as one, as the one starting first; at the same start a key
    shape beats a password value, which beats a URL's password, an e-mail address, an IBAN, a card
    number, a phone number and last a key-like string, in that order.
    """
    lower = text.lower()
    finders: list[tuple[int, _Finder]] = []
    if "PRIVATE KEY" in text:
        finders.append((0, _private_key_spans))
    if _holds_any(text, _TOKEN_HINTS) or ("_" in text and _holds_any(text, _UNDERSCORE_TOKEN_HINTS)):
        finders.append((1, _token_spans))
    if _holds_any(lower, _PASSWORD_HINTS) or ("|" in text and _holds_any(lower, _COLUMN_HINTS)):
        finders.append((2, _password_spans))
    if _holds_any(lower, _CREDENTIAL_HINTS):
        finders.append((3, _credential_spans))
    if "@" in text:
        if "://" in text:
            finders.append((4, _url_password_spans))
        finders.append((5, _email_spans))
    shape = text.encode("ascii", "replace")
    numbers = shape.translate(_NUMBER_TABLE)
    digits = numbers.count(b"0")  # ASCII digits (faster than counting each digit in the text)
    if digits:  # every number and every key-like string holds a digit
        if digits >= 9:
            number_lines = _lines_holding(text, numbers, _NUMBER_RUN)
            if number_lines:
                finders.append((6, partial(_iban_spans, lines=number_lines)))
                finders.append((7, partial(_card_spans, lines=number_lines)))
            if _PHONE_RUN.search(shape.translate(_PHONE_TABLE)) and _PHONE_SHAPE.search(text):
                finders.append((8, _phone_spans))
        keylike_lines = _lines_holding(text, shape.translate(_KEYLIKE_TABLE), _KEYLIKE_RUN)
        if keylike_lines:
            finders.append((9, partial(_keylike_spans, lines=keylike_lines)))
    return _merge(text, finders) if finders else []


_Finder = Callable[[str], list[_Span]]
ALL_FINDERS: tuple[tuple[int, _Finder], ...] = (
    *((0, _private_key_spans), (1, _token_spans), (2, _password_spans), (3, _credential_spans)),
    *((4, _url_password_spans), (5, _email_spans), (6, _iban_spans), (7, _card_spans)),
    *((8, _phone_spans), (9, _keylike_spans)),
)
"""Every finder with its rank, unscreened: what find_secrets must find (tests compare)."""


def _merge(text: str, finders: Iterable[tuple[int, _Finder]]) -> list[_Span]:
    """Run the finders and merge overlapping finds into one span, of the kind and mask of the one
    that starts first (at the same start, of the lowest rank): nothing any finder found shows."""
    candidates: list[tuple[int, int, int, str, str]] = []
    for rank, finder in finders:
        candidates.extend((start, rank, -end, kind, mask) for start, end, kind, mask in finder(text))
    candidates.sort()
    spans: list[_Span] = []
    for start, _rank, negative_end, kind, mask in candidates:
        end = -negative_end
        if spans and start < spans[-1][1]:
            if end > spans[-1][1]:
                spans[-1] = (spans[-1][0], end, spans[-1][2], spans[-1][3])
            continue
        spans.append((start, end, kind, mask))
    return spans


def mask_secrets(text: str) -> tuple[str, tuple[str, ...]]:
    """Return the text with every secret masked (`sk-…9f3a`) and the sorted kinds found.

    The lines where masks went are searched again (a few times at most): a secret glued to another
    one is found only once that one is masked (`sk-…1234GB82 WEST …`), and masking twice changes
    nothing.
    """
    spans = find_secrets(text)
    if not spans:
        return text, ()
    kinds = {kind for _start, _end, kind, _mask in spans}
    text, masks = _apply(text, spans)
    for _ in range(_MASK_PASSES - 1):
        spans = []
        for start, end in _lines_around(text, masks):
            spans.extend(
                (start + s, start + e, kind, mask)
                for s, e, kind, mask in find_secrets(text[start:end])
                if text[start + s : start + e] != mask  # a mask found again (`password: …`)
            )
        if not spans:
            break
        kinds.update(kind for _start, _end, kind, _mask in spans)
        text, masks = _apply(text, spans)
    return text, tuple(sorted(kinds))


def _apply(text: str, spans: list[_Span]) -> tuple[str, list[int]]:
    """The text with the spans replaced by their masks, and where each mask starts in it."""
    pieces: list[str] = []
    masks: list[int] = []
    position = length = 0
    for start, end, _kind, mask in spans:
        pieces.append(text[position:start])
        length += start - position
        masks.append(length)
        pieces.append(mask)
        length += len(mask)
        position = end
    pieces.append(text[position:])
    return "".join(pieces), masks


def _lines_around(text: str, positions: list[int]) -> _Lines:
    """The lines (start, end) holding the positions, once each, in order."""
    lines: _Lines = []
    for position in positions:
        if lines and position < lines[-1][1]:
            continue
        end = text.find("\n", position)
        lines.append((text.rfind("\n", 0, position) + 1, len(text) if end < 0 else end))
    return lines


SecretValues = dict[str, tuple[str, str]]
"""Secrets as written in a text, each with its kind and mask (secret_values)."""


def secret_values(text: str) -> SecretValues:
    """Every secret found in the text, as written there, with its kind and mask.

    Text taken from it (a title cut from one sentence of a line, a table cell) may have left behind
    the words that showed a string to be a secret (`the deploy token is in the vault. Sam pasted
    Wq9…`); mask_values masks such a string wherever it shows. Values under 6 characters but a PIN's
    4 digits or more are left out: they are too likely to be part of other words.
    """
    values: SecretValues = {}
    for start, end, kind, mask in find_secrets(text):
        value = text[start:end]
        short_pin = kind == "password" and value.isdigit() and len(value) >= 4
        if (len(value) >= 6 or short_pin) and value != mask:
            values.setdefault(value, (kind, mask))
    return values


def mask_values(text: str, values: SecretValues) -> tuple[str, tuple[str, ...]]:
    """mask_secrets, and every one of the values (from secret_values of the text this one was taken
    from) masked wherever it shows, not inside a longer word."""
    kinds: set[str] = set()
    for value in sorted(values, key=len, reverse=True):
        if value in text:
            kind, mask = values[value]
            pattern = rf"(?<![\w]){re.escape(value)}(?![\w])"
            text, count = re.subn(pattern, mask.replace("\\", "\\\\"), text)
            if count:
                kinds.add(kind)
    masked, found = mask_secrets(text)
    return masked, tuple(sorted(kinds.union(found)))

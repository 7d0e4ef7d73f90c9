"""Secrets: every kind is found and masked; dates, versions and plain numbers are left alone."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kgvault import secrets
from kgvault.secrets import mask_secrets, mask_values, secret_values

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


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("POSTGRES_PASSWORD=Xq7!pL2mR9", "Xq7!pL2mR9"),
        ("DB_PASSWORD: s3cr3tValue", "s3cr3tValue"),
        ("Das Passwort ist Kl9#vT2q", "Kl9#vT2q"),
        ("Kennwort: Brezel2024!", "Brezel2024!"),
        ("La contraseña es Sol9!luna", "Sol9!luna"),
        ("The password for the router is Tr0ub4dor&3", "Tr0ub4dor&3"),
        ("the password was Hunter2!x", "Hunter2!x"),
        ("wifi pw: Summ3r!2024", "Summ3r!2024"),
        ("DD_API_KEY=abcdef0123456789abcdef0123456789", "abcdef0123456789abcdef"),
        ("- netflix login anna@example.com pw NetflixPass2024", "NetflixPass2024"),
        ("| Service | User | Password |\n|---|---|---|\n| Netflix | anna | Netfl1xPass |", "Netfl1xPass"),
        ("Card | PIN\n--- | ---\nVisa | 4821", "4821"),
        ("| Service | API key |\n|:--|--|\n| Stripe | abc \\| def |", "abc \\| def"),
    ],
)
def test_passwords_in_variables_other_languages_and_prose_are_masked(text: str, value: str) -> None:
    masked, kinds = mask_secrets(text)
    assert value not in masked and kinds


@pytest.mark.parametrize(
    "text",
    [
        "The password was reset yesterday.",
        "passwords are hard",
        "I typed the pw wrong.",
        "the password field was reset 2 times",
        "| Key | Action |\n|---|---|\n| Ctrl-S | save |",  # a shortcut is no key
        "| Password | Rules |\n|---|---|",  # a header with no row under it
        "| Pin | Function |\n|---|---|\n| 2024 | spare |",  # a board's pins
        "| Secret | Location |\n|---|---|\n| Trapdoor | hall |",  # a game's secret doors
        "Reset the password 2fa-enabled account for Tom.",
    ],
)
def test_prose_about_a_password_keeps_its_words(text: str) -> None:
    assert mask_secrets(text) == (text, ())


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
        ("07700 900123", "…0123"),  # a British mobile as written at home
        ("0176 12345678", "…5678"),  # a German one
        ("07700900123", "…0123"),  # a British mobile written unspaced, as chats and contacts do
    ],
)
def test_phone_numbers_keep_country_code_and_last_four_digits(phone: str, mask: str) -> None:
    assert mask_secrets(f"call {phone} now") == (f"call {mask} now", ("phone",))


def test_a_number_named_as_a_ticket_or_order_is_no_phone_number() -> None:
    for text in ("Ticket 0815 123456 is closed.", "Tracking no. 0034 12345678 arrived."):
        assert mask_secrets(text) == (text, ())


@pytest.mark.parametrize(
    "text",
    [
        "On 2025-03-12 we updated to Marlin 2.1.3 (v2.1.3).",
        "2.3 million rows in 41 minutes, 350 mm bed, 1234567890 rows total.",
        "Order 07700900123 shipped; part 0123456789 and build 20250312001 passed.",
        "ISBN 0747532699, https://www.amazon.co.uk/dp/07475326991, UPC 016000275287.",
        "Part number 07712345678 fits.",
        "Patient ID 07712345678 and ?id=07712345678 are no phones.",
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


# -- IBANs, card numbers, URL credentials and key-like strings ---------------------------------


@pytest.mark.parametrize(
    ("iban", "mask"),
    [
        ("DE89 3704 0044 0532 0130 00", "DE…3000"),
        ("DE89370400440532013000", "DE…3000"),
        ("GB82 WEST 1234 5698 7654 32", "GB…5432"),
        ("NL91 ABNA 0417 1643 00", "NL…4300"),
        ("FR76 3000 6000 0112 3456 7890 189", "FR…0189"),
    ],
)
def test_ibans_keep_country_code_and_last_four(iban: str, mask: str) -> None:
    assert mask_secrets(f"refund to {iban}, thanks") == (f"refund to {mask}, thanks", ("iban",))


def test_an_iban_followed_by_a_number_is_still_found() -> None:
    assert mask_secrets("IBAN DE89 3704 0044 0532 0130 00 2025") == ("IBAN DE…3000 2025", ("iban",))


@pytest.mark.parametrize(
    ("card", "mask"),
    [
        ("4111 1111 1111 1111", "…1111"),
        ("4111-1111-1111-1111", "…1111"),
        ("4539148803436467", "…6467"),
        ("5555555555554444", "…4444"),
        ("2221 0000 0000 0009", "…0009"),
        ("3782 822463 10005", "…0005"),
        ("6011 0000 0000 0004", "…0004"),
    ],
)
def test_card_numbers_keep_the_last_four_digits(card: str, mask: str) -> None:
    assert mask_secrets(f"paid with {card} yesterday") == (f"paid with {mask} yesterday", ("card",))


def test_a_card_number_followed_by_a_year_is_still_found() -> None:
    assert mask_secrets("card 4111 1111 1111 1111 2025") == ("card …1111 2025", ("card",))


def test_url_credentials_lose_the_password_only() -> None:
    text = "db at postgres://atlas_admin:Sup3r-S3cret!@db.example.com:5432/atlas today"
    masked = "db at postgres://atlas_admin:…@db.example.com:5432/atlas today"
    assert mask_secrets(text) == (masked, ("url_password",))
    # An `@` in the password: the last one before the host ends it.
    masked = "https://dana:…@host.example.org/x"
    assert mask_secrets("https://dana:p@ss@host.example.org/x") == (masked, ("url_password",))


RANDOM_24 = "Q7vXk2LmP9rTz4WbN8cHs3Jd"
RANDOM_32 = "Pk3Lz9Qw7Xc2Vb5Nm8As4Df1Gh6Jk0Tr"


@pytest.mark.parametrize(
    "text",
    [
        f"the deploy token is {RANDOM_24} since May",
        f"{RANDOM_24} is the API key for staging",
        f"export GITHUB_TOKEN={RANDOM_24}",
        f"const apiKey = '{RANDOM_24}'",
        f"https://api.example.com/v1?token={RANDOM_24}&page=2",
        f"my secret: {RANDOM_24}",
        f"moved the blob {RANDOM_32} to the NAS",
        "Authorization: Basic dXNlcm5hbWU6Y29ycmVjdC1ob3JzZS1iYXR0ZXJ5LXN0YXBsZQ==",
    ],
)
def test_key_like_strings_near_a_key_word_or_very_random_are_masked(text: str) -> None:
    masked, kinds = mask_secrets(text)
    assert kinds in (("token",), ("credential",))
    for value in (RANDOM_24, RANDOM_32, "dXNlcm5hbWU6Y29ycmVjdC1ob3J"):
        assert value not in masked
    assert "…" in masked


@pytest.mark.parametrize(
    "text",
    [
        "IBAN DE89 3704 0044 0532 0130 01 has a wrong check digit.",  # invalid checksum
        "GB82 WEST 1234 5698 7654 33 is mistyped.",
        "paid with 4111 1111 1111 1112 (not Luhn)",
        "order 1234567812345670 shipped",  # Luhn-valid but no card scheme starts with 1
        "ISBN 978-0-306-40615-7, or 9780306406157 without dashes.",
        "From 2025-03-12 to 2025-04-12 at 10:30, then 20250312 1030.",
        "Call +44 20 7946 0958 or 415-555-0199.",  # phones, not cards (masked as phones below)
        "Commit 3f2a9c1b7e4d5f60718293a4b5c6d7e8f9012345 fixed the token refresh.",
        "Request 550e8400-e29b-41d4-a716-446655440000 used the API key from the vault.",
        "SGVsbG8sIFdvcmxkISBUaGlzIGlzIGEgdGVzdCBvZiBiYXNlNjQgZW5jb2Rpbmc= decodes to a greeting.",
        "Edit src/Components/UserProfile2Card.tsx and /Users/DanaKim/Documents/Projects2025/Atlas today.",
        "See https://github.com/Klipper3d/klipper/blob/master/docs/Config_Reference.md#stepper for the key.",
        "https://docs.google.com/document/d/1aBcD3fGhIjKlMnOpQrStUvWxYz0123456789/edit is the draft.",
        "Donaudampfschifffahrtsgesellschaftskapitaenswitwe2025 is a long word.",
        "The InternationalizationReleaseNotes2025Draft page explains the API key rotation.",
        "Pull TheBloke/Qwen3-Coder-30B-A3B-Instruct-GGUF with the API token.",
        f"alone {RANDOM_24} is too short to be sure without a hint nearby",
    ],
)
def test_new_kinds_have_no_false_positives(text: str) -> None:
    masked, kinds = mask_secrets(text)
    assert set(kinds) <= {"phone"}
    if not kinds:
        assert masked == text


def test_an_invalid_iban_is_not_taken_for_a_phone_number() -> None:
    text = "DE89 3704 0044 0532 0130 01"
    assert mask_secrets(text) == (text, ())


@settings(max_examples=200, database=None, deadline=None, derandomize=True)
@given(
    st.tuples(
        st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZ", max_size=4),
        st.text(alphabet="0123456789", min_size=11, max_size=26),
    ).map("".join)
)
def test_every_iban_with_right_check_digits_is_masked_and_a_changed_digit_unmasks_it(bban: str) -> None:
    """A bank code of letters (or none), then the account's digits, as IBANs are."""
    check = 98 - int("".join(str(int(c, 36)) for c in f"{bban}DE00")) % 97  # 2 to 98
    iban = f"DE{check:02d}{bban}"
    assert mask_secrets(f"to {iban}.") == (f"to DE…{iban[-4:]}.", ("iban",))
    wrong = f"DE{(check - 1) % 97 + 2:02d}{bban}"
    assert "iban" not in mask_secrets(f"to {wrong}.")[1]


@settings(max_examples=200, database=None, deadline=None, derandomize=True)
@given(st.text(alphabet="0123456789", min_size=14, max_size=14))
def test_luhn_catches_every_single_digit_change(body: str) -> None:
    number = f"4{body}"
    number += next(d for d in "0123456789" if secrets.luhn_valid(number + d))
    assert mask_secrets(f"card {number}.") == (f"card …{number[-4:]}.", ("card",))
    changed = number[:7] + str((int(number[7]) + 1) % 10) + number[8:]
    assert mask_secrets(f"card {changed}.")[1] == ()


def test_masking_every_new_kind_is_idempotent() -> None:
    text = (
        f"token {RANDOM_24}; IBAN DE89 3704 0044 0532 0130 00; card 4111 1111 1111 1111; "
        "https://dana:pw123456@db.example.com; blob " + RANDOM_32
    )
    once, kinds = mask_secrets(text)
    assert kinds == ("card", "iban", "token", "url_password")
    assert mask_secrets(once)[0] == once


NEW_PIECES = [
    *("DE89 3704 0044 0532 0130 00", "DE89370400440532013000", "GB82 WEST 1234 5698 7654 32"),
    *("4111 1111 1111 1111", "4111-1111-1111-1111", "4539148803436467", "3782 822463 10005", "2025"),
    *("https://", "dana:", "pw@", "db.example.com", "?token=", "=", "==", "/", "_", "é", "\n", " "),
    *(RANDOM_24, RANDOM_32, "token ", "API key: ", "apiKey=", "Sup3r", "0000", "1111", "AB12", "-"),
    *("3f2a9c1b7e4d5f60718293a4b5c6d7e8f9012345", "550e8400-e29b-41d4-a716-446655440000"),
]


@settings(max_examples=500, database=None, deadline=None, derandomize=True)
@given(st.lists(st.sampled_from(PIECES + NEW_PIECES), max_size=12).map("".join))
def test_the_screens_hide_nothing(text: str) -> None:
    """find_secrets runs a finder only where its cheap screen says a find may be: the same finds as
    every finder run over all the text."""
    assert secrets.find_secrets(text) == secrets._merge(text, secrets.ALL_FINDERS)


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("the apiKey is Hx7Kp2Wq9Zr4Tm6Vn1Bc8Ld3Fs.", "token"),
        ("Hx7Kp2Wq9Zr4Tm6Vn1Bc8Ld3Fs, that is the token", "token"),
        ("le jeton est Hx7Kp2Wq9Zr4Tm6Vn1Bc8Ld3Fs.", "token"),
    ],
)
def test_key_words_count_in_camel_case_and_other_languages_and_after_the_value(text: str, kind: str) -> None:
    assert mask_secrets(text)[1] == (kind,)


@pytest.mark.parametrize(
    "text",
    [
        f"Deploy token:\n{RANDOM_24}",
        f"- API key:\n  - {RANDOM_24}",
        f"API key:\n\n```\n{RANDOM_24}\n```",
    ],
)
def test_a_line_ending_with_a_key_word_and_a_colon_names_the_value_opening_the_next(text: str) -> None:
    masked, kinds = mask_secrets(text)
    assert RANDOM_24 not in masked and kinds == ("token",)


@pytest.mark.parametrize(
    "text",
    [
        f"The token is below\n{RANDOM_24}",  # no colon
        f"Notes:\n{RANDOM_24}",  # no key word
        f"API key:\nSam pasted {RANDOM_24}",  # the value does not open its line
        f"token: x\nother line\nthird line\n{RANDOM_24}",  # too far
    ],
)
def test_a_key_word_on_another_line_does_not_count_otherwise(text: str) -> None:
    assert mask_secrets(text) == (text, ())


def test_secret_values_mask_text_taken_from_where_they_were_found() -> None:
    line = f"The Heron deploy token is in the vault. Sam pasted {RANDOM_24} in the channel."
    values = secret_values(line)
    assert values == {RANDOM_24: ("token", "Q7v…s3Jd")}
    sentence = f"Sam pasted {RANDOM_24} in the channel."
    assert mask_secrets(sentence) == (sentence, ())  # the key word stayed in the other sentence
    assert mask_values(sentence, values) == ("Sam pasted Q7v…s3Jd in the channel.", ("token",))
    glued = f"x{RANDOM_24}y and {RANDOM_24}"  # not inside a longer word
    assert mask_values(glued, values) == (f"x{RANDOM_24}y and Q7v…s3Jd", ("token",))
    # Short values (a password) are not masked by value, only where found again.
    assert secret_values("password: abc12") == {}


def test_overlapping_finds_are_masked_as_one_and_nothing_of_either_shows() -> None:
    # The key's shape ends inside the e-mail address: both are masked, as the key.
    masked, kinds = mask_secrets(f"{OPENAI}dana.kim@example.com")
    assert (masked, kinds) == ("sk-…dana", ("openai_key",))


def test_a_secret_glued_to_another_is_found_once_that_one_is_masked() -> None:
    masked, kinds = mask_secrets(f"{OPENAI}GB82 WEST 1234 5698 7654 32")
    assert "5698" not in masked and kinds == ("iban", "openai_key")


@settings(max_examples=300, database=None, deadline=None, derandomize=True)
@given(st.lists(st.sampled_from(PIECES + NEW_PIECES), max_size=12).map("".join))
def test_masking_twice_changes_nothing(text: str) -> None:
    once, _ = mask_secrets(text)
    assert mask_secrets(once)[0] == once


def test_a_short_pin_in_a_secret_column_is_masked_wherever_the_chunk_shows_it() -> None:
    values = secret_values("| Card | PIN |\n|---|---|\n| Visa | 4821 |")
    assert mask_values("Visa; 4821", values)[0] == "Visa; …"


def test_a_urls_password_is_masked_and_its_host_kept() -> None:
    assert mask_secrets("logged in at https://bob:pw1234@host.example.com today") == (
        "logged in at https://bob:…@host.example.com today",
        ("url_password",),
    )
    # An address is still an address elsewhere in a URL, or after mailto:.
    assert (
        mask_secrets("https://example.com/a?u=dana@example.com")[0]
        == "https://example.com/a?u=d…@example.com"
    )
    assert mask_secrets("mailto:dana@example.com")[0] == "mailto:d…@example.com"

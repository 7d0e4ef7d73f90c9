"""Ids and file names (DESIGN §3 "Ids and file names", "Small print"; OBSIDIAN.md rules 9-10)."""

from __future__ import annotations

import hashlib
import os
import random
import re
import subprocess
import sys
import unicodedata
from datetime import date

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kgvault.names
from kgvault.names import (
    UniqueIds,
    assign_unique,
    node_slug,
    normalize_name,
    note_aliases,
    short_hash,
    slugify,
    summary_slug,
)

FORBIDDEN = set('/\\:*?"<>|#^[]%')
WINDOWS_RESERVED = {
    "con",
    "prn",
    "aux",
    "nul",
    *(f"com{i}" for i in range(1, 10)),
    *(f"lpt{i}" for i in range(1, 10)),
}
UNTITLED = re.compile(r"^untitled-[0-9a-f]{8}$")


def assert_safe_name(slug: str) -> None:
    """Every rule a file or folder name must satisfy (OBSIDIAN.md rule 9, DESIGN §3)."""
    assert slug, "empty name"
    assert not FORBIDDEN & set(slug), f"forbidden character in {slug!r}"
    assert not any(unicodedata.category(ch) in {"Cc", "Cf", "Cs", "Zl", "Zp"} for ch in slug), repr(slug)
    assert not any(ch.isspace() for ch in slug), f"whitespace in {slug!r}"
    assert not slug.endswith((".", " ")), repr(slug)
    assert not slug.startswith("-") and not slug.endswith("-"), repr(slug)
    assert "--" not in slug, repr(slug)
    assert unicodedata.normalize("NFC", slug) == slug, f"not NFC: {slug!r}"
    assert unicodedata.normalize("NFC", slug.casefold()) == slug, f"not casefolded: {slug!r}"
    assert len(slug.encode("utf-8")) <= 200, f"{len(slug.encode('utf-8'))} bytes"
    # The page is written as `<slug>.md`: Windows looks at the part before the first dot.
    for name in (slug, f"{slug}.md"):
        assert name.split(".")[0] not in WINDOWS_RESERVED, repr(name)


# --- slugify -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Marlin Firmware", "marlin-firmware"),
        ("  Hello,   World!  ", "hello-world"),
        ("snake_case_name", "snake-case-name"),
        ("Ender 3 V2", "ender-3-v2"),
        ("Şükrü lives in İzmir", "şükrü-lives-in-izmir"),  # no stray dot where "İ" folds to "i̇"
    ],
)
def test_slugify_is_kebab_case(text: str, expected: str) -> None:
    assert slugify(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "../../etc/passwd",
        "../",
        "a/b/c",
        "a\\b",
        "C:\\Windows\\system32",
        "time: 12:30",
        "bad\x00name",
        "tab\tnew\nline\rcarriage\x1b[31mred\x7f",
        "#tag and #another",
        "a|b",
        "block ^ref",
        "[[wikilink]]",
        "[brackets]",
        "100% done",
        'quote " star * question ? less < greater >',
        "zero\u200bwidth\u200djoiner\ufeffbom",
        "line\u2028separator\u2029paragraph",
        "ends with dots...",
        "ends with space   ",
        "...leading dots",
        "-- dashes --",
    ],
)
def test_slugify_hostile_names_are_safe(text: str) -> None:
    slug = slugify(text)
    assert_safe_name(slug)
    assert ".." not in slug
    assert "/" not in slug


def test_slugify_path_traversal_keeps_only_words() -> None:
    assert slugify("../../etc/passwd") == "etc-passwd"
    assert slugify("a/b") == "a-b"


def test_slugify_control_characters_are_dropped_not_kept() -> None:
    slug = slugify("bad\x00na\x01me\x1f")
    assert slug.replace("-", "") == "badname"


@pytest.mark.parametrize("text", ["../", "/", ":", "#|^[]%", "\x00\x01\x02", "...", "   ", "", "-_-"])
def test_slugify_nothing_left_gives_untitled_hash(text: str) -> None:
    assert UNTITLED.match(slugify(text))


def test_slugify_untitled_hash_depends_on_the_text() -> None:
    assert slugify("😀") != slugify("🎉")
    assert slugify("😀") == "untitled-" + hashlib.sha256("😀".encode()).hexdigest()[:8]


@pytest.mark.parametrize("text", ["😀", "😀🎉🚀", "👨‍👩‍👧", "🇫🇷", "★☆✓"])
def test_slugify_emoji_only_gives_untitled(text: str) -> None:
    slug = slugify(text)
    assert UNTITLED.match(slug), slug
    assert slug == f"untitled-{short_hash(text)}"


def test_slugify_emoji_inside_words_is_dropped() -> None:
    assert slugify("Party 🎉 time") == "party-time"


@pytest.mark.parametrize(
    ("text", "expected"),
    [("I bought a sofa 🛋️", "i-bought-a-sofa"), ("Love ❤️ it", "love-it"), ("Key 1️⃣", "key-1")],
)
def test_slugify_drops_the_selectors_and_keycaps_that_dress_an_emoji(text: str, expected: str) -> None:
    assert slugify(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("東京タワー", "東京タワー"),
        ("日本語 の ノート", "日本語-の-ノート"),
        ("北京", "北京"),
        ("한국어 메모", "한국어-메모"),
        ("Привет Мир", "привет-мир"),
        ("Ελληνικά", "ελληνικά"),
        ("Zürich Café", "zürich-café"),
        ("Tiếng Việt", "tiếng-việt"),
    ],
)
def test_slugify_keeps_non_latin_scripts(text: str, expected: str) -> None:
    assert slugify(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Devanagari: vowel signs and virama are combining marks (Mn/Mc); they are part of the word.
        ("हिन्दी", "हिन्दी"),
        ("नमस्ते", "नमस्ते"),
        # Thai: the vowel sign U+0E31 is a combining mark.
        ("ภาษาอังกฤษ", "ภาษาอังกฤษ"),
        # Hebrew with points, Arabic with harakat.
        ("עִבְרִית", "עִבְרִית"),
        ("العَرَبِيَّة", "العَرَبِيَّة"),
    ],
)
def test_slugify_keeps_scripts_written_with_combining_marks(text: str, expected: str) -> None:
    # DESIGN §3: "non-Latin scripts kept as they are, never transliterated".
    assert slugify(text) == unicodedata.normalize("NFC", expected)


def test_slugify_nfc_normalizes_decomposed_input() -> None:
    decomposed = unicodedata.normalize("NFD", "Café Zoë Ångström")
    assert decomposed != unicodedata.normalize("NFC", decomposed)
    slug = slugify(decomposed)
    assert slug == "café-zoë-ångström"
    assert unicodedata.is_normalized("NFC", slug)
    assert slug == slugify(unicodedata.normalize("NFC", decomposed))


def test_slugify_nfc_for_hangul_and_kana() -> None:
    for word in ("한국어", "ガギグ"):
        assert slugify(unicodedata.normalize("NFD", word)) == word


@pytest.mark.parametrize(
    ("text", "expected"),
    [("MARLIN", "marlin"), ("Marlin", "marlin"), ("Straße", "strasse"), ("ΣΊΣΥΦΟΣ", "σίσυφοσ")],
)
def test_slugify_casefolds(text: str, expected: str) -> None:
    assert slugify(text) == expected


def test_slugify_case_variants_give_the_same_id() -> None:
    assert slugify("Prusa MK4") == slugify("PRUSA mk4") == slugify("prusa Mk4")


@pytest.mark.parametrize("text", ["name.", "name..", "name ", "name. . .", "name\t", "name\u3000"])
def test_slugify_no_trailing_dot_or_space(text: str) -> None:
    assert slugify(text) == "name"


@pytest.mark.parametrize(
    "text",
    [
        "CON", "con", "Con", "PRN", "aux", "NUL", "nul", "com1", "COM1", "com9", "lpt1", "LPT9", "lpt9",
        "CON.txt", "nul.md", "com1.tar.gz", "lpt9.", "con ", " aux ", "NUL:", "prn.",
    ],
)  # fmt: skip
def test_slugify_windows_reserved_names_are_avoided(text: str) -> None:
    slug = slugify(text)
    assert_safe_name(slug)
    # The word itself is kept (not replaced by `untitled-…`), only made safe.
    assert slug.startswith(text.strip(" .:").split(".")[0].casefold())


def test_slugify_reserved_name_is_disambiguated_deterministically() -> None:
    assert slugify("CON") == "con-" + hashlib.sha256(b"CON").hexdigest()[:4]
    assert slugify("con") not in WINDOWS_RESERVED
    assert slugify("con").startswith("con-")


@pytest.mark.parametrize("text", ["console", "content", "com10", "lpt", "auxiliary", "null", "nuls"])
def test_slugify_names_that_only_start_like_reserved_ones_are_kept(text: str) -> None:
    assert slugify(text) == text


@pytest.mark.parametrize(
    "text",
    [
        "a" * 300,
        "é" * 300,
        "日本語" * 100,
        "😀a" * 100,
        " ".join(["word"] * 100),
        "ab" + "ü" * 299,
        "x" + "\U00010348" * 100,
    ],
)
def test_slugify_long_names_fit_in_200_bytes_without_split_characters(text: str) -> None:
    slug = slugify(text)
    assert_safe_name(slug)
    size = len(slug.encode("utf-8"))
    assert 100 <= size <= 200, size
    # A prefix of the full slug made of whole characters: the cut happened at a character boundary.
    full = unicodedata.normalize("NFC", text.casefold())
    full = re.sub(r"[\W_]+", "-", full).strip("-")
    assert full.startswith(slug)


def test_slugify_long_names_differing_only_at_the_end() -> None:
    # Both are cut to the same prefix; the contract then relies on assign_unique to tell them apart.
    a, b = slugify("x" * 300 + "a"), slugify("x" * 300 + "b")
    ids = assign_unique({"a": a, "b": b})
    assert ids["a"].casefold() != ids["b"].casefold()
    assert all(len(v.encode("utf-8")) <= 200 for v in ids.values())


def test_slugify_does_not_depend_on_the_hash_seed() -> None:
    code = "from kgvault.names import slugify; print(slugify('Some Title: with stuff 😀 CON'))"
    outputs = {
        subprocess.run(
            [sys.executable, "-c", code],
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in ("0", "1", "12345")
    }
    assert outputs == {slugify("Some Title: with stuff 😀 CON") + "\n"}


@settings(max_examples=400, database=None, deadline=None, derandomize=True)
@given(st.text())
def test_slugify_any_text_gives_a_safe_name(text: str) -> None:
    assert_safe_name(slugify(text))


@settings(max_examples=200, database=None, deadline=None, derandomize=True)
@given(st.text(min_size=1))
def test_slugify_nfd_and_nfc_spellings_give_the_same_id(text: str) -> None:
    nfc = slugify(unicodedata.normalize("NFC", text))
    if not nfc.startswith("untitled-"):  # an untitled id hashes the raw text
        assert slugify(unicodedata.normalize("NFD", text)) == nfc


# --- node_slug -------------------------------------------------------------------------------------


def test_node_slug_short_title_is_plain_slug() -> None:
    assert node_slug("Switched the printer to Marlin 2.1") == "switched-the-printer-to-marlin-2-1"


def test_node_slug_cuts_at_a_word_boundary() -> None:
    title = "The quick brown fox jumps over the lazy dog while the printer keeps printing the benchy boat"
    full = slugify(title)
    assert len(full) > 80
    slug = node_slug(title)
    assert len(slug) <= 80
    assert full.startswith(slug)
    assert full[len(slug)] == "-", f"cut inside a word: {slug!r}"
    assert not slug.endswith("-")
    assert len(slug) > 60  # cut at the last boundary, not somewhere early


def test_node_slug_keeps_a_last_word_that_ends_exactly_at_80() -> None:
    # Nine 8-letter words take exactly 8 * 9 + 8 = 80 characters; the tenth starts after a hyphen.
    words = [f"{chr(ord('a') + i)}" * 8 for i in range(12)]
    title = " ".join(words)
    slug = node_slug(title)
    assert slug == "-".join(words[:9])
    assert len(slug) == 80


def test_node_slug_single_long_word_is_cut_to_80() -> None:
    slug = node_slug("a" * 200)
    assert slug == "a" * 80


def test_node_slug_many_words_always_at_boundary() -> None:
    rng = random.Random(7)
    for _ in range(200):
        words = ["".join(rng.choice("abcdefghij") for _ in range(rng.randint(1, 12))) for _ in range(30)]
        title = " ".join(words)
        full = slugify(title)
        slug = node_slug(title)
        assert len(slug) <= 80
        assert full.startswith(slug)
        if len(full) > 80:
            assert full[len(slug)] == "-"


def test_node_slug_cjk_title_stays_within_200_bytes() -> None:
    slug = node_slug("日本語のタイトル" * 30)
    assert len(slug) <= 80
    assert len(slug.encode("utf-8")) <= 200
    assert_safe_name(slug)


def test_node_slug_emoji_title_is_untitled() -> None:
    assert UNTITLED.match(node_slug("🎉🎉🎉"))


# --- summary_slug --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("printing/journal.md", "printing-journal-summary"),
        ("journal.md", "journal-summary"),
        ("daily/2025-01-14.md", "daily-2025-01-14-summary"),
        ("inbox/Meeting Notes.txt", "inbox-meeting-notes-summary"),
        ("a/b/c/deep note.md", "a-b-c-deep-note-summary"),
        ("notes/README", "notes-readme-summary"),
        ("v1.2/notes.md", "v1-2-notes-summary"),
        ("exports/chat.json", "exports-chat-summary"),
        ("Work/Café.md", "work-café-summary"),
    ],
)
def test_summary_slug(path: str, expected: str) -> None:
    assert summary_slug(path) == expected


def test_summary_slug_of_long_path_fits() -> None:
    slug = summary_slug("/".join(["folder" * 10] * 10) + "/note.md")
    assert slug.endswith("-summary")
    assert_safe_name(slug)


def test_summary_slug_of_emoji_name() -> None:
    slug = summary_slug("🎉.md")
    assert re.match(r"^untitled-[0-9a-f]{8}-summary$", slug)


def test_summary_slug_never_reserved() -> None:
    for path in ("con.md", "nul.txt", "x/../y.md"):
        assert_safe_name(summary_slug(path))


# --- assign_unique ---------------------------------------------------------------------------------


def test_assign_unique_without_collisions_keeps_every_id() -> None:
    wanted = {"k1": "marlin", "k2": "prusa", "k3": "klipper"}
    assert assign_unique(wanted) == wanted


def test_assign_unique_is_unique_after_casefold() -> None:
    wanted = {"k1": "Marlin", "k2": "marlin", "k3": "MARLIN", "k4": "marlin", "k5": "Straße", "k6": "strasse"}
    ids = assign_unique(wanted)
    assert set(ids) == set(wanted)
    folded = [v.casefold() for v in ids.values()]
    assert len(folded) == len(set(folded))


def test_assign_unique_first_in_sorted_order_keeps_the_plain_id() -> None:
    ids = assign_unique({"zeta": "marlin", "alpha": "marlin", "mid": "marlin"})
    assert ids["alpha"] == "marlin"
    for key in ("mid", "zeta"):
        assert re.fullmatch(r"marlin-[0-9a-f]{6,}", ids[key]), ids[key]


def test_assign_unique_sort_is_by_id_then_rank_then_key() -> None:
    # The same wanted id: rank decides before the key does.
    ids = assign_unique({"a": "x", "b": "x", "c": "x"}, rank={"a": 2, "b": 1, "c": 1})
    assert ids["b"] == "x"
    assert ids["a"] != "x" and ids["c"] != "x"


def test_assign_unique_rank_makes_entities_win() -> None:
    # Node key "a-node" sorts before "z-entity", but entities have a lower rank.
    wanted = {"a-node": "marlin", "z-entity": "Marlin"}
    ids = assign_unique(wanted, rank={"a-node": 3, "z-entity": 0})
    assert ids["z-entity"] == "Marlin"
    assert ids["a-node"].startswith("marlin-")


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 42, 1234, 99999])
def test_assign_unique_is_independent_of_input_order(seed: int) -> None:
    items = [
        (f"key{i}", name) for i, name in enumerate(["marlin", "Marlin", "prusa", "MARLIN", "klipper"] * 6)
    ]
    rank = {key: i % 4 for i, (key, _) in enumerate(items)}
    expected = assign_unique(dict(items), rank=rank, taken=["index", "ontology", "Prusa"])
    rng = random.Random(seed)
    shuffled = items[:]
    rng.shuffle(shuffled)
    rank_shuffled = dict(sorted(rank.items(), key=lambda _: rng.random()))
    taken = ["ontology", "Prusa", "index"]
    rng.shuffle(taken)
    assert assign_unique(dict(shuffled), rank=rank_shuffled, taken=taken) == expected


def test_assign_unique_respects_taken_names_case_insensitively() -> None:
    ids = assign_unique({"a": "index", "b": "Ontology", "c": "notes"}, taken=["index", "ontology", "NOTES"])
    assert ids["a"].casefold() != "index"
    assert ids["b"].casefold() != "ontology"
    assert ids["c"].casefold() != "notes"
    assert ids["a"].startswith("index-")


def test_assign_unique_suffix_cannot_collide_with_another_wanted_id() -> None:
    clash = f"x-{short_hash('b', 6)}"
    ids = assign_unique({"a": "x", "b": "x", "c": clash})
    folded = [v.casefold() for v in ids.values()]
    assert len(set(folded)) == 3


def test_assign_unique_adding_an_unrelated_id_changes_nothing() -> None:
    before = assign_unique({"a": "marlin", "b": "marlin", "c": "prusa"})
    after = assign_unique({"a": "marlin", "b": "marlin", "c": "prusa", "d": "klipper"})
    assert {k: after[k] for k in before} == before


def test_assign_unique_a_later_homonym_does_not_steal_the_plain_id() -> None:
    before = assign_unique({"a": "marlin"})
    after = assign_unique({"a": "marlin", "b": "Marlin"})
    assert after["a"] == before["a"] == "marlin"


def test_assign_unique_long_ids_stay_within_200_bytes() -> None:
    long_id = "é" * 100  # 200 bytes
    ids = assign_unique({"a": long_id, "b": long_id, "c": long_id})
    assert ids["a"] == long_id
    for value in ids.values():
        assert len(value.encode("utf-8")) <= 200
    assert len({v.casefold() for v in ids.values()}) == 3


def test_assign_unique_many_homonyms() -> None:
    wanted = {f"k{i}": "same" for i in range(300)}
    ids = assign_unique(wanted)
    assert len({v.casefold() for v in ids.values()}) == 300
    assert sum(v == "same" for v in ids.values()) == 1


# --- normalize_name --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("Marlin", "marlin"),
        ("  Marlin   Firmware!  ", "marlin firmware"),
        ("Prusa-MK4", "prusa mk4"),
        ("prusa_mk4", "prusa mk4"),
        ("Straße", "strasse"),
        ("東京 タワー", "東京 タワー"),
        ("", ""),
        ("!!!", ""),
    ],
)
def test_normalize_name(name: str, expected: str) -> None:
    assert normalize_name(name) == expected


def test_normalize_name_nfc_and_case_variants_match() -> None:
    nfd = unicodedata.normalize("NFD", "Café Zoë")
    assert normalize_name(nfd) == normalize_name("CAFÉ ZOË") == "café zoë"


# --- UniqueIds: the same ids, redone only where keys changed ---------------------------------------


def _wish_pool(keys: list[str]) -> list[str]:
    """Ids that collide in every way: case variants, and other keys' hash-suffixed forms."""
    return [
        "marlin",
        "Marlin",
        "MARLIN",
        "prusa",
        "klipper",
        "index",
        *(f"marlin-{short_hash(key, 6)}" for key in keys[:4]),
        *(f"prusa-{short_hash(key, 6)}" for key in keys[:2]),
    ]


@pytest.mark.parametrize("seed", range(12))
def test_unique_ids_again_gives_what_assign_unique_gives(seed: int) -> None:
    rng = random.Random(seed)
    keys = [f"key{i}" for i in range(30)]
    pool = _wish_pool(keys)
    taken = ["index", "ontology"]
    wanted = {key: rng.choice(pool[:5]) for key in rng.sample(keys, 12)}
    rank = {key: rng.randrange(3) for key in wanted}
    unique = UniqueIds(wanted, taken=taken, rank=rank)
    assert unique.ids == assign_unique(wanted, taken=taken, rank=rank)
    for _ in range(40):
        wanted, rank = dict(wanted), dict(rank)
        for _ in range(rng.randrange(1, 4)):
            move = rng.random()
            key = rng.choice(keys)
            if move < 0.45:
                wanted[key], rank[key] = rng.choice(pool), rng.randrange(3)
            elif move < 0.7 and key in wanted:
                del wanted[key], rank[key]
            elif move < 0.9 and key in wanted:
                rank[key] = rng.randrange(3)
            elif move >= 0.97:
                taken = rng.choice([["index", "ontology"], ["index", "ontology", "Prusa"]])
        before = dict(unique.ids)
        again = unique.again(wanted, taken=taken, rank=rank)
        assert again.ids == assign_unique(wanted, taken=taken, rank=rank)
        assert unique.ids == before  # the last pass's ids stay as they were
        unique = again


def test_unique_ids_again_redoes_only_the_families_that_changed(monkeypatch: pytest.MonkeyPatch) -> None:
    wanted = {f"n{i}": f"note-{i % 50}" for i in range(200)}
    unique = UniqueIds(wanted, taken=["index"])
    redone: list[str] = []
    assign = kgvault.names._assign_in_order

    def recording(order, *args):  # type: ignore[no-untyped-def]
        order = list(order)
        redone.extend(key for _, _, key in order)
        return assign(order, *args)

    monkeypatch.setattr(kgvault.names, "_assign_in_order", recording)
    changed = {**wanted, "n7": "note-3", "new": "fresh"}  # n7 leaves note-7 for note-3
    again = unique.again(changed, taken=["index"])
    family = {key for key, wish in changed.items() if wish in ("note-3", "note-7", "fresh")}
    assert sorted(redone) == sorted(family)
    assert again.ids == assign_unique(changed, taken=["index"])


def test_unique_ids_a_collision_beyond_a_family_redoes_every_id() -> None:
    # "x" homonyms: key b's suffixed id is what key c wants, so the order of all ids decides.
    clash = f"x-{short_hash('b', 6)}"
    unique = UniqueIds({"a": "x", "c": clash})
    assert unique.by_family
    again = unique.again({"a": "x", "b": "x", "c": clash})
    assert again.ids == assign_unique({"a": "x", "b": "x", "c": clash})
    assert not again.by_family
    assert again.ids["c"] != clash  # b came first in sorted order and holds it


def test_note_aliases_reads_what_yaml_made_of_them() -> None:
    meta = {"aliases": ["[[Other|Alias]]", "[[notes/Thing#Part]]", date(2024, 1, 1), True, 3, None, {"a": 1}]}
    # Not "[Other|Alias]" or "True": a link is its display text, a boolean's spelling is lost to YAML.
    assert note_aliases(meta) == ("Alias", "Thing", "2024-01-01", "3")
    assert note_aliases({"alias": "  Solo   name "}) == ("Solo name",)
    assert note_aliases({"aliases": None}) == note_aliases({}) == ()


def test_invisible_format_characters_join_the_word_they_stand_in() -> None:
    # A zero-width space or a soft hyphen pasted into a name is not a word break a reader sees.
    assert normalize_name("Zero\u200bWidth") == normalize_name("ZeroWidth") == "zerowidth"
    assert normalize_name("co\u00adoperate") == "cooperate"
    assert slugify("Zero\u200bWidth") == "zerowidth"

"""Whom the writer met, ate with or talked to, named without a link, is an entity of the statement."""

from __future__ import annotations

from pathlib import Path

import frontmatter
import pytest

from kgvault.build import BuildMemory, build
from kgvault.config import load_settings
from kgvault.extract.draft import DraftEntity
from kgvault.extract.people import people_met
from kgvault.names import slugify
from tests.conftest import notes_with, run_build, tree_bytes
from tests.test_extract_offline import extract, only_node


@pytest.mark.parametrize(
    ("text", "met"),
    [
        ("Met Rui for coffee.", [("Rui", "likely_person")]),
        ("Had lunch with Kenji and Aisha.", [("Kenji", "likely_person"), ("Aisha", "likely_person")]),
        (
            "Dinner with Lena, Jo and Priya.",
            [("Lena", "likely_person"), ("Jo", "likely_person"), ("Priya", "likely_person")],
        ),
        ("Caught up with Tom Baker.", [("Tom Baker", "likely_person")]),
        ("Texted Sarah about the party.", [("Sarah", "likely_person")]),
        ("Drinks with my brother Ollie after work.", [("Ollie", "likely_person")]),
        ("1:1 w/ Ana Souza about the reorg.", [("Ana Souza", "likely_person")]),
        ("Went for a run with Jess.", [("Jess", "likely_person")]),
        ("Had coffee with Sarah Monday morning.", [("Sarah", "likely_person")]),
        ("Had lunch with \ue0000\ue001 and Aisha.", [("Aisha", "likely_person")]),  # a link is `_MET`'s
        # A business may be met with, talked to or called: the name has no type of its own.
        ("Met with Stripe about the integration.", [("Stripe", None)]),
        ("Called Thames Water about the leak.", [("Thames Water", None)]),
        ("Had a call with Acme about the renewal.", [("Acme", None)]),
        ("Spoke to Dr. Patel about my knee.", [("Dr. Patel", "person")]),  # a title says a person
        ("Called Mum in the evening.", [("Mum", "person")]),  # so does a family word
        ("Called my sister Anna.", [("Anna", "likely_person")]),  # or what she is to the writer
        ("Met our new neighbours Tom and Sarah.", [("Tom", "likely_person"), ("Sarah", "likely_person")]),
        (
            "Had Lunch With Kenji And Aisha",
            [("Kenji", "likely_person"), ("Aisha", "likely_person")],
        ),  # Title Case
        ("Met Tom On the way home.", [("Tom", "likely_person")]),
        ("Had a beer with Pieter van der Berg.", [("Pieter van der Berg", "likely_person")]),
        ("Drinks with Rev. Jones.", [("Rev. Jones", "person")]),
        ("Had drinks with Sarah + Tom.", [("Sarah", "likely_person"), ("Tom", "likely_person")]),
        ("Coffee w/ Sarah.", [("Sarah", "likely_person")]),
        ("Later called Dad about the car.", [("Dad", "person")]),
        ("Bumped into Dave at Tesco.", [("Dave", "likely_person")]),
        ("I broke up with Jake.", [("Jake", "likely_person")]),
        ("Went on a first date with Priya.", [("Priya", "likely_person")]),
        ("Had lunch with Sarah May.", [("Sarah May", "likely_person")]),
    ],
)
def test_plain_names_after_a_meeting_verb_are_found_with_their_type(
    text: str, met: list[tuple[str, str | None]]
) -> None:
    assert people_met(text) == met


@pytest.mark.parametrize(
    "text",
    [
        "Met Rui's sister at the pub.",  # someone else
        "The Met Office says rain all week.",
        "Had dinner with the Hendersons.",  # no name follows the verb
        "Spoke to HR about the leave.",  # a department
        "Lunch with Marketing Team to plan the launch.",
        "Called Vodafone about the bill.",  # a network
        "Talked to Acme support about the outage.",  # a company's desk
        "Chatted with ChatGPT about my essay.",  # an assistant
        "Met Friday to plan the sprint.",
        # A Capitalized word before a noun says what kind of people or thing, not who.
        "Met Spanish students at the hostel.",
        "Lunch with Google recruiter.",
        "Dinner with Uni friends.",
        "Green tea with Manuka honey.",
        "Met Arsenal legend Ian Wright!",
        "Texted Happy Birthday to Ben.",  # what was texted
        "Called It Quits with the diet.",
        "Dinner with Neighbours, lovely evening.",
        "Spoke to Customer Services about the parcel.",
        "Met with Procurement about the contract.",
        "England met France in the semi-final.",  # not the writer's meeting
        "Met Police were outside the station.",
        "Our proposal was met with Silence.",
        "She called Sarah a liar.",
        "I have a note called Creativity.",  # named, not phoned
        "Had lunch with \ue0000\ue001.",  # a link (its placeholder): `offline._MET` reads it
    ],
)
def test_no_person_is_read_from_a_team_a_company_desk_or_a_possessive(text: str) -> None:
    assert people_met(text) == []


def test_the_writer_never_meets_themself() -> None:
    assert people_met("Lunch with Sam and Jo.", "Sam") == [("Jo", "likely_person")]


def test_the_statement_names_whom_the_writer_met() -> None:
    found = extract(
        "Had coffee with Olivia Chen from the design team.",
        meta={"author": "Sam"},
        title="2025-03-12",
        path="daily/2025-03-12.md",
    )
    assert "Olivia Chen" in only_node(found).entities
    assert {e.name: e.entity_type for e in found.draft.entities}["Olivia Chen"] == "likely_person"


_DOG = "---\ntype: dog\n---\n# Bella\n\nBella is a border collie.\n"
_ACME = "---\ntype: organization\n---\n# Acme\n\nAcme is our biggest client.\n"


def _the_one_page(vault: Path, stem: str, *, citing: str) -> frontmatter.Post:
    """The entity page of that name, checked to be the only one (no homonym split) and to cite the note."""
    assert sorted(p.stem for p in (vault / "entities").glob(f"{stem}*.md")) == [stem]
    page = frontmatter.load(vault / "entities" / f"{stem}.md")
    assert any(source.startswith(f"{citing}#") for source in page["sources"])
    return page


def test_a_company_met_with_stays_one_entity_with_the_type_other_notes_give_it(tmp_path: Path) -> None:
    notes, vault = notes_with(
        tmp_path,
        {
            "daily/2025-03-12.md": "# 2025-03-12\n\nMet with Stripe about the integration.\n",
            "people/Ana.md": "---\ntype: person\n---\n# Ana\n\nAna works at Stripe.\n",
        },
    )
    run_build(notes, vault)
    assert _the_one_page(vault, "stripe", citing="daily/2025-03-12.md")["entity_type"] == "organization"


def test_a_friend_named_in_a_diary_gets_a_page_linking_what_was_done_together(tmp_path: Path) -> None:
    notes, vault = notes_with(
        tmp_path,
        {
            "daily/2025-03-01.md": "# 2025-03-01\n\nHad lunch with Kenji Sato at the ramen place.\n",
            "daily/2025-03-08.md": "# 2025-03-08\n\nWent for a run with Kenji Sato by the river.\n",
        },
    )
    run_build(notes, vault)
    page = frontmatter.load(vault / "entities" / "kenji-sato.md")
    assert page["entity_type"] == "person"
    assert "had-lunch-with-kenji-sato-at-the-ramen-place" in page.content
    assert "went-for-a-run-with-kenji-sato-by-the-river" in page.content


@pytest.mark.parametrize(
    ("note", "text", "page", "kind"),
    [
        ("pets/Bella.md", _DOG, "bella", "dog"),
        ("work/Acme.md", _ACME, "acme", "organization"),
        (
            "tools/Snowflake.md",
            "---\ntype: tool\n---\n# Snowflake\n\nSnowflake is our warehouse.\n",
            "snowflake",
            "tool",
        ),
    ],
)
def test_a_type_guessed_from_a_verb_never_splits_what_a_note_types(
    tmp_path: Path, note: str, text: str, page: str, kind: str
) -> None:
    notes, vault = notes_with(
        tmp_path,
        {
            note: text,
            "daily/2025-03-12.md": "# 2025-03-12\n\nWent for a walk with Bella by the canal.\n"
            "Met Acme for the quarterly review.\nWe're moving to Snowflake in June.\n",
        },
    )
    run_build(notes, vault)
    assert _the_one_page(vault, page, citing="daily/2025-03-12.md")["entity_type"] == kind


@pytest.mark.parametrize(
    ("person", "line", "first"),
    [
        # Guessed a person by the verb: rule 7 joins the first name.
        ("Olivia Chen", "Had lunch with Olivia at the ramen place.", "olivia"),
        # Of no type ("spoke to" may be a business's): the first name of her note, as if unmentioned.
        ("Priya Nair", "Spoke to Priya about the Stripe integration.", "priya"),
    ],
)
def test_a_first_name_met_is_the_one_person_whose_note_starts_with_it(
    tmp_path: Path, person: str, line: str, first: str
) -> None:
    notes, vault = notes_with(
        tmp_path,
        {
            f"people/{person}.md": f"---\ntype: person\n---\n# {person}\n\n{person} is a designer.\n",
            "daily/2025-03-12.md": f"# 2025-03-12\n\n{line}\n",
        },
    )
    run_build(notes, vault)
    assert not (vault / "entities" / f"{first}.md").exists()
    page = (vault / "entities" / f"{slugify(person)}.md").read_text("utf-8")
    assert slugify(line.rstrip(".")) in page


@pytest.mark.parametrize(
    ("files", "edit"),
    [
        # A guessed person of a name stated a dog and an organization: its kind has no entity.
        (
            {
                "pets/Bella.md": _DOG,
                "daily/2025-03-03.md": "# 2025-03-03\n\nTom works at Bella.\n",
                "daily/2025-03-04.md": "# 2025-03-04\n\nWrote the report.\nWent for a walk with Bella.\n",
            },
            ("daily/2025-03-04.md", "report", "memo"),
        ),
        # A person stated where one was only guessed: the name splits, as a clean build splits it.
        (
            {
                "work/Acme.md": _ACME,
                "daily/2025-03-01.md": "# 2025-03-01\n\nMet Acme for the quarterly review.\n",
                "daily/2025-03-02.md": "# 2025-03-02\n\nTom lives in Leeds.\n",
            },
            ("daily/2025-03-01.md", "review.\n", "review.\nAcme lives in Leeds.\n"),
        ),
        # People met are never joined by spelling, however rare one of them becomes.
        (
            {
                **{
                    f"daily/2025-03-0{i}.md": f"# {i}\n\nHad lunch with Christopher at noon.\n"
                    for i in (1, 2, 3)
                },
                **{
                    f"daily/2025-03-0{i}.md": f"# {i}\n\nHad coffee with Christophe at the station.\n"
                    for i in (4, 5, 6)
                },
            },
            (
                "daily/2025-03-06.md",
                "Had coffee with Christophe at the station.",
                "Had coffee at the station.",
            ),
        ),
    ],
)
def test_a_rebuild_kept_in_memory_equals_a_clean_build_whatever_types_are_guessed(
    tmp_path: Path, files: dict[str, str], edit: tuple[str, str, str]
) -> None:
    notes, vault = notes_with(tmp_path, files)
    memory = BuildMemory()
    build(load_settings(notes, vault=vault), memory=memory)
    path, old, new = edit
    (notes / path).write_text((notes / path).read_text("utf-8").replace(old, new), "utf-8")
    build(load_settings(notes, vault=vault), memory=memory)
    clean = tmp_path / "clean"
    build(load_settings(notes, vault=clean))
    assert tree_bytes(vault) == tree_bytes(clean)


def test_people_met_are_never_joined_by_spelling(tmp_path: Path) -> None:
    notes, vault = notes_with(
        tmp_path,
        {
            "daily/2025-03-01.md": "# 2025-03-01\n\nHad lunch with [[Christopher]] at the ramen place.\n",
            "daily/2025-03-02.md": "# 2025-03-02\n\nHad coffee with [[Christophe]] at the station.\n",
        },
    )
    run_build(notes, vault)
    assert sorted(p.stem for p in (vault / "entities").glob("christoph*.md")) == ["christophe", "christopher"]


@pytest.mark.parametrize(
    ("written", "read"),
    [("likely_", "concept"), ("likely_concept", "concept"), ("likely_likely_person", "likely_person")],
)
def test_a_draft_guessing_nothing_states_no_type(written: str, read: str) -> None:
    assert DraftEntity(name="Jordan", entity_type=written).entity_type == read

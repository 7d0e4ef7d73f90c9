"""Whom the writer met, ate with or talked to, named without a link, is an entity of the statement."""

from __future__ import annotations

from pathlib import Path

import frontmatter
import pytest

from kgvault.extract.people import people_met
from tests.conftest import notes_with, run_build
from tests.test_extract_offline import extract, only_node


@pytest.mark.parametrize(
    ("text", "met"),
    [
        ("Met Rui for coffee.", [("Rui", "person")]),
        ("Had lunch with Kenji and Aisha.", [("Kenji", "person"), ("Aisha", "person")]),
        ("Dinner with Lena, Jo and Priya.", [("Lena", "person"), ("Jo", "person"), ("Priya", "person")]),
        ("Caught up with Tom Baker.", [("Tom Baker", "person")]),
        ("Texted Sarah about the party.", [("Sarah", "person")]),
        ("Drinks with my brother Ollie after work.", [("Ollie", "person")]),
        ("1:1 w/ Ana Souza about the reorg.", [("Ana Souza", "person")]),
        ("Went for a run with Jess.", [("Jess", "person")]),
        ("Had coffee with Sarah Monday morning.", [("Sarah", "person")]),
        ("Had lunch with \ue0000\ue001 and Aisha.", [("Aisha", "person")]),  # a link is `_MET`'s
        # A business may be met with, talked to or called: the name has no type of its own.
        ("Met with Stripe about the integration.", [("Stripe", None)]),
        ("Called Thames Water about the leak.", [("Thames Water", None)]),
        ("Had a call with Acme about the renewal.", [("Acme", None)]),
        ("Spoke to Dr. Patel about my knee.", [("Dr. Patel", "person")]),  # a title says a person
        ("Called Mum in the evening.", [("Mum", "person")]),  # so does a family word
        ("Called my sister Anna.", [("Anna", "person")]),  # or what she is to the writer
        ("Met our new neighbours Tom and Sarah.", [("Tom", "person"), ("Sarah", "person")]),
        ("Had Lunch With Kenji And Aisha", [("Kenji", "person"), ("Aisha", "person")]),  # Title Case
        ("Met Tom On the way home.", [("Tom", "person")]),
        ("Had a beer with Pieter van der Berg.", [("Pieter van der Berg", "person")]),
        ("Drinks with Rev. Jones.", [("Rev. Jones", "person")]),
        ("Had drinks with Sarah + Tom.", [("Sarah", "person"), ("Tom", "person")]),
        ("Coffee w/ Sarah.", [("Sarah", "person")]),
        ("Later called Dad about the car.", [("Dad", "person")]),
        ("Bumped into Dave at Tesco.", [("Dave", "person")]),
        ("I broke up with Jake.", [("Jake", "person")]),
        ("Went on a first date with Priya.", [("Priya", "person")]),
        ("Had lunch with Sarah May.", [("Sarah May", "person")]),
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
    assert people_met("Lunch with Sam and Jo.", "Sam") == [("Jo", "person")]


def test_the_statement_names_whom_the_writer_met() -> None:
    found = extract(
        "Had coffee with Olivia Chen from the design team.",
        meta={"author": "Sam"},
        title="2025-03-12",
        path="daily/2025-03-12.md",
    )
    assert "Olivia Chen" in only_node(found).entities
    assert {e.name: e.entity_type for e in found.draft.entities}["Olivia Chen"] == "person"


def test_a_company_met_with_stays_one_entity_with_the_type_other_notes_give_it(tmp_path: Path) -> None:
    notes, vault = notes_with(
        tmp_path,
        {
            "daily/2025-03-12.md": "# 2025-03-12\n\nMet with Stripe about the integration.\n",
            "people/Ana.md": "---\ntype: person\n---\n# Ana\n\nAna works at Stripe.\n",
        },
    )
    run_build(notes, vault)
    stripes = sorted(p.name for p in (vault / "entities").glob("stripe*.md"))
    assert stripes == ["stripe.md"]
    page = frontmatter.load(vault / "entities" / "stripe.md")
    assert page["entity_type"] == "organization"
    assert any(source.startswith("daily/2025-03-12.md#") for source in page["sources"])


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

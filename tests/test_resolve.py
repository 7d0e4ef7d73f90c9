"""Entity resolution: names, aliases, kind suffixes, fuzzy spellings, and the guards against false merges."""

from __future__ import annotations

import random
import unicodedata
from dataclasses import replace
from typing import Any

from kgvault.corrections import Correction, Corrections
from kgvault.link import link
from kgvault.records import Graph
from tests.test_link import episode, extraction, fact, source


def entity(name: str, entity_type: str = "concept", **extra: Any) -> dict[str, Any]:
    return {"name": name, "entity_type": entity_type, **extra}


def relation(subject: str, predicate: str, obj: str) -> dict[str, Any]:
    label = predicate.replace("_", " ")
    return {
        "subject": subject,
        "predicate": predicate,
        "label": label,
        "object": obj,
        "statement": f"{subject} {label} {obj}",
        "confidence": 0.9,
    }


def build(*drafts: tuple[str, list[dict[str, Any]]], sources: list[Any] | None = None) -> Graph:
    """Link one chunk per (path, entities) pair; every path gets a source."""
    paths = sorted({path for path, _ in drafts})
    extractions = [
        extraction(path, index, (index * 3 + 1, index * 3 + 2), entities=entities)
        for index, (path, entities) in enumerate(drafts)
    ]
    return link(sources or [source(p) for p in paths], extractions)


def titles(graph: Graph) -> dict[str, tuple[str, str]]:
    return {e.id: (e.title, e.entity_type) for e in graph.entities}


def test_apple_the_company_and_apple_the_fruit_stay_two_entities() -> None:
    graph = build(
        ("work.md", [entity("Apple", "organization")]),
        ("work2.md", [entity("Apple", "organization")]),
        ("work3.md", [entity("Apple Inc.", "company", aliases=["Apple"])]),
        ("kitchen.md", [entity("apple", "food")]),
    )
    assert titles(graph) == {
        "apple-food": ("apple", "food"),
        "apple-organization": ("Apple", "organization"),
    }
    reasons = {(entity_id, why) for entity_id, _, why in graph.merges}
    assert ("apple-food", "kept apart from the organization of the same name: the types differ") in reasons


def test_types_of_no_known_kind_name_one_thing_and_a_known_kind_still_splits() -> None:
    graph = build(
        ("a.md", [entity("Ender 3", "device")]),
        ("b.md", [entity("Ender 3", "printer")]),
        ("c.md", [entity("Ender 3", "printer")]),
    )
    assert titles(graph) == {"ender-3": ("Ender 3", "printer")}
    graph = build(
        ("a.md", [entity("Jordan", "person")]),
        ("b.md", [entity("Jordan", "country")]),
        ("c.md", [entity("Jordan", "river")]),
        ("d.md", [entity("Jordan", "stream")]),
    )
    assert set(titles(graph)) == {"jordan-person", "jordan-place", "jordan-river"}


def test_a_character_or_a_friend_is_a_person() -> None:
    """A game master's `type: npc` note and a sentence naming the same one as a person are one."""
    graph = build(
        ("NPCs/Varek Thorne.md", [entity("Varek Thorne", "npc", aliases=["Varek"])]),
        ("NPCs/Varek Thorne.md", [entity("Varek", "person")]),
        ("friends.md", [entity("Ana Souza", "friend"), entity("Ana Souza", "person")]),
    )
    assert titles(graph) == {"varek-thorne": ("Varek Thorne", "npc"), "ana-souza": ("Ana Souza", "friend")}


def test_an_entity_its_words_leave_untyped_takes_its_notes_type() -> None:
    """`type: book` in a note that links nothing: the entity other notes link to is a book."""
    sources = [
        source("books/Sea of Tranquility.md", meta={"type": "book"}),
        source("Reading log.md"),
        source("people/Emily.md"),
        source("Trips.md", meta={"type": "daily"}),  # a kind of page, not of thing
    ]
    graph = build(
        ("Reading log.md", [entity("Sea of Tranquility"), entity("Emily"), entity("Trips")]),
        ("Reading log.md", [entity("Emily", "author")]),  # a type its words give wins
        sources=sources,
    )
    assert titles(graph) == {
        "sea-of-tranquility": ("Sea of Tranquility", "book"),
        "emily": ("Emily", "author"),
        "trips": ("Trips", "concept"),
    }


def test_an_untyped_mention_joins_the_homonym_mentioned_most() -> None:
    graph = build(
        ("a.md", [entity("Apple", "organization")]),
        ("b.md", [entity("Apple", "organization")]),
        ("c.md", [entity("apple", "food")]),
        ("d.md", [entity("APPLE")]),
    )
    evidence = {e.id: {ev.path for ev in e.evidence} for e in graph.entities}
    assert evidence == {"apple-food": {"c.md"}, "apple-organization": {"a.md", "b.md", "d.md"}}


def test_relations_follow_the_type_the_chunk_gave_a_homonym() -> None:
    sources = [source("a.md"), source("b.md")]
    graph = link(
        sources,
        [
            extraction(
                "a.md",
                0,
                (1, 2),
                entities=[entity("Tim Cook", "person"), entity("Apple", "organization")],
                relations=[relation("Tim Cook", "works_for", "Apple")],
            ),
            extraction(
                "b.md",
                0,
                (1, 2),
                entities=[entity("Anna", "person"), entity("apple", "food")],
                relations=[relation("Anna", "likes", "apple")],
            ),
        ],
    )
    ends = {(r.from_id, r.relation, r.to_id) for r in graph.relations}
    assert ends == {("tim-cook", "works_for", "apple-organization"), ("anna", "likes", "apple-food")}


def test_marlin_and_marlin_firmware_are_one_entity() -> None:
    graph = build(
        ("printer.md", [entity("Marlin")]),
        ("log.md", [entity("Marlin firmware", "software")]),
    )
    assert titles(graph) == {"marlin": ("Marlin", "software")}
    (marlin,) = graph.entities
    assert marlin.aliases == ("Marlin firmware",)
    assert graph.merges == (("marlin", "Marlin + Marlin firmware", "the same name with “firmware”"),)


def test_postgres_db_is_postgres() -> None:
    graph = build(("a.md", [entity("Postgres", "software")]), ("b.md", [entity("postgres db")]))
    assert titles(graph) == {"postgres": ("Postgres", "software")}
    assert graph.merges == (("postgres", "Postgres + postgres db", "the same name with “db”"),)


def test_a_well_known_other_name_is_the_same_entity() -> None:
    graph = build(
        ("a.md", [entity("Postgres", "software")]),
        ("b.md", [entity("PostgreSQL")]),
        ("c.md", [entity("K8s", "software"), entity("Kubernetes", "software")]),
    )
    assert titles(graph) == {"postgresql": ("PostgreSQL", "software"), "k8s": ("K8s", "software")}
    assert [e.aliases for e in sorted(graph.entities, key=lambda e: e.id)] == [
        ("Kubernetes",),
        ("Postgres",),
    ]
    assert graph.merges == (
        ("k8s", "K8s + Kubernetes", "a well-known other name of it"),
        ("postgresql", "Postgres + PostgreSQL", "a well-known other name of it"),
    )


def test_a_well_known_other_name_of_another_type_is_another_entity() -> None:
    graph = build(("a.md", [entity("Mongo", "person")]), ("b.md", [entity("MongoDB", "software")]))
    # Not joined and then kept apart as homonyms ("mongo-person"): never joined, nothing to list.
    assert ([e.id for e in graph.entities], graph.merges) == (["mongo", "mongodb"], ())


def test_project_falcon_is_falcon_unless_falcon_is_something_else() -> None:
    graph = build(("a.md", [entity("Project Falcon", "project")]), ("b.md", [entity("Falcon")]))
    assert titles(graph) == {"falcon": ("Falcon", "project")}
    assert graph.merges == (("falcon", "Falcon + Project Falcon", "the same name with “project” before it"),)
    graph = build(("a.md", [entity("Project Falcon", "project")]), ("b.md", [entity("Falcon", "software")]))
    assert len(graph.entities) == 2
    # Neither known as a project (a charity and an editor, a job and a boss), or one as a book: two.
    for first, second in (("Project Gutenberg", "Gutenberg"), ("Project Manager", "Manager")):
        assert len(build(("a.md", [entity(first)]), ("b.md", [entity(second)])).entities) == 2
    graph = build(("a.md", [entity("Project Hail Mary", "book")]), ("b.md", [entity("Hail Mary")]))
    assert len(graph.entities) == 2


def test_a_client_a_supplier_or_an_agency_is_an_organization() -> None:
    graph = build(
        ("Acme Ltd.md", [entity("Acme Ltd", "client")]), ("b.md", [entity("Acme Ltd", "organization")])
    )
    assert titles(graph) == {"acme-ltd": ("Acme Ltd", "client")}  # one, not two homonyms


def test_a_kind_suffix_never_joins_conflicting_types() -> None:
    graph = build(("a.md", [entity("Mercury", "place")]), ("b.md", [entity("Mercury database", "software")]))
    assert len(graph.entities) == 2


def test_a_misspelled_long_name_joins_the_right_one() -> None:
    graph = build(
        ("a.md", [entity("Kubernetes", "software")]),
        ("b.md", [entity("Kubernetes", "software")]),
        ("c.md", [entity("Kubernets")]),
    )
    assert titles(graph) == {"kubernetes": ("Kubernetes", "software")}
    (row,) = graph.merges
    assert row[1] == "Kubernetes + Kubernets"
    assert row[2].startswith("spelled alike (")


def test_a_draft_s_alias_never_joins_two_things_another_chunk_names_apart() -> None:
    note = extraction(
        "journal.md",
        0,
        (1, 2),
        entities=[entity("Klipper", "software"), entity("Python", "software")],
        relations=[relation("Klipper", "runs_on", "Python")],
    )
    agent = extraction("agent.json", 0, (1, 1), entities=[entity("Python", "software", aliases=["Klipper"])])
    kept = extraction(
        "agent2.json", 0, (1, 1), entities=[entity("Klipper", "software", aliases=["Klipper Fw"])]
    )
    graph = link([source("journal.md"), source("agent.json"), source("agent2.json")], [note, agent, kept])
    assert set(titles(graph)) == {"klipper", "python"}
    assert [(r.from_id, r.relation, r.to_id) for r in graph.relations] == [("klipper", "runs_on", "python")]
    (klipper,) = [e for e in graph.entities if e.id == "klipper"]
    assert "Klipper Fw" in klipper.aliases  # an alias no chunk contradicts still joins


def test_two_names_that_each_have_a_note_are_never_spelled_alike() -> None:
    drafts = (
        ("spells/control-water.md", [entity("Control Water")]),
        ("spells/control-weather.md", [entity("Control Weather")]),
        ("log.md", [entity("Control Wather")]),  # a misspelling with no note still joins
    )
    notes = [
        source("spells/control-water.md", title="Control Water"),
        source("spells/control-weather.md", title="Control Weather"),
        source("log.md"),
    ]
    graph = build(*drafts, sources=notes)
    assert set(titles(graph)) == {"control-water", "control-weather"}
    assert [row[1] for row in graph.merges if "spelled alike" in row[2]] == ["Control Water + Control Wather"]


def test_fuzzy_matching_never_joins_people_numbers_short_names_or_conflicting_types() -> None:
    graph = build(
        ("a.md", [entity("Sarah Jones", "person")]),
        ("b.md", [entity("Sarah Janes", "person")]),
        ("c.md", [entity("Postgres 15")]),
        ("d.md", [entity("Postgres 16")]),
        ("e.md", [entity("Kevin")]),
        ("f.md", [entity("Keven")]),
        ("g.md", [entity("Santa Clara", "place")]),
        ("h.md", [entity("Santa Clars", "software")]),
    )
    assert len(graph.entities) == 8
    assert graph.merges == ()


def test_two_names_in_one_chunk_are_two_things() -> None:
    graph = build(("a.md", [entity("Project Andromeda"), entity("Project Andromedb")]))
    assert len(graph.entities) == 2


def test_declared_aliases_are_listed_as_merges_with_their_source() -> None:
    graph = build(("a.md", [entity("Klipper", aliases=["Klipper3d"])]), ("b.md", [entity("klipper3d")]))
    assert graph.merges == (("klipper", "Klipper + klipper3d", "alias stated in a.md"),)


def test_frontmatter_aliases_are_listed_with_the_note() -> None:
    sources = [source("people/Ada Lovelace.md", meta={"aliases": ["Ada"]}), source("log.md")]
    graph = build(("log.md", [entity("Ada", "person")]), ("people/Ada Lovelace.md", []), sources=sources)
    assert titles(graph) == {"ada-lovelace": ("Ada Lovelace", "person")}
    assert graph.merges == (
        ("ada-lovelace", "Ada Lovelace + Ada", "alias in the frontmatter of people/Ada Lovelace.md"),
    )


def test_an_alias_two_notes_claim_joins_neither_and_says_so() -> None:
    # Two friends called Tom, each with a note: "Tom" must not make one person of them.
    sources = [
        source("people/Tom Becker.md", meta={"aliases": ["Tom"]}),
        source("people/Tom Ito.md", meta={"aliases": ["Tom"]}),
        source("log.md"),
    ]
    graph = build(
        ("people/Tom Becker.md", [entity("Tom Becker", "person", aliases=["Tom"])]),
        ("people/Tom Ito.md", [entity("Tom Ito", "person", aliases=["Tom"])]),
        ("log.md", [entity("Tom Becker", "person"), entity("Tom Ito", "person")]),
        sources=sources,
    )
    assert titles(graph) == {"tom-becker": ("Tom Becker", "person"), "tom-ito": ("Tom Ito", "person")}
    why = "an alias of 2 notes (Tom Becker, Tom Ito): it means none of them"
    assert graph.merges == (("tom-becker", "Tom Becker + Tom", why), ("tom-ito", "Tom Ito + Tom", why))


def test_a_first_name_two_links_show_for_two_people_joins_neither() -> None:
    # `[[Aisha Silva|Aisha]]` in one note, `[[Aisha Moreau|Aisha]]` in another: no notes of theirs.
    graph = build(
        ("a.md", [entity("Aisha Silva", "person", aliases=["Aisha"])]),
        ("b.md", [entity("Aisha Moreau", "person", aliases=["Aisha"])]),
    )
    assert set(titles(graph)) == {"aisha-silva", "aisha-moreau"}
    why = "an alias of 2 names (Aisha Moreau, Aisha Silva): it means none of them"
    assert ("aisha-silva", "Aisha Silva + Aisha", why) in graph.merges
    # A short name two spellings of one thing are given still joins them: no first name of two people.
    graph = build(
        ("a.md", [entity("Kubernetes", "software", aliases=["K8s"])]),
        ("b.md", [entity("Kubernetes Engine", "software", aliases=["K8s"])]),
    )
    assert len(titles(graph)) == 1


def test_an_alias_one_note_claims_and_a_draft_repeats_still_joins() -> None:
    sources = [source("people/Tom Becker.md", meta={"aliases": ["Tom"]}), source("log.md")]
    graph = build(
        ("people/Tom Becker.md", [entity("Tom Becker", "person", aliases=["Tom"])]),
        ("log.md", [entity("Tom", "person")]),
        sources=sources,
    )
    assert titles(graph) == {"tom-becker": ("Tom Becker", "person")}


def test_resolution_does_not_depend_on_draft_order() -> None:
    drafts = [
        ("a.md", [entity("Apple", "organization")]),
        ("b.md", [entity("apple", "food")]),
        ("c.md", [entity("Kubernetes", "software")]),
        ("d.md", [entity("Kubernetse")]),
        ("e.md", [entity("Marlin firmware")]),
        ("f.md", [entity("Marlin", "software")]),
        ("g.md", [entity("Apple")]),
    ]
    extractions = [
        extraction(path, 0, (1, 2), entities=entities, nodes=[fact(f"About {path}.")])
        for path, entities in drafts
    ]
    sources = [source(path) for path, _ in drafts]
    expected = link(sources, extractions)
    rng = random.Random(7)
    for _ in range(5):
        rng.shuffle(extractions)
        rng.shuffle(sources)
        assert link(sources, extractions) == expected


def test_two_frequent_look_alike_names_are_two_things() -> None:
    drafts = [(f"{name}{i}.md", [entity(name)]) for name in ("Kubernetes", "Kubernets") for i in range(3)]
    assert len(build(*drafts).entities) == 2


def test_c_cpp_and_csharp_are_three_languages() -> None:
    graph = build(
        ("x.md", [entity("C")]),
        ("y.md", [entity("C++")]),
        ("z.md", [entity("C#"), entity("C#"), entity("C sharp")]),
    )
    assert sorted(e.title for e in graph.entities) == ["C", "C#", "C++"]
    # Pages of their own, not `c` and two hash-suffixed ids that an alias of one could reorder.
    assert sorted(e.id for e in graph.entities) == ["c", "c-plus-plus", "c-sharp"]
    assert {e.title: e.aliases for e in graph.entities}["C#"] == ("C sharp",)


def test_homonym_ids_do_not_move_as_mention_counts_change() -> None:
    few = [("a.md", [entity("Apple", "organization")]), ("b.md", [entity("Apple", "organization")])]
    more = [(f"k{i}.md", [entity("apple", "food")]) for i in range(4)]
    before = titles(build(*few, ("c.md", [entity("apple", "food")])))
    after = titles(build(*few, *more))
    assert (
        before == after == {"apple-organization": ("Apple", "organization"), "apple-food": ("apple", "food")}
    )


def test_a_node_about_one_homonym_links_that_one_only() -> None:
    sources = [source("work.md"), source("kitchen.md")]
    graph = link(
        sources,
        [
            extraction("work.md", 0, (1, 2), entities=[entity("Apple", "organization")]),
            extraction("work.md", 1, (3, 4), entities=[entity("Apple", "organization")]),
            extraction(
                "kitchen.md",
                0,
                (1, 2),
                entities=[entity("Apple", "food")],
                nodes=[fact("Apple pie needs six apples.")],
            ),
        ],
    )
    (node,) = graph.nodes
    assert node.entities == ("apple-food",)


def test_an_entity_id_does_not_follow_mention_counts() -> None:
    # The title is the spelling used most; the id is not: adding or deleting a note elsewhere
    # must not move a page (and the user's notes on it).
    two = [("a.md", [entity("PrusaSlicer", "software")]), ("b.md", [entity("PrusaSlicer", "software")])]
    one = [("c.md", [entity("Prusa Slicer", "software")])]
    before, after = build(*two, *one), build(two[0], *one)
    assert titles(before) == {"prusa-slicer": ("PrusaSlicer", "software")}
    assert set(titles(after)) == {"prusa-slicer"}


def test_a_homonym_id_names_its_kind_not_its_most_stated_type() -> None:
    food = ("f.md", [entity("Apple", "food")])
    company = ("c.md", [entity("Apple", "company")])
    employer = ("e.md", [entity("Apple", "organization")])
    assert (
        set(titles(build(food, company, employer)))
        == set(titles(build(food, employer)))
        == {
            "apple-food",
            "apple-organization",
        }
    )


def test_an_alias_a_draft_states_is_listed_and_found_by_corrections() -> None:
    draft = extraction("a.md", 0, (1, 2), entities=[entity("Klipper", "software", aliases=["Klipper Fw"])])
    graph = link([source("a.md")], [draft])
    [klipper] = graph.entities
    assert klipper.aliases == ("Klipper Fw",)
    assert graph.merges == (("klipper", "Klipper + Klipper Fw", "alias stated in a.md"),)
    fix = Corrections((Correction("retype", ("Klipper Fw",), "firmware", 3),))
    [retyped] = link([source("a.md")], [draft], corrections=fix).entities
    assert retyped.entity_type == "firmware"


def test_a_spelling_counts_once_whatever_its_unicode_form() -> None:
    composed, decomposed = "Café Lumière", unicodedata.normalize("NFD", "Café Lumière")
    graph = build(
        ("a.md", [entity(composed, "organization")]),
        ("b.md", [entity(decomposed, "organization")]),
        ("c.md", [entity("CAFÉ LUMIÈRE", "organization")]),
    )
    # Two mentions of one spelling outvote the capitals (not three spellings of one mention each).
    [cafe] = graph.entities
    assert cafe.title == composed


def test_a_kind_suffix_joins_only_a_thing_of_that_kind() -> None:
    graph = build(
        ("a.md", [entity("Manhattan", "place")]),
        ("b.md", [entity("Manhattan Project")]),
        ("c.md", [entity("Marlin", "firmware")]),
        ("d.md", [entity("Marlin firmware")]),
        ("e.md", [entity("Globex", "company")]),
        ("f.md", [entity("Globex Inc")]),
    )
    # "Project" says what the untyped name is; a place it is not. Firmware and Inc fit their heads.
    assert sorted(e.title for e in graph.entities) == ["Globex", "Manhattan", "Manhattan Project", "Marlin"]


FIRST_NAME = "the first name of the only person the notes name so"


LOPEZ = "people/Ana Lopez.md"


def noted(*drafts: tuple[str, list[dict[str, Any]]]) -> Graph:
    """`build`, where a path under people/ is a note about the person it is titled after."""
    return build(*drafts, sources=[source(p) for p in sorted({path for path, _ in drafts})])


def test_a_first_name_is_the_only_person_the_notes_name_so() -> None:
    # "Had lunch with Ana." in one note; a note of her own, people/Ana Lopez.md.
    graph = noted(("a.md", [entity("Ana", "person")]), (LOPEZ, [entity("Ana Lopez", "person")]))
    assert titles(graph) == {"ana-lopez": ("Ana Lopez", "person")}
    (ana,) = graph.entities
    assert ana.aliases == ("Ana",)
    assert [e.path for e in ana.evidence] == ["a.md", LOPEZ]
    assert graph.merges == (("ana-lopez", "Ana Lopez + Ana", FIRST_NAME),)
    # Untyped on its own note (the folder says a person), and mentioned more often alone: still
    # shown, and her page named, by her full name.
    graph = noted(*[(f"{n}.md", [entity("Ana", "person")]) for n in "abc"], (LOPEZ, [entity("Ana Lopez")]))
    assert titles(graph) == {"ana-lopez": ("Ana Lopez", "person")}


def test_a_full_name_only_a_sentence_names_is_no_friend_of_that_first_name() -> None:
    # "Called my brother Tom." and, in a note about films, "Tom Hanks lives in Los Angeles.".
    graph = build(("a.md", [entity("Tom", "person")]), ("movies.md", [entity("Tom Hanks", "person")]))
    assert set(titles(graph)) == {"tom", "tom-hanks"}
    # Named beside it in one chunk, it introduces her: "Met [[Kim]] today. Kim Nguyen works at UCL."
    graph = build(
        ("a.md", [entity("Kim", "person"), entity("Kim Nguyen", "person")]),
        ("b.md", [entity("Kim", "person")]),
    )
    assert titles(graph) == {"kim-nguyen": ("Kim Nguyen", "person")}


def test_a_full_name_the_writer_met_is_that_first_names_friend() -> None:
    # "Had lunch with Olivia Chen." one day, "Went for a walk with Olivia." another: someone met.
    graph = build(
        ("a.md", [entity("Olivia Chen", "likely_person")]), ("b.md", [entity("Olivia", "likely_person")])
    )
    assert titles(graph) == {"olivia-chen": ("Olivia Chen", "person")}
    # Two Olivias met in full: the first name alone is neither.
    graph = build(
        ("a.md", [entity("Olivia Chen", "likely_person")]),
        ("b.md", [entity("Olivia", "likely_person")]),
        ("c.md", [entity("Olivia Park", "likely_person")]),
    )
    assert set(titles(graph)) == {"olivia", "olivia-chen", "olivia-park"}


def test_a_first_name_two_people_share_joins_neither() -> None:
    graph = noted(
        ("a.md", [entity("Ana", "person")]),
        (LOPEZ, [entity("Ana Lopez", "person")]),
        ("c.md", [entity("Ana Silva", "person")]),
    )
    assert set(titles(graph)) == {"ana", "ana-lopez", "ana-silva"}
    # An untyped name of the same first word may be another Ana as well.
    graph = noted(
        ("a.md", [entity("Ana", "person")]),
        (LOPEZ, [entity("Ana Lopez", "person")]),
        ("c.md", [entity("Ana Silva")]),
    )
    assert set(titles(graph)) == {"ana", "ana-lopez", "ana-silva"}


def test_a_first_name_joins_no_untyped_name_or_thing_of_another_kind() -> None:
    graph = noted(("a.md", [entity("Paris")]), ("people/Paris Hilton.md", [entity("Paris Hilton", "person")]))
    assert set(titles(graph)) == {"paris", "paris-hilton"}
    graph = noted(
        ("a.md", [entity("Jordan", "person")]), ("places/Jordan River.md", [entity("Jordan River", "place")])
    )
    assert set(titles(graph)) == {"jordan", "jordan-river"}
    graph = noted(
        ("a.md", [entity("Jordan", "place")]), ("people/Jordan Peele.md", [entity("Jordan Peele", "person")])
    )
    assert set(titles(graph)) == {"jordan", "jordan-peele"}


def test_a_hyphenated_first_name_is_another_first_name() -> None:
    graph = noted(
        ("a.md", [entity("Marie", "person")]),
        ("people/Marie-Claire Dubois.md", [entity("Marie-Claire Dubois", "person")]),
    )
    assert set(titles(graph)) == {"marie", "marie-claire-dubois"}
    graph = noted(
        ("a.md", [entity("Marie", "person")]), ("people/Marie Dubois.md", [entity("Marie Dubois", "person")])
    )
    assert set(titles(graph)) == {"marie-dubois"}


def test_the_writer_of_a_note_is_not_another_person_of_that_first_name() -> None:
    sources = [replace(source("a.md"), writer="Sam"), source("people/Sam Lee.md")]
    graph = build(
        ("a.md", [entity("Sam", "person")]),
        ("people/Sam Lee.md", [entity("Sam Lee", "person")]),
        sources=sources,
    )
    assert set(titles(graph)) == {"sam", "sam-lee"}


def test_a_first_name_with_a_note_of_its_own_or_kept_apart_stays_apart() -> None:
    # people/Tom.md ("My uncle.") is someone the writer keeps apart from Tom Fraser.
    graph = noted(
        ("people/Tom.md", [entity("Tom", "person")]),
        ("people/Tom Fraser.md", [entity("Tom Fraser", "person")]),
    )
    assert set(titles(graph)) == {"tom", "tom-fraser"}
    # Even named beside a full name that has none: "Tom and Tom Hanks" is no introduction of him.
    graph = noted(("people/Tom.md", []), ("a.md", [entity("Tom", "person"), entity("Tom Hanks", "person")]))
    assert set(titles(graph)) == {"tom", "tom-hanks"}
    extractions = [
        extraction("a.md", 0, (1, 2), entities=[entity("Ana", "person")]),
        extraction(LOPEZ, 0, (1, 2), entities=[entity("Ana Lopez", "person")]),
    ]
    apart = Corrections((Correction("keep_apart", ("Ana", "Ana Lopez")),))
    graph = link([source("a.md"), source(LOPEZ)], extractions, corrections=apart)
    assert set(titles(graph)) == {"ana", "ana-lopez"}


def test_a_surname_alone_is_the_one_person_titled_so() -> None:
    # "Dr. Reid works at Leeds General Infirmary. Reid said the scan looks fine."
    graph = link(
        [source("a.md")],
        [
            extraction("a.md", 0, (1, 1), entities=[entity("Dr. Reid", "person")]),
            extraction("a.md", 1, (2, 2), nodes=[episode("Reid said the scan looks fine.")]),
        ],
    )
    assert titles(graph) == {"dr-reid": ("Dr. Reid", "person")}
    assert [n.entities for n in graph.nodes] == [("dr-reid",)]
    # Mr. and Mrs. Smith: "Smith" alone is neither.
    graph = link(
        [source("a.md")],
        [
            extraction(
                "a.md", 0, (1, 1), entities=[entity("Mr. Smith", "person"), entity("Mrs. Smith", "person")]
            ),
            extraction("a.md", 1, (2, 2), nodes=[episode("Smith said the scan looks fine.")]),
        ],
    )
    assert sorted(titles(graph)) == ["mr-smith", "mrs-smith"]
    assert [n.entities for n in graph.nodes] == [()]


def test_a_name_with_and_without_its_accents_is_one_entity() -> None:
    graph = build(
        ("a.md", [entity("Ana López", "person"), entity("Café Nero")]),
        ("b.md", [entity("Ana Lopez", "person"), entity("Cafe Nero", "organization")]),
    )
    assert titles(graph) == {"ana-lopez": ("Ana Lopez", "person"), "cafe-nero": ("Cafe Nero", "organization")}
    assert ("ana-lopez", "Ana Lopez + Ana López", "the same name without its accents") in graph.merges
    # Two accented spellings meet on the bare one even when nobody writes it.
    graph = build(("a.md", [entity("Zoë", "person")]), ("b.md", [entity("Zoé", "person")]))
    assert len(graph.entities) == 1
    # Types that disagree stay apart.
    graph = build(("a.md", [entity("Mérida", "place")]), ("b.md", [entity("Merida", "person")]))
    assert len(graph.entities) == 2
    assert not [m for m in graph.merges if m[2] == "the same name without its accents"]


def test_legal_forms_one_or_two_are_the_company() -> None:
    names = ["Globex Limited", "Hooli PLC", "Acme Co.", "Initech Pty Ltd", "Umbrella AG"]
    graph = build(
        ("a.md", [entity(n) for n in names]),
        ("b.md", [entity(n.split()[0], "organization") for n in names]),
    )
    assert sorted(titles(graph)) == ["acme", "globex", "hooli", "initech", "umbrella"]
    assert ("initech", "Initech + Initech Pty Ltd", "the same name with “pty ltd”") in graph.merges
    # A legal form says a company: a person of that name is not one.
    graph = build(("a.md", [entity("Jordan", "person")]), ("b.md", [entity("Jordan Ltd")]))
    assert len(graph.entities) == 2


def test_a_surname_the_notes_name_on_its_own_is_not_the_titled_person() -> None:
    # "Dr. Grant is a surgeon at Leeds General Infirmary." and "Grant works at Arup." (a friend).
    graph = build(("a.md", [entity("Dr. Grant", "person")]), ("b.md", [entity("Grant", "person")]))
    assert set(titles(graph)) == {"dr-grant", "grant"}


def test_two_legal_forms_of_one_company_are_one_without_its_bare_name() -> None:
    graph = build(
        ("a.md", [entity("Acme Ltd", "organization")]), ("b.md", [entity("Acme Limited", "organization")])
    )
    assert titles(graph) == {"acme-limited": ("Acme Limited", "organization")}
    assert graph.merges == (
        ("acme-limited", "Acme Limited + Acme Ltd", "the same name with another legal form"),
    )


def _lunch_with(first: str, *notes: str, writer: str | None = None) -> tuple[str, ...]:
    """The entities "Had lunch with <first>." in a daily note names, beside these people's notes."""
    sources = [source(n, meta={"type": "person"}) for n in notes]
    daily = source("daily/2025-01-15.md")
    sources.append(replace(daily, writer=writer) if writer else daily)
    extractions = [extraction(n, 0, (1, 1), entities=[entity(n[7:-3], "person")]) for n in notes] + [
        extraction("daily/2025-01-15.md", 0, (1, 1), nodes=[episode(f"Had lunch with {first}.")])
    ]
    graph = link(sources, extractions)
    (node,) = graph.nodes
    assert graph.merges == ()  # an alias of the note, as its file name is: no merge to list
    return node.entities


def test_a_persons_note_makes_its_first_name_hers_in_the_diary() -> None:
    assert _lunch_with("Ana", "people/Ana Lopez.md") == ("ana-lopez",)
    # Two people of that first name, a first name that is as often a word, or the writer's: nobody.
    assert _lunch_with("Ana", "people/Ana Lopez.md", "people/Ana Silva.md") == ()
    assert _lunch_with("Will", "people/Will Turner.md") == ()
    assert _lunch_with("Sam", "people/Sam Lee.md", writer="Sam") == ()


def test_a_pets_note_says_what_a_line_about_its_medicine_cannot() -> None:
    """`type: pet` and "[[Miso]] is on gabapentin": a pet; a person named like a city stays a person."""
    sources = [
        source("pets/Miso.md", meta={"type": "pet"}),
        source("daily/2025-02-02.md"),
        source("places/Florence.md", meta={"type": "city"}),
    ]
    graph = build(
        ("daily/2025-02-02.md", [entity("Miso", "person"), entity("Florence", "person")]),
        sources=sources,
    )
    assert titles(graph) == {"miso": ("Miso", "pet"), "florence": ("Florence", "person")}


def test_a_persons_note_headed_by_their_full_name_is_met_by_it() -> None:
    """`people/Mark.md` opening `# Mark Ellis`: "Mark Ellis" elsewhere is that Mark."""
    noted = replace(source("people/Mark.md"), text="# Mark Ellis\nMy guitar teacher.\n")
    graph = build(
        ("people/Mark.md", [entity("Mark", "person")]),
        ("daily/2025-02-02.md", [entity("Mark Ellis", "person")]),
        sources=[noted, source("daily/2025-02-02.md")],
    )
    assert titles(graph) == {"mark": ("Mark", "person")}
    # Not a heading that is no full name of the title's.
    other = replace(source("people/Mark.md"), text="# Guitar lessons\n")
    apart = build(
        ("people/Mark.md", [entity("Mark", "person")]),
        ("daily/2025-02-02.md", [entity("Mark Ellis", "person")]),
        sources=[other, source("daily/2025-02-02.md")],
    )
    assert set(titles(apart)) == {"mark", "mark-ellis"}

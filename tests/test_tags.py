"""Pass 2, tags: leaf forms, breadcrumbs from nested tags, co-occurrence and folders; counts and splits."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from kgvault.tags import _SYNONYMS, SPLIT_THRESHOLD, TaggedNode, TagTree, build_tag_tree

ROOT = Path(__file__).resolve().parent.parent


def node(*tags: str, path: str = "inbox/note.md") -> TaggedNode:
    return TaggedNode(paths=(path,), tags=tags)


def times(count: int, *tags: str, path: str = "inbox/note.md") -> list[TaggedNode]:
    return [node(*tags, path=path) for _ in range(count)]


def canonical(*nodes: TaggedNode) -> dict[str, str]:
    return build_tag_tree(nodes).canonical


def reasons(tree: TagTree) -> dict[str, str]:
    return {tag: reason for tag, _, reason in tree.changes}


# -- rule 1: leaf forms -------------------------------------------------------------------------


def test_spellings_that_differ_only_by_separators_fold_into_the_most_used() -> None:
    tree = build_tag_tree([*times(2, "3dprinting"), node("3d_printing")])
    assert tree.canonical == {"3d_printing": "3dprinting", "3dprinting": "3dprinting"}
    assert tree.changes == (("3d_printing", "3dprinting", "spelling of 3dprinting"),)


def test_a_spelling_tie_goes_to_the_form_with_separators() -> None:
    assert canonical(node("3dprinting"), node("3d_printing")) == {
        "3d_printing": "3d_printing",
        "3dprinting": "3d_printing",
    }


def test_plurals_fold_into_a_singular_that_occurs() -> None:
    tree = build_tag_tree(
        [node(tag) for tag in ("printers", "printer", "libraries", "library", "classes", "class")]
        + [node("boxes", "box"), node("3d_printers"), node("3d_printer")]
    )
    assert tree.canonical == {
        "3d_printer": "3d_printer",
        "3d_printers": "3d_printer",
        "box": "box",
        "boxes": "box",
        "class": "class",
        "classes": "class",
        "libraries": "library",
        "library": "library",
        "printer": "printer",
        "printers": "printer",
    }
    assert reasons(tree)["printers"] == "plural of printer"


def test_a_plural_stays_when_its_singular_never_occurs() -> None:
    tree = build_tag_tree([node("printers"), node("libraries")])
    assert tree.changes == ()


def test_words_that_only_look_plural_are_untouched() -> None:
    tags = ["class", "clas", "status", "statu", "analysis", "analysi", "windows", "window"]
    tags += ["electronics", "electronic", "news", "new", "ios", "io"]
    assert build_tag_tree([node(tag) for tag in tags]).changes == ()


def test_synonyms_fold_when_the_target_occurs_or_they_are_unambiguous() -> None:
    tree = build_tag_tree([node("js"), node("javascript"), node("k8s"), node("todos"), node("ts")])
    assert tree.canonical == {
        "javascript": "javascript",
        "js": "javascript",
        "k8s": "kubernetes",
        "todos": "todo",
        "ts": "ts",  # timestamps or TypeScript: not without `typescript` in the corpus
    }
    assert reasons(tree)["js"] == "synonym of javascript"


def test_the_synonym_table_is_short_and_acyclic() -> None:
    assert len(_SYNONYMS) <= 20
    assert not set(_SYNONYMS.values()) & set(_SYNONYMS)
    assert all("_" not in key for key in _SYNONYMS)


def test_every_level_of_a_path_is_folded() -> None:
    tree = build_tag_tree([node("projects/printers"), node("project/printer"), node("project")])
    assert tree.canonical["projects/printers"] == "project/printer"
    assert reasons(tree)["projects/printers"] == "plural of project; plural of printer"


def test_leaves_under_different_parents_are_not_folded() -> None:
    assert build_tag_tree([node("hardware/printers"), node("software/printer")]).changes == ()


# -- rule 2: breadcrumbs from nested tags --------------------------------------------------------


def test_a_flat_tag_goes_under_the_nested_path_that_ends_with_it() -> None:
    tree = build_tag_tree([node("klipper"), node("printing/klipper")])
    assert tree.canonical["klipper"] == "printing/klipper"
    assert tree.changes == (("klipper", "printing/klipper", "nested under printing (as tagged elsewhere)"),)


def test_the_nested_path_with_most_nodes_wins_then_the_first_by_name() -> None:
    most = [node("klipper"), *times(2, "printing/klipper"), node("firmware/klipper")]
    assert canonical(*most)["klipper"] == "printing/klipper"
    tie = [node("klipper"), node("printing/klipper"), node("firmware/klipper")]
    assert canonical(*tie)["klipper"] == "firmware/klipper"


def test_nested_tags_and_tags_with_children_are_never_renested() -> None:
    tags = ["hardware/klipper", "printing/klipper", "marlin", "marlin/config", "firmware/marlin"]
    tree = build_tag_tree([node(tag) for tag in tags])
    assert tree.changes == ()


# -- rule 3: co-occurrence ------------------------------------------------------------------------


def corpus(child: str, parent: str, together: int, alone: int, parent_only: int) -> list[TaggedNode]:
    """`child` on together + alone nodes, `parent` on together + parent_only nodes."""
    return [*times(together, child, parent), *times(alone, child), *times(parent_only, parent)]


def test_a_tag_nearly_always_seen_with_a_bigger_one_goes_under_it() -> None:
    tree = build_tag_tree(corpus("petg", "3d_printing", together=9, alone=1, parent_only=11))
    assert tree.canonical["petg"] == "3d_printing/petg"
    assert reasons(tree)["petg"] == "nested under 3d_printing (co-occurs in 90% of its nodes)"


def test_eighty_percent_is_not_enough() -> None:
    assert canonical(*corpus("petg", "3d_printing", together=8, alone=2, parent_only=30))["petg"] == "petg"


def test_the_parent_must_be_twice_as_big() -> None:
    assert canonical(*corpus("petg", "3d_printing", together=10, alone=0, parent_only=9))["petg"] == "petg"
    assert canonical(*corpus("petg", "3d_printing", together=10, alone=0, parent_only=10))["petg"] == (
        "3d_printing/petg"
    )


def test_two_nodes_are_no_pattern() -> None:
    assert canonical(*corpus("petg", "3d_printing", together=2, alone=0, parent_only=10))["petg"] == "petg"


def test_the_parent_seen_most_often_wins_then_the_biggest_then_the_first_by_name() -> None:
    often = [*times(9, "petg", "filament", "printing"), node("petg", "filament"), *times(20, "printing")]
    often += times(10, "filament")
    assert canonical(*often)["petg"] == "filament/petg"
    bigger = [*times(10, "petg", "filament", "printing"), *times(30, "printing"), *times(10, "filament")]
    assert canonical(*bigger)["petg"] == "printing/petg"
    tie = [*times(10, "petg", "filament", "printing"), *times(10, "printing"), *times(10, "filament")]
    assert canonical(*tie)["petg"] == "filament/petg"


def test_a_parent_is_not_moved_in_the_same_build() -> None:
    # petg -> filament (100%); filament would go under printing (90%), but it now has a child.
    nodes = [*times(8, "petg", "filament", "printing"), *times(2, "petg", "filament")]
    nodes += [*times(10, "filament", "printing"), *times(22, "printing")]
    tree = build_tag_tree(nodes)
    assert tree.canonical["petg"] == "filament/petg"
    assert tree.canonical["filament"] == "filament"


def test_a_tag_nested_elsewhere_counts_for_its_new_root() -> None:
    nodes = [*times(3, "petg", "klipper"), node("printing/klipper"), *times(3, "printing")]
    assert canonical(*nodes) == {
        "klipper": "printing/klipper",
        "petg": "printing/petg",
        "printing": "printing",
        "printing/klipper": "printing/klipper",
    }


# -- rule 4: folders ------------------------------------------------------------------------------


def test_a_tag_whose_nodes_all_live_in_a_folder_goes_under_the_folder_tag() -> None:
    nodes = [node("ender", path=f"Projects/printer/{n}.md") for n in range(3)]
    nodes += [node("projects", path="inbox/index.md")]
    tree = build_tag_tree(nodes)
    assert tree.canonical["ender"] == "projects/ender"
    assert reasons(tree)["ender"] == "nested under projects (folder)"


def test_the_deepest_folder_named_like_a_tag_wins() -> None:
    nodes = [node("ender", path=f"projects/3D Printer/{n}.md") for n in range(3)]
    nodes += [node("projects"), node("3d_printer")]
    assert canonical(*nodes)["ender"] == "3d_printer/ender"


def test_a_folder_alone_makes_no_breadcrumb() -> None:
    nodes = [node("ender", path=f"projects/{n}.md") for n in range(3)]
    assert canonical(*nodes)["ender"] == "ender"


def test_the_folder_tag_must_be_used_by_other_nodes() -> None:
    nodes = [node("ender", "projects", path=f"projects/{n}.md") for n in range(3)]
    assert canonical(*nodes)["ender"] == "ender"


def test_every_node_must_live_in_the_folder() -> None:
    nodes = [node("ender", path=f"projects/{n}.md") for n in range(3)]
    nodes += [node("ender", path="inbox/ender.md"), node("projects")]
    assert canonical(*nodes)["ender"] == "ender"
    two = [node("ender", path=f"projects/{n}.md") for n in range(2)] + [node("projects")]
    assert canonical(*two)["ender"] == "ender"


def test_a_node_from_several_files_must_have_them_all_in_the_folder() -> None:
    inside = TaggedNode(paths=("projects/a.md", "projects/sub/b.md"), tags=("ender",))
    outside = TaggedNode(paths=("projects/a.md", "inbox/b.md"), tags=("ender",))
    assert canonical(inside, inside, inside, node("projects"))["ender"] == "projects/ender"
    assert canonical(inside, inside, outside, node("projects"))["ender"] == "ender"


def test_a_folder_of_digits_is_never_a_level() -> None:
    nodes = [node("ender", path=f"2024/{n}.md") for n in range(3)] + [node("2024")]
    assert canonical(*nodes)["ender"] == "ender"


# -- apply, counts, split candidates -------------------------------------------------------------


def test_apply_maps_dedupes_and_drops_a_parent_of_another_tag() -> None:
    tree = build_tag_tree([node("printers"), node("printer"), node("printing/klipper"), node("klipper")])
    assert tree.apply(["printers", "printer", "printing", "printing/klipper", "unseen"]) == (
        "printer",
        "printing/klipper",
        "unseen",
    )
    assert tree.apply(["klipper", "printing"]) == ("printing/klipper",)
    assert tree.apply([]) == ()


def test_counts_include_every_parent_level_and_each_node_once() -> None:
    tree = build_tag_tree([node("a/b/c", "a"), node("a/b"), node("a/x", "a/b/c"), node("z")])
    assert tree.counts == (("a", 3), ("a/b", 3), ("a/b/c", 2), ("a/x", 1), ("z", 1))


def test_counts_follow_moved_tags() -> None:
    tree = build_tag_tree([node("klipper"), node("klipper"), node("printing/klipper")])
    assert tree.counts == (("printing", 3), ("printing/klipper", 3))


def test_leaves_with_more_than_fifty_nodes_are_split_candidates() -> None:
    nodes = [*times(SPLIT_THRESHOLD + 1, "big"), *times(SPLIT_THRESHOLD, "fifty")]
    nodes += [*times(60, "parent"), node("parent/child"), *times(SPLIT_THRESHOLD + 2, "bigger")]
    assert build_tag_tree(nodes).split_candidates == (("bigger", 52), ("big", 51))


# -- determinism and scale ------------------------------------------------------------------------


def mixed_corpus() -> list[TaggedNode]:
    """A corpus where every rule fires, in a fixed order."""
    nodes = [node("3dprinting"), *times(2, "3d_printing"), node("printers"), node("printer")]
    nodes += [node("js"), node("javascript"), node("klipper"), node("printing/klipper")]
    nodes += corpus("petg", "filament", together=9, alone=1, parent_only=12)
    nodes += [node("ender", "printer", path=f"projects/printer/{n}.md") for n in range(3)]
    nodes += [node("projects", "status"), node("a/b", "a")]
    return nodes


def test_the_order_of_nodes_and_tags_does_not_matter() -> None:
    first = build_tag_tree(mixed_corpus())
    assert [tag for tag, _, _ in first.changes] == [
        "3dprinting",
        "ender",
        "js",
        "klipper",
        "petg",
        "printers",
    ]
    rng = random.Random(5)
    for _ in range(5):
        nodes = [TaggedNode(n.paths, tuple(rng.sample(n.tags, len(n.tags)))) for n in mixed_corpus()]
        rng.shuffle(nodes)
        assert build_tag_tree(nodes) == first


def test_the_hash_seed_does_not_matter() -> None:
    expected = repr(build_tag_tree(mixed_corpus()))
    script = "from kgvault.tags import build_tag_tree; from tests.test_tags import mixed_corpus as m; "
    script += "print(repr(build_tag_tree(m())))"
    for seed in ("0", "1", "4242"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        out = subprocess.run(
            [sys.executable, "-c", script], env=env, cwd=ROOT, capture_output=True, text=True, check=True
        )
        assert out.stdout.strip() == expected


WORDS = ["printer", "printers", "print_er", "class", "js", "javascript", "a", "2024", "box", "boxes"]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.lists(st.lists(st.sampled_from(WORDS), min_size=1, max_size=3), min_size=1, max_size=3),
            st.sampled_from(["a/x.md", "printer/y.md", "box/z.md", "z.md"]),
        ),
        max_size=25,
    )
)
def test_any_corpus_gives_valid_paths_and_consistent_counts(
    raw: list[tuple[list[list[str]], str]],
) -> None:
    nodes = [TaggedNode((path,), tuple("/".join(levels) for levels in tags)) for tags, path in raw]
    tree = build_tag_tree(nodes)
    for tag, path in tree.canonical.items():
        changed = path != tag
        for segment in path.split("/"):
            # A new segment is never empty or only digits; `2024` only stays where the input had it.
            assert segment and (not segment.isdigit() or not changed or segment in tag.split("/"))
    counts = dict(tree.counts)
    for path, number in counts.items():
        parent = path.rpartition("/")[0]
        assert not parent or counts[parent] >= number
    assert build_tag_tree(nodes[::-1]) == tree


def scale_corpus(size: int = 60_000, distinct: int = 2_000) -> list[TaggedNode]:
    """A large corpus with a few planted patterns among skewed random tags."""
    rng = random.Random(11)
    vocabulary = [f"topic_{n:04d}" if n % 5 else f"area_{n % 40}/topic_{n:04d}" for n in range(distinct)]
    weights = [1 / (rank + 1) for rank in range(distinct)]
    folders = [f"area{a}/sub{b}" for a in range(20) for b in range(10)]
    nodes = []
    for number in range(size):
        tags = tuple(rng.choices(vocabulary, weights=weights, k=rng.randint(1, 4)))
        if number % 3 == 0:
            tags += ("3d_printing",)
        if number % 300 == 0:
            tags += ("petg", "printers")
        if number % 500 == 0:
            tags += ("printer",)
        nodes.append(TaggedNode((f"{rng.choice(folders)}/note{number % 3000}.md",), tags))
    return nodes


def test_sixty_thousand_nodes_build_a_consistent_tree() -> None:
    tree = build_tag_tree(scale_corpus())
    assert tree.canonical["petg"] == "3d_printing/petg"
    assert tree.canonical["printers"] == "printer"
    assert len(tree.canonical) >= 1_900
    counts = dict(tree.counts)
    assert counts["3d_printing"] == 20_000
    assert counts["3d_printing/petg"] == 200
    assert tree.split_candidates[0][1] >= tree.split_candidates[-1][1] > SPLIT_THRESHOLD

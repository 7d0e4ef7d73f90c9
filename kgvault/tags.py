"""Pass 2, tags: one canonical nested path per tag, decided over the whole corpus (DESIGN §1, §3).

The rules run in order, each conservative (a missed merge is cheap, a false one misfiles notes):

1. *leaf forms*: under one parent path, spellings that differ only by `_`, plurals whose singular
   also occurs, and a short synonym table fold into one leaf; every level of a path is folded;
2. *tagged elsewhere*: a flat tag that occurs as the leaf of a nested path goes under that path;
3. *co-occurrence*: a flat tag whose nodes nearly always carry a much bigger root goes under it;
4. *folders*: a flat tag whose nodes all come from one folder named like a root goes under it.

A *root* is the first level of any path, counted with every node under it (`3d_printing` holds the
nodes of `3d_printing/petg`). Rules 2-4 move only flat tags with no child path, by one level, and a
tag chosen as a parent in a rule is not moved by that rule: no tag moves twice, the tree has no cycle.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import chain, islice
from operator import attrgetter

from kgvault.extract.offline import normalize_tag
from kgvault.records import record

SPLIT_THRESHOLD = 50
"""A leaf with more nodes than this is listed in ontology.md as a candidate to split."""
MIN_NODES_TO_NEST = 3
"""Rules 3 and 4 read a pattern; fewer nodes than this is no pattern."""
CO_OCCURRENCE_PERCENT = 90
PARENT_FACTOR = 2
"""A co-occurrence parent has at least this many times the nodes of its child."""
_DIRECT_CANDIDATES = 16
"""Below this many big enough roots, intersecting each costs less than sampling the nodes first."""

# Keys are spellings without `_` (rule 1 folds separators first). Short or overloaded abbreviations
# (`ts`, `db`, `ml`) fold only when their target occurs under the same parent.
_SYNONYMS: Mapping[str, str] = {
    "todos": "todo",
    "meetings": "meeting",
    "k8s": "kubernetes",
    "kube": "kubernetes",
    "js": "javascript",
    "ts": "typescript",
    "py": "python",
    "ml": "machine_learning",
    "db": "database",
    "postgres": "postgresql",
    "reactjs": "react",
    "vuejs": "vue",
    "rpi": "raspberry_pi",
    "raspi": "raspberry_pi",
    "docs": "documentation",
}
_UNAMBIGUOUS = frozenset({"todos", "meetings", "k8s"})
"""Synonyms that fold even when their target never occurs."""

# Words that end in `s` without being the plural of a tag people also use (`windows` is not more than
# one `window`); `-ics` words are disciplines more often than plurals, so they are never folded either.
_NOT_PLURAL = frozenset(
    {
        *("news", "series", "species", "windows", "kubernetes", "lens", "glasses", "minutes", "means"),
        *("sales", "goods", "canvas", "atlas", "alias", "bias", "pandas", "chaos", "kudos", "macos", "ethos"),
    }
)
_NEVER_PLURAL_ENDINGS = ("ss", "us", "is", "ics")
_MIN_SINGULAR_CHARS = 3


@record
class TaggedNode:
    """What the tag tree needs of a node: its source files and its tags."""

    paths: tuple[str, ...]
    """Relative posix paths of the node's source files (`projects/printer/ender.md`)."""
    tags: tuple[str, ...]
    """Tags as `normalize_tag` left them (`3d_printing`, `projects/ender_3`)."""


@dataclass(frozen=True, slots=True)
class TagTree:
    """The canonical tag paths of a corpus, with counts, what changed and why, and split candidates."""

    canonical: dict[str, str]
    """Every input tag -> its canonical path (identity when unchanged)."""
    counts: tuple[tuple[str, int], ...]
    """(path, nodes under it), sorted by path; every parent level counted, each node once per path."""
    changes: tuple[tuple[str, str, str], ...]
    """(input tag, canonical path, reason) for every tag that changed, sorted."""
    split_candidates: tuple[tuple[str, int], ...]
    """Leaf paths with more than SPLIT_THRESHOLD nodes, most nodes first, then by path."""

    def apply(self, tags: Iterable[str]) -> tuple[str, ...]:
        """Return the canonical tags of one node, sorted, without a tag another of them is nested under."""
        mapped = {self.canonical.get(tag, tag) for tag in tags if tag}
        # `printing/klipper` already says `printing`: Obsidian counts the parent from the nested tag.
        parents = {ancestor for tag in mapped for ancestor in _ancestors(tag)}
        return tuple(sorted(mapped - parents))


# Node ids are positions in the input. Only the sizes of node sets decide anything, so the order of
# the input never changes the tree; sets of ids make co-occurrence a C-level intersection.
_NodeSets = dict[str, set[int]]
# Every path (and parent level) -> (its path after rule 1, why it changed).
_Renamed = dict[str, tuple[str, tuple[str, ...]]]
# A rule's moves: flat tag -> (its new path, why).
_Moves = dict[str, tuple[str, str]]


@dataclass(frozen=True, slots=True)
class _Index:
    """The corpus seen from its tags: who carries each tag, and where each node's sources are."""

    tags: tuple[tuple[str, ...], ...]
    """Tags of each node, by node id."""
    paths: tuple[tuple[str, ...], ...]
    """Source paths of each node, by node id."""
    carriers: dict[str, list[int]]
    """Input tag -> ids of the nodes carrying it."""


def build_tag_tree(nodes: Sequence[TaggedNode], hints: Mapping[str, str] | None = None) -> TagTree:
    """Decide the canonical nested path of every tag of the corpus.

    `hints` (a model's advice, `--llm-link`) name a parent path for tags the rules leave flat;
    they apply only after every rule, and only under a root the corpus already has.
    """
    index = _index_nodes(nodes)
    raw_subtrees = _subtree_nodes(index.carriers)
    renamed = _fold_leaf_forms({path: len(ids) for path, ids in raw_subtrees.items()})
    subtrees = _merge_renamed(raw_subtrees, renamed)
    tags = sorted({renamed[tag][0] for tag in index.carriers})

    moves = _nest_as_tagged_elsewhere(tags, subtrees)
    moves |= _nest_by_co_occurrence(index, renamed, tags, subtrees, moves)
    moves |= _nest_under_folders(index, tags, subtrees, moves)
    if hints:
        moves |= _nest_by_hints(tags, subtrees, moves, hints)
    return _assemble(index, renamed, subtrees, moves)


def flat_tags(tree: TagTree) -> list[tuple[str, int]]:
    """The tags the rules left flat (no parent, no child), with their counts: what a model may file."""
    paths = [path for path, _ in tree.counts]
    parents = {ancestor for path in paths for ancestor in _ancestors(path)}
    return [(path, count) for path, count in tree.counts if "/" not in path and path not in parents]


def _ancestors(path: str) -> Iterable[str]:
    """Yield the proper prefixes of a tag path (`a/b/c` -> `a`, `a/b`)."""
    index = path.find("/")
    while index != -1:
        yield path[:index]
        index = path.find("/", index + 1)


def _root(path: str) -> str:
    """Return the first level of a tag path."""
    return path.partition("/")[0]


def _spelling_key(leaf: str) -> str:
    """Return what stays of a leaf when separators are ignored (`3d_printing` -> `3dprinting`)."""
    return leaf.replace("_", "")


def is_segment(text: str) -> bool:
    """Tell whether text can be one level of an Obsidian tag (not empty, not only digits)."""
    return bool(text) and not text.replace("_", "").isdigit()


@lru_cache(maxsize=4096)
def _folder_tag(name: str) -> str | None:
    """Return a folder name normalized like a one-level tag, or None when it is no tag."""
    tag = normalize_tag(name)
    return tag if tag is not None and "/" not in tag else None


def _common_folder(paths: tuple[str, ...]) -> str:
    """Return the deepest folder holding every path (`""` for the notes root)."""
    folders = [path.rpartition("/")[0] for path in paths]
    if not folders:
        return ""
    shared = folders[0]
    for folder in folders[1:]:
        while shared and folder != shared and not folder.startswith(shared + "/"):
            shared = shared.rpartition("/")[0]
    return shared


def _index_nodes(nodes: Sequence[TaggedNode]) -> _Index:
    """Number the nodes and list the carriers of every tag."""
    carriers: defaultdict[str, list[int]] = defaultdict(list)
    for number, tags in enumerate(map(attrgetter("tags"), nodes)):
        for tag in tags:
            carriers[tag].append(number)
    carriers.pop("", None)
    return _Index(
        tuple(map(attrgetter("tags"), nodes)), tuple(map(attrgetter("paths"), nodes)), dict(carriers)
    )


def _subtree_nodes(carriers: Mapping[str, list[int]]) -> _NodeSets:
    """Return the ids of the nodes under every tag path and parent level, each node once."""
    subtrees: _NodeSets = {}
    for tag, ids in carriers.items():
        for level in (tag, *_ancestors(tag)):
            found = subtrees.get(level)
            if found is None:
                subtrees[level] = set(ids)
            else:
                found.update(ids)
    return subtrees


def _merge_renamed(subtrees: _NodeSets, renamed: _Renamed) -> _NodeSets:
    """Return the node ids under every path after rule 1 (read-only: unmerged sets are shared)."""
    parts: defaultdict[str, list[set[int]]] = defaultdict(list)
    for path, ids in subtrees.items():
        parts[renamed[path][0]].append(ids)
    return {path: sets[0] if len(sets) == 1 else set().union(*sets) for path, sets in parts.items()}


# -- rule 1: leaf forms -------------------------------------------------------------------------


def _singulars(leaf: str) -> Iterable[str]:
    """Yield the singular forms an English plural leaf could have, most likely first."""
    word = leaf.rpartition("_")[2]
    if not word.endswith("s") or word.endswith(_NEVER_PLURAL_ENDINGS) or word in _NOT_PLURAL:
        return
    candidates = [leaf[:-1]]
    if leaf.endswith("ies"):
        candidates.insert(0, leaf[:-3] + "y")
    if leaf.endswith(("ses", "xes", "zes", "ches", "shes")):
        candidates.append(leaf[:-2])
    for candidate in candidates:
        singular_word = candidate.rpartition("_")[2]
        if len(singular_word) >= _MIN_SINGULAR_CHARS and is_segment(candidate):
            yield candidate


def _fold_forms(forms: Mapping[str, int]) -> dict[str, tuple[str, tuple[str, ...]]]:
    """Fold sibling leaves (leaf -> nodes) into canonical leaves; return leaf -> (new leaf, reasons)."""
    spellings: defaultdict[str, list[str]] = defaultdict(list)
    for leaf in forms:
        spellings[_spelling_key(leaf)].append(leaf)
    # Most used spelling; on a tie the one with separators (`3d_printing`), then the first in order.
    chosen = {
        key: min(leaves, key=lambda leaf: (-forms[leaf], -leaf.count("_"), leaf))
        for key, leaves in spellings.items()
    }
    plural_of: dict[str, str] = {}
    for key, leaf in chosen.items():
        singular = next((_spelling_key(s) for s in _singulars(leaf) if _spelling_key(s) in chosen), None)
        if singular is not None and singular != key:
            plural_of[key] = singular
    # A singular that is itself folded as a plural would chain (`canvases` -> `canvas` -> `canva`): stop.
    plural_of = {key: singular for key, singular in plural_of.items() if singular not in plural_of}

    folded: dict[str, tuple[str, tuple[str, ...]]] = {}
    for leaf in forms:
        key = _spelling_key(leaf)
        reasons: list[str] = []
        new_leaf = chosen[key]
        if new_leaf != leaf:
            reasons.append(f"spelling of {new_leaf}")
        if key in plural_of:
            new_leaf = chosen[plural_of[key]]
            reasons.append(f"plural of {new_leaf}")
        elif key in _SYNONYMS:
            target = _SYNONYMS[key]
            target_key = _spelling_key(target)
            if target_key in chosen:
                new_leaf = chosen[plural_of.get(target_key, target_key)]
                reasons.append(f"synonym of {new_leaf}")
            elif key in _UNAMBIGUOUS:
                new_leaf = target
                reasons.append(f"synonym of {new_leaf}")
        if new_leaf != leaf:
            folded[leaf] = (new_leaf, tuple(reasons))
    return folded


def _fold_leaf_forms(counts: Mapping[str, int]) -> dict[str, tuple[str, tuple[str, ...]]]:
    """Fold leaf forms level by level; return every path -> (path after rule 1, reasons)."""
    by_depth: defaultdict[int, list[str]] = defaultdict(list)
    for path in sorted(counts):
        by_depth[path.count("/")].append(path)
    renamed: dict[str, tuple[str, tuple[str, ...]]] = {}
    for depth in sorted(by_depth):
        # Siblings are grouped under their parent's new path, so `projects/x` and `project/x` meet.
        siblings: defaultdict[str, Counter[str]] = defaultdict(Counter)
        for path in by_depth[depth]:
            parent, _, leaf = path.rpartition("/")
            siblings[renamed[parent][0] if parent else ""][leaf] += counts[path]
        folded = {parent: _fold_forms(forms) for parent, forms in siblings.items()}
        for path in by_depth[depth]:
            parent, _, leaf = path.rpartition("/")
            new_parent, reasons = renamed[parent] if parent else ("", ())
            new_leaf, why = folded[new_parent].get(leaf, (leaf, ()))
            new_path = f"{new_parent}/{new_leaf}" if new_parent else new_leaf
            renamed[path] = (new_path, reasons + tuple(r for r in why if r not in reasons))
    return renamed


# -- rules 2-4: nesting flat tags ---------------------------------------------------------------


def _current(tag: str, moves: _Moves) -> str:
    """Return where a tag is after the moves so far."""
    move = moves.get(tag)
    return move[0] if move else tag


def _movable(tags: Sequence[str], subtrees: _NodeSets, moves: _Moves, least: int) -> list[str]:
    """Return the flat, unmoved tags with no child path and at least `least` nodes, sorted."""
    parents = {ancestor for path in subtrees for ancestor in _ancestors(_current(path, moves))}
    return [
        tag
        for tag in tags
        if "/" not in tag and tag not in moves and tag not in parents and len(subtrees[tag]) >= least
    ]


def _root_nodes(subtrees: _NodeSets, moves: _Moves) -> _NodeSets:
    """Return the ids of the nodes under every root after the moves so far (read-only sets)."""
    parts: defaultdict[str, list[set[int]]] = defaultdict(list)
    for path, ids in subtrees.items():
        if "/" not in path:
            parts[_root(_current(path, moves))].append(ids)
    # One union per root: adding moved tags one by one would copy a big root once per tag.
    return {root: sets[0] if len(sets) == 1 else set().union(*sets) for root, sets in parts.items()}


def _nest_as_tagged_elsewhere(tags: Sequence[str], subtrees: _NodeSets) -> _Moves:
    """Rule 2: put a flat tag under the nested path that ends with it (most nodes, then first by name)."""
    movable = set(_movable(tags, subtrees, {}, 1))
    best: dict[str, str] = {}
    for path, ids in subtrees.items():
        parent, _, leaf = path.rpartition("/")
        if parent and leaf in movable and all(map(is_segment, parent.split("/"))):
            seen = best.get(leaf)
            if seen is None or (-len(ids), path) < (-len(subtrees[seen]), seen):
                best[leaf] = path
    return {
        tag: (path, f"nested under {path.rpartition('/')[0]} (as tagged elsewhere)")
        for tag, path in sorted(best.items())
    }


def _possible_parents(
    carriers: set[int], misses: int, node_tags: Sequence[tuple[str, ...]], root_of: Mapping[str, str]
) -> list[str]:
    """Return the roots that may be on all but `misses` of the nodes, from a sample of the nodes.

    Such a root is on at least `m - misses` of *any* m of the nodes, so the sample prunes exactly (the
    same result whichever nodes it holds) and unrelated roots cost no set intersection.
    """
    size = min(len(carriers), 2 * misses + 2)
    hits = Counter(
        chain.from_iterable(
            {root_of[tag] for tag in node_tags[node] if tag} for node in islice(carriers, size)
        )
    )
    return [root for root, number in hits.items() if number + misses >= size]


def _nest_by_co_occurrence(
    index: _Index, renamed: _Renamed, tags: Sequence[str], subtrees: _NodeSets, moves: _Moves
) -> _Moves:
    """Rule 3: put a flat tag under the root its nodes nearly always carry, if that root is twice as big."""
    roots = _root_nodes(subtrees, moves)
    by_size = sorted(roots, key=lambda root: (-len(roots[root]), root))
    negative_sizes = [-len(roots[root]) for root in by_size]
    root_of = {tag: _root(_current(renamed[tag][0], moves)) for tag in index.carriers}
    best: dict[str, tuple[str, int]] = {}
    for tag in _movable(tags, subtrees, moves, MIN_NODES_TO_NEST):
        carriers = subtrees[tag]
        number = len(carriers)
        misses = number - (number * CO_OCCURRENCE_PERCENT + 99) // 100
        # Roots twice as big are few for big tags: intersect them all. Else sampling is cheaper.
        big = bisect_right(negative_sizes, -PARENT_FACTOR * number)
        if big <= _DIRECT_CANDIDATES:
            candidates = by_size[:big]
        else:
            candidates = _possible_parents(carriers, misses, index.tags, root_of)
        for root in candidates:
            if root == tag or len(roots[root]) < PARENT_FACTOR * number or not is_segment(root):
                continue
            both = len(carriers & roots[root])
            if both * 100 < number * CO_OCCURRENCE_PERCENT:
                continue
            seen = best.get(tag)
            if seen is None or (-both, -len(roots[root]), root) < (-seen[1], -len(roots[seen[0]]), seen[0]):
                best[tag] = (root, both)
    # One level per build: a tag that receives a child stays where it is.
    parents = {root for root, _ in best.values()}
    return {
        tag: (
            f"{root}/{tag}",
            f"nested under {root} (co-occurs in {100 * both // len(subtrees[tag])}% of its nodes)",
        )
        for tag, (root, both) in sorted(best.items())
        if tag not in parents
    }


def _all_inside(
    carriers: Iterable[int],
    folder: str,
    paths: Sequence[tuple[str, ...]],
    folder_of: dict[tuple[str, ...], str],
) -> bool:
    """Tell whether every source of every node lies inside the folder (`folder_of` caches per paths)."""
    prefix = folder + "/"
    for node in carriers:
        node_paths = paths[node]
        shared = folder_of.get(node_paths)
        if shared is None:
            shared = folder_of[node_paths] = _common_folder(node_paths)
        if shared != folder and not shared.startswith(prefix):
            return False
    return True


def _nest_under_folders(index: _Index, tags: Sequence[str], subtrees: _NodeSets, moves: _Moves) -> _Moves:
    """Rule 4: put a flat tag under the root named like the deepest folder holding all its nodes."""
    roots = _root_nodes(subtrees, moves)
    folder_of: dict[tuple[str, ...], str] = {}
    chosen: dict[str, str] = {}
    for tag in _movable(tags, subtrees, moves, MIN_NODES_TO_NEST):
        carriers = subtrees[tag]
        # Any node will do to list the candidates: a folder holding all the nodes holds this one.
        folder = _common_folder(index.paths[next(iter(carriers))])
        for level in (folder, *reversed(list(_ancestors(folder)))):
            parent = _folder_tag(level.rpartition("/")[2]) if level else None
            if parent is None or parent == tag or parent not in roots or not is_segment(parent):
                continue
            # The folder's tag must also be used by nodes without this tag, or it says nothing more.
            if not roots[parent] <= carriers and _all_inside(carriers, level, index.paths, folder_of):
                chosen[tag] = parent
                break
    parents = set(chosen.values())
    return {
        tag: (f"{parent}/{tag}", f"nested under {parent} (folder)")
        for tag, parent in sorted(chosen.items())
        if tag not in parents
    }


def _nest_by_hints(
    tags: Sequence[str], subtrees: _NodeSets, moves: _Moves, hints: Mapping[str, str]
) -> _Moves:
    """Last rule: put a flat tag under the path a model advised, when that path's root exists."""
    roots = _root_nodes(subtrees, moves)
    chosen: dict[str, str] = {}
    for tag in _movable(tags, subtrees, moves, 1):
        parent = hints.get(tag, "").strip("/")
        segments = parent.split("/") if parent else []
        if segments and segments[0] in roots and tag not in segments and all(map(is_segment, segments)):
            chosen[tag] = parent
    parents = {segment for parent in chosen.values() for segment in parent.split("/")}
    return {
        tag: (f"{parent}/{tag}", f"nested under {parent} (model)")
        for tag, parent in sorted(chosen.items())
        if tag not in parents
    }


# -- the result ---------------------------------------------------------------------------------


def _assemble(index: _Index, renamed: _Renamed, subtrees: _NodeSets, moves: _Moves) -> TagTree:
    """Compose rule 1 and the moves into the canonical map, the counts and the change list."""
    canonical: dict[str, str] = {}
    changes: list[tuple[str, str, str]] = []
    for tag in sorted(index.carriers):
        path, reasons = renamed[tag]
        if path in moves:
            path, why = moves[path]
            reasons = (*reasons, why)
        canonical[tag] = path
        if path != tag:
            changes.append((tag, path, "; ".join(reasons)))
    counts = {path: len(ids) for path, ids in subtrees.items() if path not in moves}
    # A moved tag brings its nodes to its new path and every level above it.
    arriving: defaultdict[str, list[set[int]]] = defaultdict(list)
    for tag, (path, _) in moves.items():
        for level in (path, *_ancestors(path)):
            arriving[level].append(subtrees[tag])
    for level, sets in arriving.items():
        if level in subtrees:
            sets.append(subtrees[level])
        counts[level] = len(set().union(*sets))
    parents = {ancestor for path in counts for ancestor in _ancestors(path)}
    split = sorted(
        (
            (path, number)
            for path, number in counts.items()
            if number > SPLIT_THRESHOLD and path not in parents
        ),
        key=lambda item: (-item[1], item[0]),
    )
    return TagTree(
        canonical=canonical,
        counts=tuple(sorted(counts.items())),
        changes=tuple(sorted(changes)),
        split_candidates=tuple(split),
    )

"""Recall from a built vault: a search index kept by `build`, ranked search, tags and lookups.

The public API (used by the CLI and the MCP server):

- `update_index(vault, graph)`: bring the vault's index up to date with a build's graph.
- `search(vault, query, k)`: the best `k` nodes for a query, as `Hit`s.
- `tag_tree(vault)`: every tag path with the number of nodes under it.
- `nodes_by_tag(vault, tag)`: every node under a tag (nested tags included), by time.
- `get_node(vault, node_id)`, `get_entity(vault, id_or_name)`: one record, or None.

Everything but `update_index` reads only the SQLite index (`INDEX_FILE`), never the pipeline,
and imports nothing heavy: a `kgvault search` must start in well under 150 ms. A vault without
an index raises `NoIndexError`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from kgvault.search.query import (
    INDEX_FILE,
    Hit,
    NoIndexError,
    SourceRef,
    get_entity,
    get_node,
    nodes_by_tag,
    require_index,
    search,
    tag_tree,
)

if TYPE_CHECKING:
    from kgvault.records import Graph

__all__ = [
    "INDEX_FILE",
    "Hit",
    "NoIndexError",
    "SourceRef",
    "get_entity",
    "get_node",
    "nodes_by_tag",
    "require_index",
    "search",
    "tag_tree",
    "update_index",
]


def update_index(vault: Path, graph: Graph, go: Callable[[], bool] = lambda: True) -> None:
    """Bring the vault's search index up to date with the graph a build just wrote (incrementally).

    `go` is asked just before the changes are committed: False leaves the index as it was.
    """
    from kgvault.search.index import update_index as update

    update(vault, graph, go)

"""Sensitivity: a note's own floor for what it yields, and a graph cut down to what may be shared.

`build --max-sensitivity public|private` makes a vault to hand to someone: nodes above the level
are left out, and so are relations whose predicate says more (health, family, money: see
`kgvault.sensitivity`), and with them whatever their chunks said — a relation or an entity survives
only with evidence from chunks that gave no left-out node nor left-out relation. Summaries,
coverage, the index and the tag tree then list only what remains. `check --max-sensitivity` proves
the result.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import replace

from kgvault.extract import Extraction
from kgvault.link import tag_counts
from kgvault.names import note_aliases
from kgvault.records import CoverageRow, Evidence, Graph, Node, Relation, Source, SourceSummary
from kgvault.sensitivity import LEVELS, Tainted, above, predicate_sensitivity
from kgvault.sensitivity import RANK as _RANK

__all__ = ["LEVELS", "WITHHELD", "apply_floors", "floor_of", "restrict"]
WITHHELD = "withheld: above the sharing level"
_NODE_LINKS = ("superseded_by", "conflicts_with", "derived_from", "causes", "precedes", "related_to")


def floor_of(source: Source) -> str | None:
    """The sensitivity a note's frontmatter sets for everything it yields (`sensitivity: private`)."""
    value = str(source.meta.get("sensitivity", "")).strip().lower()
    return value if value in ("private", "confidential") else None


def apply_floors(extractions: Sequence[Extraction], sources: Sequence[Source]) -> list[Extraction]:
    """Raise each node of a note with a `sensitivity:` floor to at least that level."""
    floors = {source.path: level for source in sources if (level := floor_of(source)) is not None}
    if not floors:
        return list(extractions)
    raised = []
    for extraction in extractions:
        floor = floors.get(extraction.chunk.source_path)
        nodes = extraction.draft.nodes
        if floor is None or all(_RANK[n.sensitivity] >= _RANK[floor] for n in nodes):
            raised.append(extraction)
            continue
        lifted = [
            n if _RANK[n.sensitivity] >= _RANK[floor] else n.model_copy(update={"sensitivity": floor})
            for n in nodes
        ]
        raised.append(replace(extraction, draft=extraction.draft.model_copy(update={"nodes": lifted})))
    return raised


def restrict(graph: Graph, level: str) -> Graph:
    """The graph without anything above `level`, nor anything only the left-out nodes' and
    relations' chunks said.

    A relation is left out when its predicate reveals more than the level (`takes`, `child_of`):
    like a left-out node, it takes what else its chunk said with it ("My mum. Company: Tesco" says
    where the writer's mother works). A note whose `sensitivity:` floor is above the level is left
    out whole: what its properties, fields and aliases said too, not only its nodes' chunks.
    """
    kept = [node for node in graph.nodes if _RANK[node.sensitivity] <= _RANK[level]]
    floored = {
        s.source.path for s in graph.summaries if _RANK.get(floor_of(s.source) or "public", 0) > _RANK[level]
    }
    told = [r for r in graph.relations if above(predicate_sensitivity(r.relation), level)]
    if len(kept) == len(graph.nodes) and not floored and not told:
        return graph
    out = {node.id for node in graph.nodes} - {node.id for node in kept}
    # A note's properties each say one thing: one left out (a book's `finished:` reading, a person's
    # `spouse:`) takes no other property with it, while a body's lines are read together.
    body_starts = {s.source.path: s.source.body_line for s in graph.summaries}
    tainted = Tainted(
        (
            e
            for e in itertools.chain(
                (e for node in graph.nodes if node.id in out for e in node.evidence),
                (e for relation in told for e in relation.evidence),
            )
            if e.pointer is not None or e.line_end >= body_starts.get(e.path, 1)
        ),
        floored,
    )
    withheld_names = {
        alias.casefold()
        for s in graph.summaries
        if s.source.path in floored
        for alias in note_aliases(s.source.meta)
    }
    texts = {s.source.path: s.source.text for s in graph.summaries}
    # A note's own names (its file name, its `aliases`) are no withheld line's word.
    note_names = {
        name.casefold()
        for s in graph.summaries
        if s.source.path not in floored
        for name in (s.source.path.rsplit("/", 1)[-1].rsplit(".", 1)[0], *note_aliases(s.source.meta))
    }
    lines: dict[str, list[str]] = {}
    unsaid: set[str] = set()
    entities = []
    for entity in graph.entities:
        evidence = tuple(e for e in entity.evidence if not tainted.holds(e))
        if evidence:
            aliases = tuple(a for a in entity.aliases if a.casefold() not in withheld_names)
            if len(evidence) < len(entity.evidence):
                # "My mum." names Linda Carter "Mum": a name only withheld lines gave goes with them (not
                # one no line says: a note's file name, "decision-log").
                withheld = tuple(e for e in entity.evidence if tainted.holds(e))
                gone = {
                    a
                    for a in aliases
                    if a.casefold() not in note_names
                    and _said(a, withheld, texts, lines)
                    and not _said(a, evidence, texts, lines)
                }
                unsaid.update(a.casefold() for a in gone)
                aliases = tuple(a for a in aliases if a not in gone)
            entities.append(replace(entity, evidence=evidence, aliases=aliases))
    entity_ids = {entity.id for entity in entities}
    relations = []
    for relation in graph.relations:
        if above(predicate_sensitivity(relation.relation), level):
            continue
        evidence = tuple(e for e in relation.evidence if not tainted.holds(e))
        if evidence and relation.from_id in entity_ids and relation.to_id in entity_ids:
            relations.append(replace(relation, evidence=evidence))
    nodes = tuple(_without(node, out, entity_ids) for node in kept)
    # What a correction or a merge row quotes of what was left out goes with it.
    names = {entity.title.casefold() for entity in graph.entities if entity.id not in entity_ids}
    names |= {node.title.casefold() for node in graph.nodes if node.id in out} | withheld_names | unsaid
    names |= {path.casefold() for path in floored}
    counts = tag_counts(nodes)
    paths = {path for path, _ in counts}
    return replace(
        graph,
        nodes=nodes,
        entities=tuple(entities),
        relations=tuple(relations),
        summaries=tuple(
            _summary(s, out, entity_ids, tainted) for s in graph.summaries if s.source.path not in floored
        ),
        tag_counts=counts,
        tag_changes=tuple(change for change in graph.tag_changes if change[1] in paths),
        split_candidates=tuple(c for c in graph.split_candidates if c[0] in paths),
        predicates=_predicates(relations),
        conflicts=tuple(pair for pair in graph.conflicts if not out.intersection(pair)),
        merges=tuple(
            m
            for m in graph.merges
            if m[0] in entity_ids and not any(n in f"{m[1]} {m[2]}".casefold() for n in names)
        ),
        corrections=tuple(c for c in graph.corrections if not any(n in c[0].casefold() for n in names)),
    )


def _said(
    name: str, evidence: Iterable[Evidence], texts: dict[str, str], lines: dict[str, list[str]]
) -> bool:
    """Whether a name is in the lines of any of this evidence (or its source is not at hand).

    `lines` keeps each source's text split, for the next name."""
    folded = name.casefold()
    for e in evidence:
        if e.path not in texts:
            return True
        said = lines.get(e.path) or lines.setdefault(e.path, texts[e.path].split("\n"))
        if folded in "\n".join(said[e.line_start - 1 : e.line_end]).casefold():
            return True
    return False


def _without(node: Node, out: set[str], entity_ids: set[str]) -> Node:
    """A kept node with its links to what was left out taken off."""
    changes: dict[str, object] = {
        name: tuple(i for i in getattr(node, name) if i not in out)
        for name in _NODE_LINKS
        if out.intersection(getattr(node, name))
    }
    if any(link.to_id in out for link in node.links):
        changes["links"] = tuple(link for link in node.links if link.to_id not in out)
    if not set(node.entities) <= entity_ids:
        changes["entities"] = tuple(e for e in node.entities if e in entity_ids)
    return replace(node, **changes) if changes else node  # type: ignore[arg-type]


def _summary(summary: SourceSummary, out: set[str], entity_ids: set[str], tainted: Tainted) -> SourceSummary:
    """A summary listing only what remains; the coverage of withheld lines says so, nothing more."""
    path = summary.source.path
    rows = tuple(
        CoverageRow(row.line_start, row.line_end, WITHHELD, row.pointer)
        if tainted.holds(Evidence(path, row.line_start, row.line_end, row.pointer))
        else row
        for row in summary.coverage
    )
    return replace(
        summary,
        node_ids=tuple(i for i in summary.node_ids if i not in out),
        entity_ids=tuple(i for i in summary.entity_ids if i in entity_ids),
        coverage=rows,
    )


def _predicates(relations: Sequence[Relation]) -> tuple[tuple[str, str, int], ...]:
    counts: Counter[tuple[str, str]] = Counter((r.relation, r.label) for r in relations)
    return tuple(sorted((p, label, n) for (p, label), n in counts.items()))

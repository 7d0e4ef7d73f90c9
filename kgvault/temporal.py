"""Pass 2, time: later values of a functional relation supersede earlier ones; same-day rivals conflict."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from datetime import date
from functools import lru_cache

from kgvault.extract.patterns import FUNCTIONAL_PREDICATES, SIDE_BY_SIDE
from kgvault.records import Evidence, Node, Relation, record, replaced

# "Postgres 15" and "Postgres 16" are versions of one thing: only one is current, whatever the predicate.
_VERSION = re.compile(r"^(?P<base>.*?\S)\s+v?\d+(?:\.\d+)*$", re.IGNORECASE)

RelationKey = tuple[str, str, str]
Retime = Callable[[Node, tuple[str, ...], tuple[str, ...], date | None], Node]
"""Makes a node with these `superseded_by`, `conflicts_with` and `valid_to` (a pass 2 memory may hand
back last pass's node made from the same)."""
RetimeRelation = Callable[[Relation, date | None, date | None], Relation]
"""Makes a relation with these `valid_at` and `invalid_at` (a memory may hand back last pass's)."""


@record
class Assertion:
    """One chunk saying a relation held from a date, or stopped on one ("switched from A")."""

    key: RelationKey
    evidence: Evidence
    valid_at: date | None
    invalid_at: date | None
    said: date | None = None
    """The date of the chunk that said it (its note's, or a dated heading's)."""
    statement: str = ""
    """The sentence that said it: of the nodes on its lines, the one titled so said it."""


@dataclass(slots=True)
class _Run:
    """An unbroken stretch of one value in a slot: from its first statement until another value came."""

    value: str
    start: date
    end: date | None = None
    successors: tuple[str, ...] = ()
    dates: list[date] = field(default_factory=list)


@lru_cache(maxsize=4096)  # asked of each relation's object, every pass: a few thousand titles
def version_base(title: str) -> str | None:
    """The name without a trailing version number (`Postgres 15` → `postgres`), or None."""
    match = _VERSION.match(title)
    return match.group("base").casefold() if match else None


def _slot(key: RelationKey, titles: Mapping[str, str], functional: frozenset[str]) -> tuple[str, ...] | None:
    """What holds one value at a time: (subject, predicate), or (subject, predicate, thing) for versions."""
    subject, predicate, obj = key
    title = titles.get(obj, "")
    beside = SIDE_BY_SIDE.get(predicate)
    if predicate in functional and (beside is None or not beside(version_base(title) or title)):
        return (subject, predicate)
    base = version_base(title)
    return (subject, predicate, base) if base else None


def apply_time(
    nodes: Sequence[Node],
    relations: Sequence[Relation],
    entity_titles: Mapping[str, str],
    assertions: Sequence[Assertion],
    *,
    functional: frozenset[str] = FUNCTIONAL_PREDICATES,
    retime: Retime | None = None,
    retime_relation: RetimeRelation | None = None,
    confirmed: AbstractSet[str] = frozenset(),
) -> tuple[tuple[Node, ...], tuple[Relation, ...], tuple[tuple[str, str], ...]]:
    """Close superseded relations, link superseded and conflicting nodes; never delete, never resolve.

    `assertions` are the dated statements behind the merged relations. A value that comes back
    after another (Marlin, then Klipper, then Marlin again) is current again: its relation holds
    from its latest run.
    Returns the updated nodes and relations and the conflicting node pairs (for the review queue).
    `retime` makes each node that changes (`retimed` by default), `retime_relation` each relation
    (`timed_relation` by default). `confirmed` are the nodes the user confirmed: a value they state
    wins its same-day rivals, so the relations' times follow the user's choice (the conflict is
    still reported here; `correct_nodes` settles the nodes).
    """
    slots: dict[tuple[str, ...], list[Assertion]] = defaultdict(list)
    stated_ends: dict[RelationKey, list[date]] = defaultdict(list)
    # The nodes that say a value stopped ("Last day at my job at Acme."): they end what said it held.
    stopping: list[Assertion] = []
    slot_of: dict[RelationKey, tuple[str, ...] | None] = {}  # a triple is stated by a few chunks
    # Said to hold at no date ("Rita works at Deloitte." in her note): no run, but a rival of the
    # value the dated statements leave current, if another (see `_undated_rivals`).
    undated: list[Assertion] = []
    # Dated values of no slot (one of the tools someone uses): they hold until said to stop.
    loose: list[Assertion] = []
    for assertion in assertions:
        key = assertion.key
        if assertion.invalid_at is not None:
            stated_ends[key].append(assertion.invalid_at)
            if assertion.valid_at is None:
                stopping.append(assertion)
                continue
        if assertion.valid_at is None:
            undated.append(assertion)
            continue
        if key not in slot_of:
            slot_of[key] = _slot(key, entity_titles, functional)
        slot = slot_of[key]
        if slot is not None:
            slots[slot].append(assertion)
        else:
            loose.append(assertion)
    dated = [a for members in slots.values() for a in members]
    stopped = [a for a in loose if a.key in stated_ends]
    by_lines = _nodes_by_lines(nodes)
    asserting = _asserting_nodes(by_lines, ((a.key, a.valid_at, a.evidence) for a in (*dated, *stopped)))
    spans = _spans(nodes, dated, asserting)

    last_run: dict[RelationKey, _Run] = {}
    run_of: dict[tuple[RelationKey, date], _Run] = {}
    rivals: list[tuple[RelationKey, RelationKey, date]] = []
    overlaps: list[tuple[frozenset[str], RelationKey, date]] = []
    lost: dict[RelationKey, list[date]] = defaultdict(list)
    # Nodes stating a value that lost its day to a confirmed rival: superseded by the winner's.
    beaten_nodes: dict[str, set[str]] = defaultdict(set)
    valid_to: dict[str, date] = {}
    for slot, members in slots.items():
        found: list[tuple[RelationKey, RelationKey, date]] = []
        runs = _runs(members, found, spans, stated_ends)
        rivals.extend(found)
        if spans:
            overlaps.extend(_overlaps(members, spans))
        beaten = _beaten(found, asserting, confirmed) if confirmed and found else {}
        if beaten:  # the slot again without what lost: the winner alone held on that day
            runs = _runs([a for a in members if (a.key, a.valid_at) not in beaten], [], spans, stated_ends)
            for (key, when), winners in beaten.items():
                lost[key].append(when)
                won = {n for winner in winners for n in asserting.get((winner, when), ())}
                for node_id in asserting.get((key, when), set()) - won:
                    beaten_nodes[node_id].update(won)
                    valid_to[node_id] = min(valid_to.get(node_id, when), when)
        for run in runs:
            key = (slot[0], slot[1], run.value)
            last_run[key] = run
            for when in run.dates:
                run_of[(key, when)] = run

    loose_runs = _stopped_runs(stopped, stated_ends) if stopped else {}
    make_relation = retime_relation or timed_relation
    new_relations = tuple(
        _timed(r, last_run.get(key) or loose_runs.get(key), stated_ends.get(key, []), make_relation)
        if key in last_run or key not in lost
        else _ended(r, max(lost[key]), make_relation)
        for r, key in zip(relations, map(_key, relations), strict=True)
    )

    superseded_by: dict[str, set[str]] = beaten_nodes
    ending = _stopping_nodes(by_lines, stopping) if stopping else {}
    for (key, when), node_ids in asserting.items():
        ran = run_of.get((key, when))  # none: it lost to a confirmed rival (above)
        if ran is None:
            continue
        subject, predicate, _ = key
        if ran.end is not None:
            later = {n for s in ran.successors for n in asserting.get(((subject, predicate, s), ran.end), ())}
            for node_id in node_ids:
                if later - {node_id}:
                    superseded_by[node_id].update(later - {node_id})
                    valid_to[node_id] = min(valid_to.get(node_id, ran.end), ran.end)
        for end in stated_ends.get(key, ()):
            if when < end and (ran.end is None or end <= ran.end):
                stoppers = ending.get((key, end), set())
                for node_id in node_ids:
                    if stoppers - {node_id}:
                        superseded_by[node_id].update(stoppers - {node_id})
                        valid_to[node_id] = min(valid_to.get(node_id, end), end)
    if loose_runs:
        _stop_loose(loose_runs, loose, asserting, ending, by_lines, superseded_by, valid_to)
    # A node consolidated from episodes holds while one of them does: once each is superseded, so is
    # it, by what superseded them (three days of "The Voron runs Marlin." stop at the switch).
    for node in nodes:
        if node.derived_from and all(episode in superseded_by for episode in node.derived_from):
            later = set().union(*(superseded_by[e] for e in node.derived_from))
            later -= {node.id, *node.derived_from}
            if later:
                superseded_by[node.id].update(later)
                valid_to[node.id] = max(valid_to[e] for e in node.derived_from)
    conflicts: dict[str, set[str]] = defaultdict(set)
    pairs: set[tuple[str, str]] = set()

    def conflict(sides: Iterable[str], others: Iterable[str]) -> None:
        """Each node of one side conflicts with each of the other's, both ways, and the pair is reviewed."""
        for a in sides:
            for b in others:
                if a != b:
                    conflicts[a].add(b)
                    conflicts[b].add(a)
                    pairs.add((min(a, b), max(a, b)))

    for first, second, when in rivals:
        conflict(asserting.get((first, when), ()), asserting.get((second, when), ()))
    for held, other, when in overlaps:  # said while a value was stated to hold "since" earlier
        conflict(held, asserting.get((other, when), ()))
    if undated and last_run:
        for stating, rival, last_said in _undated_rivals(
            undated, slots, slot_of, last_run, by_lines, entity_titles, functional, stated_ends
        ):
            conflict(stating, asserting.get((rival, last_said), ()))

    make = retime or retimed
    new_nodes = tuple(
        make(
            node,
            tuple(sorted({*node.superseded_by, *superseded_by.get(node.id, ())})),
            tuple(sorted({*node.conflicts_with, *conflicts.get(node.id, ())})),
            valid_to.get(node.id, node.valid_to) if node.type == "state" else node.valid_to,
        )
        if node.id in superseded_by or node.id in conflicts
        else node
        for node in nodes
    )
    return new_nodes, new_relations, tuple(sorted(pairs))


def retimed(
    node: Node, superseded_by: tuple[str, ...], conflicts_with: tuple[str, ...], valid_to: date | None
) -> Node:
    """The node with these links to later and rival nodes, and this end."""
    return replaced(node, superseded_by=superseded_by, conflicts_with=conflicts_with, valid_to=valid_to)


@dataclass(frozen=True, slots=True)
class _Span:
    """A state said in a note to hold "since" an earlier date: it held from then until the note's date."""

    until: date
    nodes: frozenset[str]


def _spans(
    nodes: Sequence[Node],
    assertions: Sequence[Assertion],
    asserting: Mapping[tuple[RelationKey, date], set[str]],
) -> dict[tuple[RelationKey, date], _Span]:
    """The statements that cover a stretch of time: "X lives in Y since <date>" in a later note.

    A state node holding from its `valid_from` with no stated end, whose relation was said after
    that date, says the value held all along until then. "Ran Marlin from March" is no such state.
    """
    since = {
        node.id: node.valid_from
        for node in nodes
        if node.type == "state" and node.valid_from is not None and node.valid_to is None
    }
    if not since:
        return {}
    found: dict[tuple[RelationKey, date], _Span] = {}
    for assertion in assertions:
        when, said = assertion.valid_at, assertion.said
        if when is None or said is None or said <= when or assertion.invalid_at is not None:
            continue
        held = frozenset(i for i in asserting.get((assertion.key, when), ()) if since.get(i) == when)
        if held:
            last = found.get((assertion.key, when))
            found[(assertion.key, when)] = _Span(
                max(said, last.until) if last else said, held | last.nodes if last else held
            )
    return found


def _overlaps(
    members: Sequence[Assertion], spans: Mapping[tuple[RelationKey, date], _Span]
) -> list[tuple[frozenset[str], RelationKey, date]]:
    """Values said within a stretch a state was said to hold: (the state's nodes, the value, its date).

    The stretch's first day is left out: rivals on one day are found by `_runs`.
    """
    found = []
    for assertion in members:
        span = spans.get((assertion.key, assertion.valid_at))  # type: ignore[arg-type]
        if span is None or assertion.valid_at is None:
            continue
        for other in members:
            if (
                other.key != assertion.key
                and other.valid_at is not None
                and assertion.valid_at < other.valid_at <= span.until
            ):
                found.append((span.nodes, other.key, other.valid_at))
    return found


def _undated_rivals(
    undated: Sequence[Assertion],
    slots: Mapping[tuple[str, ...], Sequence[Assertion]],
    slot_of: dict[RelationKey, tuple[str, ...] | None],
    last_run: Mapping[RelationKey, _Run],
    by_lines: Mapping[Evidence, list[Node]],
    entity_titles: Mapping[str, str],
    functional: frozenset[str],
    stated_ends: Mapping[RelationKey, Sequence[date]],
) -> list[tuple[set[str], RelationKey, date]]:
    """Values said at no date that the dated statements do not leave current: which holds now is not
    known ("Rita works at Deloitte." in her note, "Rita started a new job at PwC." on 2 February).

    Each gives the nodes stating it, and the current value's key and latest date, whose nodes it
    conflicts with: the review queue asks, nothing is ended on a guess. A value also said on a date
    has its runs already; one a note says stopped ("Switched the Voron from Marlin to Klipper",
    "Anna left Spotify") ended then, and is no rival.
    """
    found = []
    for assertion in undated:
        key = assertion.key
        if key in last_run or key in stated_ends:
            continue
        if key not in slot_of:
            slot_of[key] = _slot(key, entity_titles, functional)
        slot = slot_of[key]
        if slot is None or slot not in slots:
            continue
        current = [
            last_run[other]
            for other in {a.key for a in slots[slot]}
            if other in last_run and last_run[other].end is None
        ]
        if not current:
            continue
        run = max(current, key=lambda r: (r.dates[-1], r.value))
        start, _, end = key
        held = {
            n.id for n in by_lines.get(assertion.evidence, ()) if start in n.entities and end in n.entities
        }
        if held:
            found.append((held, (slot[0], slot[1], run.value), run.dates[-1]))
    return found


def _runs(
    members: Sequence[Assertion],
    rivals: list[tuple[RelationKey, RelationKey, date]],
    spans: Mapping[tuple[RelationKey, date], _Span],
    stated_ends: Mapping[RelationKey, Sequence[date]],
) -> list[_Run]:
    """Walk a slot's statements in date order: a new value ends the runs of the others on its date.

    Two values first said on the same date are rivals (a conflict), never a succession, unless
    some were said to stop that day (`stated_ends`: "Switched the Voron from Marlin to Klipper"
    after "The Voron runs Marlin." in the morning): those held until the others came. A value said
    to hold "since" a date (`spans`) is there on every day until the note's date, so another value
    said meanwhile does not end it, and it is said again on the note's date.
    """
    by_date: dict[date, set[str]] = defaultdict(set)
    keys: dict[str, RelationKey] = {}
    lasting: list[tuple[str, date, date]] = []
    for assertion in members:
        assert assertion.valid_at is not None
        by_date[assertion.valid_at].add(assertion.key[2])
        keys[assertion.key[2]] = assertion.key
        span = spans.get((assertion.key, assertion.valid_at)) if spans else None
        if span is not None:
            lasting.append((assertion.key[2], assertion.valid_at, span.until))
            by_date[span.until].add(assertion.key[2])
    for value, start, until in lasting:
        for when in list(by_date):
            if start < when < until:
                by_date[when].add(value)
    runs: list[_Run] = []
    active: dict[str, _Run] = {}
    for when in sorted(by_date):
        said = sorted(by_date[when])
        stopped = [value for value in said if when in stated_ends.get(keys[value], ())]
        values = [value for value in said if value not in stopped] if len(stopped) < len(said) else said
        for group in (values, stopped if values is not said else []):
            rivals.extend((keys[a], keys[b], when) for a, b in _rival_pairs(group))
        # First said the day it stopped: it held that day alone, until the others came.
        brief = [value for value in stopped if value not in active] if values is not said else []
        for value, run in list(active.items()):
            if value not in values:
                if value in said:  # it held this day too, until the others came
                    run.dates.append(when)
                run.end, run.successors = when, tuple(values)
                del active[value]
        runs.extend(_Run(value, when, when, tuple(values), [when]) for value in brief)
        for value in values:
            if value not in active:
                active[value] = _Run(value, when)
                runs.append(active[value])
            active[value].dates.append(when)
    return runs


MAX_PAIRED_RIVALS = 8
"""More values than this said on one day are paired with the first of them only: every pair of 400
values would be 79,800 lines of review, and a vault of 35 MB from a 10 kB note."""


def _rival_pairs(values: Sequence[str]) -> list[tuple[str, str]]:
    """The pairs of one day's rival values that conflict: each pair, or beyond `MAX_PAIRED_RIVALS`
    values, each with the first (so the review queue grows with the values, not their square)."""
    if len(values) <= MAX_PAIRED_RIVALS:
        return [(a, b) for i, a in enumerate(values) for b in values[i + 1 :]]
    return [(values[0], b) for b in values[1:]]


def _beaten(
    rivals: Sequence[tuple[RelationKey, RelationKey, date]],
    asserting: Mapping[tuple[RelationKey, date], set[str]],
    confirmed: AbstractSet[str],
) -> dict[tuple[RelationKey, date], set[RelationKey]]:
    """Values that lost their day to rivals a confirmed node states (none states them), with those rivals."""
    beaten: dict[tuple[RelationKey, date], set[RelationKey]] = defaultdict(set)
    for first, second, when in rivals:
        first_won = not confirmed.isdisjoint(asserting.get((first, when), ()))
        second_won = not confirmed.isdisjoint(asserting.get((second, when), ()))
        if first_won != second_won:
            loser, winner = (second, first) if first_won else (first, second)
            beaten[(loser, when)].add(winner)
    return beaten


def timed_relation(relation: Relation, valid_at: date | None, invalid_at: date | None) -> Relation:
    """The relation holding from `valid_at` until `invalid_at`."""
    return replaced(relation, valid_at=valid_at, invalid_at=invalid_at)


def _ended(relation: Relation, end: date, make: RetimeRelation) -> Relation:
    """A relation every statement of which lost to a confirmed rival: it stops on the (last) day it lost."""
    if relation.invalid_at is not None and relation.invalid_at <= end:
        return relation
    if relation.valid_at is not None and relation.valid_at > end:
        return relation
    return make(relation, relation.valid_at, end)


@dataclass(slots=True)
class _Stopped(_Run):
    """A value of no slot's latest run, with the runs before it that a stated end closed."""

    ended: list[_Run] = field(default_factory=list)


def _stopped_runs(
    stopped: Sequence[Assertion], stated_ends: Mapping[RelationKey, Sequence[date]]
) -> dict[RelationKey, _Stopped]:
    """Per value of no slot said to stop, its runs: from a statement until the next stated end, and
    again from a statement after it ("I switched from Helix back to Vim" after a switch from Vim).

    An end on the day a run starts belongs to an earlier run, as in a slot (`_timed`).
    """
    starts: dict[RelationKey, set[date]] = defaultdict(set)
    for assertion in stopped:
        assert assertion.valid_at is not None
        starts[assertion.key].add(assertion.valid_at)
    runs: dict[RelationKey, _Stopped] = {}
    for key, days in starts.items():
        ended: list[_Run] = []
        current: _Run | None = None
        # Ends before starts on one day: a run is never ended the day it starts, so an end always
        # comes after the start of the run it closes.
        for when, is_start in sorted(
            [*((d, False) for d in set(stated_ends[key])), *((d, True) for d in days)]
        ):
            if is_start:
                if current is None:
                    current = _Run(key[2], when)
                current.dates.append(when)
            elif current is not None:
                current.end = when
                ended.append(current)
                current = None
        last = current or ended.pop()
        runs[key] = _Stopped(
            last.value, last.start, last.end, (), last.dates, [*ended, *([last] if last.end else [])]
        )
    return runs


def _stop_loose(
    runs: Mapping[RelationKey, _Stopped],
    loose: Sequence[Assertion],
    asserting: Mapping[tuple[RelationKey, date], set[str]],
    ending: Mapping[tuple[RelationKey, date], set[str]],
    by_lines: Mapping[Evidence, list[Node]],
    superseded_by: dict[str, set[str]],
    valid_to: dict[str, date],
) -> None:
    """The nodes that said values of no slot held, superseded where a note said they stopped: by
    the nodes that said so, and only once every such value they said stopped ("I use Notion,
    Todoist and Obsidian." holds on after "I stopped using Todoist.")."""
    stopped: dict[str, list[tuple[RelationKey, date, set[str]]]] = defaultdict(list)
    for key, run in runs.items():
        for closed in run.ended:
            stop = closed.end
            assert stop is not None
            stoppers = ending.get((key, stop), set())
            for when in closed.dates:
                for node_id in asserting.get((key, when), ()):
                    if stoppers - {node_id}:
                        stopped[node_id].append((key, stop, stoppers - {node_id}))
    if not stopped:
        return
    said: dict[Evidence, set[RelationKey]] = defaultdict(set)
    for assertion in loose:
        said[assertion.evidence].add(assertion.key)
    for lines, keys in said.items():
        for node in by_lines.get(lines, ()):
            ends = stopped.get(node.id)
            if ends is None:
                continue
            own = {k for k in keys if k[0] in node.entities and k[2] in node.entities}
            if not own <= {key for key, _, _ in ends}:
                del stopped[node.id]  # it said another value too, which goes on
    for node_id, ends in stopped.items():
        superseded_by[node_id].update(*(stoppers for _, _, stoppers in ends))
        last = max(stop for _, stop, _ in ends)
        valid_to[node_id] = min(valid_to.get(node_id, last), last)


def _timed(relation: Relation, run: _Run | None, stated_ends: list[date], make: RetimeRelation) -> Relation:
    """The relation over its latest run: from its start until the next value (or a stated end)."""
    if run is None:
        return relation
    # A stated end ("switched from A") within the run wins over the next value's start; an end on
    # the run's first day belongs to an earlier run (a relation never ends the day it starts).
    ends = [d for d in (*stated_ends, run.end) if d is not None and d > run.start]
    # But one first said on the day a switch stopped it held that day alone (see `_runs`).
    end = min(ends) if ends else run.end if run.end == run.start else None
    if (relation.valid_at, relation.invalid_at) == (run.start, end):
        return relation
    return make(relation, run.start, end)


def _key(relation: Relation) -> RelationKey:
    return (relation.from_id, relation.relation, relation.to_id)


def _stopping_nodes(
    by_lines: Mapping[Evidence, list[Node]], stopping: Sequence[Assertion]
) -> dict[tuple[RelationKey, date], set[str]]:
    """The nodes that say a value stopped on a date: of those on the lines that say so, the ones
    titled as the sentence that said it (not "The Voron runs Marlin." beside the switch from it)."""
    found = _asserting_nodes(by_lines, ((a.key, a.invalid_at, a.evidence) for a in stopping))
    said: dict[tuple[RelationKey, date], set[str]] = defaultdict(set)
    for assertion in stopping:
        assert assertion.invalid_at is not None
        said[(assertion.key, assertion.invalid_at)].add(assertion.statement)
    stoppers = set().union(*found.values())
    # Every stopper stands on a stopping statement's lines: its title is found there, not in a scan.
    title = {
        node.id: node.title for a in stopping for node in by_lines.get(a.evidence, ()) if node.id in stoppers
    }
    for place, node_ids in found.items():
        saying = {node_id for node_id in node_ids if title[node_id] in said[place]}
        if saying:
            found[place] = saying
    return found


def _nodes_by_lines(nodes: Sequence[Node]) -> dict[Evidence, list[Node]]:
    """The nodes that may state a relation, by their lines: an assertion looks only at its own."""
    by_evidence: dict[Evidence, list[Node]] = defaultdict(list)
    for node in nodes:
        # A consolidated node restates its episodes; they carry the dates. A relation joins two
        # different entities: a node naming fewer can state none (and its lines need no hashing).
        if not node.derived_from and len(node.entities) > 1:
            for lines in node.evidence:
                by_evidence[lines].append(node)
    return by_evidence


def _asserting_nodes(
    by_evidence: Mapping[Evidence, list[Node]], said: Iterable[tuple[RelationKey, date | None, Evidence]]
) -> dict[tuple[RelationKey, date], set[str]]:
    """Nodes that state a relation on a date: they name both ends and come from the same lines.

    `said` are the statements: the relation, the date, and the lines that said it.
    """
    wanted: dict[tuple[RelationKey, date], set[Evidence]] = defaultdict(set)
    for key, when, lines in said:
        assert when is not None
        wanted[(key, when)].add(lines)
    found: dict[tuple[RelationKey, date], set[str]] = defaultdict(set)
    for (key, when), evidence in wanted.items():
        start, _, end = key
        for lines in evidence:
            for node in by_evidence.get(lines, ()):
                if start in node.entities and end in node.entities:
                    found[(key, when)].add(node.id)
    return found

"""Relative expansion (``expand.plus_N``): the task's own toolkit plus ``N`` related-but-different tools.

The robustness study (seed 004) expands each entry's OWN toolkit with generated tools that serve related requests
(2.7 -> 5.6 tools on average), rather than offering a toolkit of a fixed size. Here the own toolkit is what the task
data says the task uses: every tool on any solution path of any goal, the tools a goal's ``Goal.tools`` lists, the
likely original of a needed tool an earlier stressor renamed, and tools an earlier stressor added. Every other world
function is left out (a closed world, as ``size_N``), and ``N`` synthetic neighbours OF THE OWN TOOLS are added,
taken in turn from each own tool's relatedness ranking so each gets neighbours; fewer when the pool lacks them (the
toolkit says how many).

A world whose episodes offer each task its own toolkit (``Goal.tools``: BFCL's entries) has real related tools: the
world's functions this episode's world lacks (``absent``, the other tasks' functions). Those are the neighbours
then, as the study's were related functions of the same benchmark: drawn the same way from the pool's ranking of
the world's functions, never one whose similarity to an own tool is at or above the filter's threshold (the pool's
``near``: a twin under another name would score a right call as wrong), and answered by the stressor with the
neutral ``{"status": "ok"}``. They are never in the gold, so a call of one is never scored as right.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass

from sim.core import ToolSpec
from worlds.stressors.expand.templates import Answer, Candidate
from worlds.stressors.expand.toolkit import Toolkit, ToolPool, renamed_from


@dataclass(frozen=True)
class PlusToolkit:
    """A relative expansion: the toolkit, and how its size came about."""

    toolkit: Toolkit
    own: tuple[str, ...]
    """The task's own tools (before expansion), in spec order."""
    asked: int
    """Related tools asked for (N)."""

    @property
    def added(self) -> int:
        return len(self.toolkit.offered)

    @property
    def short(self) -> int:
        """Related tools the pool could not supply for this task."""
        return self.asked - self.added


def own_tools(
    specs: Sequence[ToolSpec], needed: Mapping[str, frozenset[str]], listed: Collection[str], pool: ToolPool
) -> list[str]:
    """The task's own toolkit among ``specs``: needed tools (or their likely originals when an earlier stressor
    renamed them), tools a goal lists (``Goal.tools``), and tools the pool does not know (an earlier stressor's)."""
    by_name = {s.name: s for s in specs}
    guessed = {o for n, args in needed.items() if n not in by_name for o in renamed_from(n, args, specs)}
    return [n for n in by_name if n in needed or n in guessed or n in listed or n not in pool.originals]


def choose_plus(
    specs: Sequence[ToolSpec],
    needed: Mapping[str, frozenset[str]],
    listed: Collection[str],
    pool: ToolPool,
    plus: int,
    rng: random.Random,
    absent: Sequence[ToolSpec] = (),
) -> PlusToolkit:
    """The own toolkit and up to ``plus`` neighbours of its tools, most related first (round robin over the own
    tools in a seeded order), then seeded leftovers among the own tools' neighbours; all in a seeded order. The
    neighbours are the world's tools this episode lacks (``absent``) when there are any, else synthetic ones. A
    neighbour never takes the name of a function the episode offers or the gold calls."""
    by_name = {s.name: s for s in specs}
    own = own_tools(specs, needed, listed, pool)
    sources = set(own)
    offerable: dict[str, Candidate]
    if absent:
        twins = frozenset(n for o in own for n in pool.near.get(o, ()))
        offerable = {
            s.name: Candidate(spec=s, source="", origin="world", answer=Answer(kind="neutral"))
            for s in absent
            if s.name not in by_name and s.name not in needed and s.name not in twins
        }
    else:
        offerable = {
            n: c for n, c in pool.candidates.items() if n not in by_name and n not in needed and c.source in sources
        }
    added: dict[str, str | None] = {}  # picked -> the own tool whose ranking picked it (None: a seeded leftover)
    anchors = rng.sample([n for n in own if n in pool.originals], sum(n in pool.originals for n in own))
    rankings: dict[str, Iterator[str]] = {a: iter(pool.ranked(a)) for a in anchors}
    while rankings and len(added) < plus:
        for anchor, ranking in list(rankings.items()):
            picked = next((n for n in ranking if n in offerable and n not in added), None)
            if picked is None:
                del rankings[anchor]
            else:
                added[picked] = anchor
            if len(added) >= plus:
                break
    leftovers = [n for n in offerable if n not in added]
    for name in rng.sample(leftovers, len(leftovers))[: max(0, plus - len(added))]:
        added[name] = None
    names = rng.sample([*own, *added], len(own) + len(added))
    # A world tool's source: the own tool whose ranking it came from (a leftover's: the first own tool).
    offered = {n: _sourced(offerable[n], anchor or (own[0] if own else "")) for n, anchor in added.items()}
    return PlusToolkit(
        toolkit=Toolkit(
            specs=[by_name[n] if n in by_name else offered[n].spec for n in names],
            offered=offered,
            hidden=frozenset(n for n in by_name if n not in sources),
        ),
        own=tuple(own),
        asked=plus,
    )


def _sourced(candidate: Candidate, anchor: str) -> Candidate:
    return candidate if candidate.source else candidate.model_copy(update={"source": anchor})

"""Paraphrases written beforehand, by a model: asked for, checked, stored, and read back by ``perturb``.

``squall stressors paraphrase`` asks a model, once per goal, for other wordings of the user's explicit request,
drops any that copies the request or the instruction (``worlds.stressors.copies``: such a goal keeps its own
wording and is no reworded goal), and keeps only those that carry every protected span of the original verbatim
(a gold argument value, the ``refers_to`` name, a name-like token: what ``perturb.protected_mask`` protects), so
the same gold still scores, and that carry its meaning (``worlds.stressors.meaning``: not much shorter, some
content words shared, and, with an embedder, a sentence embedding close to the original's), so "All done." never
stands for "Lock the back door".
The file is JSONL, one row per goal: ``{"task": ID, "turn": I, "paraphrases": [...], "model": SPEC}`` (``turn``: the
goal's index, under the key files were first written with).
A run reads it with ``--stressors perturb.paraphrase_written:file=PATH``; without a file, the task's own
alternative wordings (``UserIntent.paraphrases``) are the candidates, under the same check.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sim.core import ChatMessage, Goal, ModelRequest, Task
from sim.core.bounded_read import DATA_LIMIT, InputFileError, read_text
from sim.core.files import write_text_atomic
from sim.core.structured import parse_json
from worlds.stressors.copies import copies
from worlds.stressors.meaning import close_in_meaning
from worlds.stressors.protect import goal_values, protected_spans, usable

Written = dict[tuple[str, int], list[str]]
"""(task id, goal index) -> paraphrases of that goal's explicit request."""
_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s*")


def load_written(path: Path) -> Written:
    """Rows of a paraphrase file; errors name the file and line."""
    written: Written = {}
    try:
        lines = read_text(path, DATA_LIMIT).splitlines()
    except InputFileError as error:
        raise ValueError(f"paraphrase file {error}") from None
    for lineno, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        row = parse_json(line, f"{path}:{lineno}")  # InputFileError (a ValueError) names file and line
        try:
            key = (str(row["task"]), int(row["turn"]))
            texts = row["paraphrases"]
            if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
                raise TypeError("paraphrases must be a list of strings")
        except (ValueError, KeyError, TypeError) as error:
            raise ValueError(f"{path}:{lineno}: not a paraphrase row ({error})") from error
        written.setdefault(key, []).extend(texts)
    return written


def paraphrase_request(model: str, goal: Goal, per_turn: int, seed: int) -> ModelRequest:
    keep = protected_spans(goal.user.explicit, goal_values(goal))
    text = (
        f"Rewrite this request to an assistant in {per_turn} different ways, as different users would say it. "
        "Keep the meaning exactly. "
        + (f"Copy these exactly as written: {'; '.join(keep)}. " if keep else "")
        + f"One rewrite per line, nothing else.\n\nRequest: {goal.user.explicit}"
    )
    return ModelRequest(
        role="generator",
        model=model,
        messages=(ChatMessage(role="user", content=text),),
        max_tokens=60 * per_turn + 40,
        temperature=0.7,
        seed=seed,
    )


def parse_lines(text: str, original: str) -> list[str]:
    """One paraphrase per non-empty line, list markers and quotes stripped, the original and repeats dropped."""
    seen: set[str] = {original.strip().lower()}
    out = []
    for line in text.splitlines():
        line = _BULLET.sub("", line).strip().strip('"').strip()
        if line and line.lower() not in seen:
            seen.add(line.lower())
            out.append(line)
    return out


@dataclass
class ParaphraseReport:
    rows: list[dict[str, Any]] = field(default_factory=list)
    asked: int = 0
    proposed: int = 0
    kept: int = 0
    request_failures: int = 0
    lost_values: int = 0
    """Dropped: a protected value changed or missing, or too short / too far from the original's words."""
    lost_meaning: int = 0
    """Dropped by the embedding check: its meaning too far from the original's."""
    copies: int = 0
    """Dropped as copies of the request or of the instruction (``worlds.stressors.copies``)."""
    unchanged: int = 0
    """Goals left with their original wording: nothing but copies (or nothing usable) came back."""


async def write_paraphrases(
    complete: Callable[[ModelRequest], Awaitable[str | None]],
    model: str,
    tasks: Iterable[Task],
    per_turn: int = 3,
    seed: int = 0,
    similarity: Callable[[str, str], float] | None = None,
) -> ParaphraseReport:
    """Ask for ``per_turn`` rewordings of every goal's request; keep the ones that keep every value and the
    meaning (``similarity``: a sentence-embedding cosine; None skips the embedding check)."""
    report = ParaphraseReport()
    for task in tasks:
        for index, goal in enumerate(task.goals):
            report.asked += 1
            request = paraphrase_request(model, goal, per_turn, seed)
            reply = await complete(request)
            if reply is None:
                report.request_failures += 1
                continue
            proposed = parse_lines(reply, goal.user.explicit)[:per_turn]
            prompt = request.messages[0].content
            reworded = [p for p in proposed if not copies(goal.user.explicit, p, prompt)]
            report.copies += len(proposed) - len(reworded)
            valued = usable(goal, reworded)
            kept = [p for p in valued if similarity is None or close_in_meaning(similarity, goal.user.explicit, p)]
            report.proposed += len(proposed)
            report.lost_values += len(reworded) - len(valued)
            report.lost_meaning += len(valued) - len(kept)
            report.kept += len(kept)
            if not kept:
                report.unchanged += 1
            else:
                report.rows.append({"task": task.id, "turn": index, "paraphrases": kept, "model": model})
    return report


def write_rows(path: Path, rows: list[dict[str, Any]]) -> None:
    """Atomically: a crash leaves the old file or the new one, never half of one."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(path, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))

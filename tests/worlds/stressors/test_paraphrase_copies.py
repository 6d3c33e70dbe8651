"""A paraphrase that copies the request or the instruction is no rewording: the writer refuses it (the goal keeps its
own words, counted), the stressor never picks one from an older file, and an isolated run counts as reworded only
the goals whose text changed (a file that rewords 11 of bfcl:multiple's 200 entries: 11 goals)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sim.config.run_config import RunConfig
from sim.core import ModelRequest, Task
from sim.run.runner import execute
from worlds.registry import load_world
from worlds.stressors.catalog import builtin_scenarios, effective
from worlds.stressors.copies import copies
from worlds.stressors.coverage import affected_goals
from worlds.stressors.paraphrases import paraphrase_request, write_paraphrases
from worlds.stressors.protect import usable

ROW = next(s for s in builtin_scenarios() if s.name == "perturb.paraphrase_written")
REQUEST = "What is the humidity level in Miami, Florida in the upcoming 7 days?"


def test_copies_of_the_request_or_the_instruction_are_caught_and_rewordings_are_not() -> None:
    prompt = (
        "Rewrite this request to an assistant in 3 different ways. Keep the meaning exactly.\n\nRequest: " + REQUEST
    )
    for copy in (
        REQUEST.upper(),
        "what is the humidity level in miami florida in the upcoming 7 days",
        "Please, what is the humidity level in Miami, Florida, in the upcoming 7 days?",  # only stop words added
        f"Request: {REQUEST}",
        f"Sure! {REQUEST} Let me know.",
        "Keep the meaning exactly: humidity in Miami, Florida over 7 days.",
        "Rewrite this request to an assistant in 3 different ways. Keep the meaning exactly.",
    ):
        assert copies(REQUEST, copy, prompt), copy
    for reworded in (
        "How humid will it be in Miami, Florida over the upcoming 7 days?",
        "Give me the humidity forecast for Miami, Florida for the upcoming 7 days.",
    ):
        assert not copies(REQUEST, reworded, prompt), reworded


async def test_the_writer_refuses_copies_and_counts_the_goals_left_as_they_were() -> None:
    tasks = load_world("smart_home").tasks()[:3]
    reworded = {t.goals[0].user.explicit for t in tasks[:1]}

    async def complete(request: ModelRequest) -> str:
        text = request.messages[0].content
        original = text.rpartition("Request: ")[2]
        lines = [f"Request: {original}", f"{original} Thanks.", text.splitlines()[0]]
        if original in reworded:  # one real rewording among the copies: the first word moved to the end
            first, _, rest = original.partition(" ")
            lines.append(f"I need you to handle this: {rest} ({first.lower()})")
        return "\n".join(lines)

    report = await write_paraphrases(complete, "m", tasks, per_turn=4)
    goals = sum(len(t.goals) for t in tasks)
    assert report.asked == goals and report.kept == len(report.rows) == 1
    assert report.unchanged == goals - 1 and report.copies == 3 * goals
    assert report.rows[0]["task"] == tasks[0].id and report.rows[0]["turn"] == 0


def _reword(task: Task) -> str | None:
    """A real rewording of the entry's question that keeps every value, or None."""
    goal = task.goals[0]
    first, _, rest = goal.user.explicit.partition(" ")
    text = f"I need you to handle this: {rest} ({first.lower()})"
    return text if usable(goal, [text]) else None


def eleven_of_200(path: Path) -> list[str]:
    """A paraphrase file for bfcl:multiple: 11 entries reworded, the other 189 given only copies (of the question, of
    the instruction, of the prompt's request line), as a model that echoes its prompt writes them."""
    pytest.importorskip("bfcl_eval")
    rows, chosen = [], []
    for task in load_world("bfcl:multiple").tasks():
        text = task.goals[0].user.explicit
        good = _reword(task) if len(chosen) < 11 else None
        if good is not None:
            chosen.append(task.id)
        prompt = paraphrase_request("m", task.goals[0], 3, 0).messages[0].content.splitlines()[0]
        paraphrases = [good] if good else [f"Request: {text}", text.upper(), prompt]
        rows.append({"task": task.id, "turn": 0, "paraphrases": paraphrases, "model": "fixture"})
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert len(rows) == 200 and len(chosen) == 11
    return chosen


def test_a_file_that_rewords_11_of_200_touches_11_goals(tmp_path: Path) -> None:
    chosen = eleven_of_200(tmp_path / "p.jsonl")
    row = effective(ROW, {"file": str(tmp_path / "p.jsonl")})
    touched = {t.id: affected_goals(t, row) for t in load_world("bfcl:multiple").tasks()}
    assert sorted(t for t, goals in touched.items() if goals) == sorted(chosen)
    assert sum(len(goals) for goals in touched.values()) == 11


async def test_an_isolated_run_reports_11_reworded_goals_in_bfcls_verdict_with_errors_by_type(tmp_path: Path) -> None:
    eleven_of_200(tmp_path / "p.jsonl")
    config = {
        "out": tmp_path,
        "world": "bfcl:multiple",
        "agent": "null",
        "stressors": [f"perturb.paraphrase_written:file={tmp_path / 'p.jsonl'}"],
        "stressor_mode": "isolated",
    }
    _, summary = await execute(RunConfig.model_validate(config))
    stressors = summary["stressors"]
    assert stressors["metric"] == "bfcl_ast" and summary["episodes"] == 211
    (row,) = stressors["by_scenario"]
    assert row["name"] == ROW.name and row["turns"] == 11 and (row["before"], row["after"]) == (0.0, 0.0)
    assert row["core"] == {"before": 0.0, "after": 0.0, "goals": 11}
    assert stressors["errors"] == [
        {"condition": "baseline", "goals": 200, "failed": 200, "new_failures": 0, "kinds": {"no call": 200}},
        {"condition": ROW.name, "goals": 11, "failed": 11, "new_failures": 0, "kinds": {"no call": 11}},
    ]

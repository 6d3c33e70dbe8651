"""Paraphrases written beforehand: the model's are checked for every value, stored, read back by perturb."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from sim.cli.app import app
from sim.core import ModelRequest
from tests.support.mockllm_server import mock_llm_server
from worlds.registry import load_world
from worlds.stressors.catalog import builtin_scenarios, stressor_class
from worlds.stressors.paraphrases import load_written, parse_lines, write_paraphrases
from worlds.stressors.protect import goal_values, protected_spans

TASKS = load_world("smart_home").tasks()
ROW = next(s for s in builtin_scenarios() if s.name == "perturb.paraphrase_written")


def _first_turn_with_values() -> tuple[int, int]:
    for i, task in enumerate(TASKS):
        for t, turn in enumerate(task.goals):
            if protected_spans(turn.user.explicit, goal_values(turn)):
                return i, t
    raise AssertionError("no smart_home turn names a value")


async def test_only_wordings_that_keep_every_value_are_kept() -> None:
    i, t = _first_turn_with_values()
    turn = TASKS[i].goals[t]
    spans = protected_spans(turn.user.explicit, goal_values(turn))
    good = f"Could you please handle this for me: {' and '.join(spans)} as I asked?"
    dropped = "Please do the thing I mentioned earlier."
    asked: list[ModelRequest] = []

    async def complete(request: ModelRequest) -> str | None:
        asked.append(request)
        original = (request.messages[0].content or "").rpartition("Request: ")[2]
        return f"1. {good}\n2. {dropped}\n- {original}\n"

    report = await write_paraphrases(complete, "scripted", [TASKS[i]], per_turn=3)
    assert report.asked == len(TASKS[i].goals) == len(asked)
    assert all(span in (asked[t].messages[0].content or "") for span in spans)  # the prompt says what to keep
    row = next(r for r in report.rows if r["turn"] == t)
    assert row["paraphrases"] == [good] and row["task"] == TASKS[i].id and row["model"] == "scripted"
    assert report.proposed == 2 * report.asked  # the original wording is never proposed back


def test_parse_lines_strips_markers_and_repeats() -> None:
    assert parse_lines('1) "Turn it on."\n* turn it on.\n\n- Switch it on', "Turn on the light") == [
        "Turn it on.",
        "Switch it on",
    ]


def test_a_bad_paraphrase_file_names_file_and_line(tmp_path: Path) -> None:
    bad = tmp_path / "p.jsonl"
    bad.write_text('{"task": "sh-001", "turn": 0, "paraphrases": ["x"]}\n{"task": "sh-001"}\n')
    with pytest.raises(ValueError, match=r"p\.jsonl:2: not a paraphrase row"):
        load_written(bad)


def test_the_stressor_uses_a_written_file_and_keeps_values(tmp_path: Path) -> None:
    i, t = _first_turn_with_values()
    task, turn = TASKS[i], TASKS[i].goals[t]
    spans = protected_spans(turn.user.explicit, goal_values(turn))
    keeps = f"Hey, about {' and '.join(spans)}: please sort it out."
    loses = "Hey, please sort it out."
    path = tmp_path / "p.jsonl"
    path.write_text(f'{{"task": "{task.id}", "turn": {t}, "paraphrases": ["{keeps}", "{loses}"]}}\n')
    stressor = stressor_class("perturb")(ROW, 0, {"file": str(path)})
    out = stressor.on_task(task)
    assert out.goals[t].user.explicit == keeps  # the one that lost a value is never used
    assert out.goals[t].gold == turn.gold
    others = [u for k, u in enumerate(out.goals) if k != t]
    assert (
        all(
            o.user.explicit == task.goals[k].user.explicit or o.user.explicit in task.goals[k].user.paraphrases
            for k, o in enumerate(out.goals)
            if k != t
        )
        and others
    )


def test_without_a_file_the_task_s_own_wordings_are_used_when_they_keep_every_value() -> None:
    tasks = load_world("multidomain").tasks()
    stressor = stressor_class("perturb")(ROW, 0)
    changed = total = 0
    for task in tasks:
        for turn, new in zip(task.goals, stressor.on_task(task).goals, strict=True):
            total += 1
            if new.user.explicit != turn.user.explicit:
                changed += 1
                assert new.user.explicit in turn.user.paraphrases
                lowered = new.user.explicit.lower()
                assert all(s.lower() in lowered for s in protected_spans(turn.user.explicit, goal_values(turn)))
    assert changed >= 0.8 * total, (changed, total)


def test_cli_against_the_mock_server_writes_a_file_a_run_can_use(tmp_path: Path) -> None:
    out = tmp_path / "para.jsonl"
    policy = {"kind": "script", "steps": [{"text": "Please could you turn the living room ceiling light on?"}]}
    args = ["stressors", "paraphrase", "--world", "smart_home", "--out", str(out), "--limit", "2"]
    args += ["--cache-dir", str(tmp_path / "cache")]
    with mock_llm_server({"policy": policy}) as srv:
        result = CliRunner().invoke(app, [*args, "--model", f"openai-chat:mock@{srv.url}"])
        assert result.exit_code == 0, result.output
        turns = sum(len(t.goals) for t in TASKS[:2])
        assert srv.stats()["completions"] == turns
    assert f"turns asked: {turns}" in result.output and "request failures: 0" in result.output
    written = load_written(out)  # what was kept keeps every value of its turn
    for (task_id, t), texts in written.items():
        turn = next(x for x in TASKS if x.id == task_id).goals[t]
        assert all(
            s.lower() in p.lower() for p in texts for s in protected_spans(turn.user.explicit, goal_values(turn))
        )
    bad = CliRunner().invoke(app, [*args, "--model", "nope:model"])
    assert bad.exit_code == 2 and "--model" in bad.output

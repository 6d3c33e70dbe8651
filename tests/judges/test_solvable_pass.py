"""The StableToolBench-style solvability judge: strict verdicts, asked again when malformed, never a silent pass
without a judge model; its summary; and its calibration on the shipped labelled set, whose kappa is computed exactly
here from a mock judge scripted to give known verdicts over real HTTP."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from judges.common.llm_ask import JudgeModel
from judges.common.reduction import EpisodeFacts, RunFacts
from judges.solvable.calibration import LABELS_PATH, load_labels
from judges.solvable.solvable_pass import NOT_JUDGED, SolvablePass, parse_verdict, prompt
from judges.solvable.solvable_pass_summary import SolvablePassSummary
from sim.core import EpisodeResult, Event, Goal, Task, ToolCall, ToolResult, UserIntent
from sim.llm.cache import ResponseCache
from sim.llm.gateway import Gateway
from sim.llm.transports.pydantic_ai import PydanticAITransport
from tests.support.cli import invoke
from tests.support.mockllm_server import mock_llm_server

QUERY = "What is the stock price of NVIDIA right now?"


def episode(answer: str, tags: tuple[str, ...] = ("toolbench", "gold-arguments-unknown")) -> EpisodeResult:
    call = ToolCall(id="c1", name="quote_for_stock_data", arguments={"symbol": "NVDA"})
    events = [
        Event(kind="user_message", turn=0, goal=0, content=QUERY),
        Event(kind="tool_call", turn=0, goal=0, call=call),
        Event(kind="tool_result", turn=0, goal=0, call=call,
              result=ToolResult(call_id="c1", status="success", content={"price": 131.42})),
        Event(kind="agent_message", turn=0, goal=0, content=answer),
    ]  # fmt: skip
    task = Task(id="t1", world="tb", tags=list(tags), goals=[Goal(user=UserIntent(explicit=QUERY), gold=[])])
    return EpisodeResult(episode_id="e1", task_id="t1", trial=0, seed=0, world="tb", agent="a", user="scripted",
                         task=task, tools=[], events=events, termination="completed", goals_played=1,
                         turns_played=1)  # fmt: skip


def judge_model(answers: list[str], cache: ResponseCache | None = None) -> tuple[JudgeModel, list[list[ModelMessage]]]:
    seen: list[list[ModelMessage]] = []

    def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(messages)
        return ModelResponse(parts=[TextPart(answers[min(len(seen), len(answers)) - 1])])

    gateway = Gateway(cache=cache)
    gateway.register("judge-model", PydanticAITransport(FunctionModel(answer)))
    return JudgeModel(gateway.complete, "judge-model"), seen


def test_verdicts_are_parsed_strictly() -> None:
    assert parse_verdict('Sure. {"verdict": "Solved", "reasons": "all there"}').verdict == "solved"
    for text in ('{"verdict": "maybe"}', '{"verdict": true}', "solved"):
        with pytest.raises(ValueError, match="verdict"):
            parse_verdict(text)


async def test_a_solved_answer_scores_one_with_its_reasons_and_the_trajectory_in_the_prompt() -> None:
    model, seen = judge_model(["no idea", '{"verdict": "solved", "reasons": "price from the quote"}'])
    score = await SolvablePass(model).score(episode("NVDA trades at $131.42."))
    assert score.value == 1.0 and score.details["verdicts"] == {"0": "solved"}
    assert score.details["reasons"] == {"0": "price from the quote"}
    assert len(seen) == 2  # the malformed answer was asked again
    first = " ".join(str(getattr(part, "content", "")) for part in seen[0][-1].parts)
    assert QUERY in first and 'quote_for_stock_data({"symbol": "NVDA"}) -> success: {"price": 131.42}' in first


async def test_a_verdict_is_answered_from_the_response_cache_the_second_time(tmp_path: Path) -> None:
    model, seen = judge_model(['{"verdict": "solved", "reasons": "r"}'], ResponseCache(tmp_path, "read-write"))
    judge = SolvablePass(model)
    first, again = await judge.score(episode("NVDA: $131.42")), await judge.score(episode("NVDA: $131.42"))
    assert first.value == again.value == 1.0 and len(seen) == 1  # the same request once: re-judging is free


async def test_unsure_counts_half_and_unsolved_zero_as_stabletoolbench_does() -> None:
    for said, value in (("unsure", 0.5), ("unsolved", 0.0)):
        model, _ = judge_model([json.dumps({"verdict": said, "reasons": "r"})])
        score = await SolvablePass(model).score(episode("It is about $130."))
        assert score.value == value and score.errors == [f"goal0:solvable:{said}"]


async def test_no_judge_model_is_not_judged_and_an_empty_answer_is_unsolved_unasked() -> None:
    score = await SolvablePass(None).score(episode("NVDA trades at $131.42."))
    assert score.value is None and score.errors == [NOT_JUDGED]
    model, seen = judge_model(['{"verdict": "solved"}'])
    assert (await SolvablePass(model).score(episode("  "))).value == 0.0 and not seen
    assert (await SolvablePass(model).score(episode("x", tags=("sql",)))).value is None  # not a ToolBench task


async def test_the_summary_says_not_judged_apart_from_the_verdicts() -> None:
    model, _ = judge_model(['{"verdict": "unsure", "reasons": "r"}'])
    summary = SolvablePassSummary()
    facts = EpisodeFacts("t1", 0, False, 0)
    for score in (await SolvablePass(model).score(episode("a")), await SolvablePass(None).score(episode("b"))):
        verdict = summary.verdict(score)
        assert verdict is not None
        summary.add(verdict, facts)
    result = summary.result(RunFacts(1, (0,)))
    assert result["solvable_pass"] == 0.5 and result["solvable_pass_goals"] == 1
    assert result["solvable_pass_verdicts"] == {"solved": 0, "unsure": 1, "unsolved": 0}
    assert result["solvable_pass_not_judged"] == 1
    assert "not judged" in " ".join(SolvablePassSummary.notes(result))


def test_the_shipped_labels_cover_every_kind_with_a_reason_each() -> None:
    cases = load_labels()
    rows = [json.loads(line) for line in LABELS_PATH.read_text(encoding="utf-8").splitlines()]
    assert len(cases) >= 40 and all(r["why"].strip() for r in rows)
    kinds = Counter(c.kind for c in cases)
    assert all(kinds[k] >= 10 for k in ("solve", "half-solve", "refuse", "hallucinate"))
    assert {c.label for c in cases} == {"solved", "unsure", "unsolved"}


def test_calibrate_prints_the_kappa_of_a_judge_model_against_the_labels() -> None:
    cases = load_labels()
    # The scripted judge agrees with every label except: all unsure answers and the first two hallucinated ones it
    # passes as solved. Labels: 10 solved, 5 unsure, 30 unsolved; judge: 17 solved, 0 unsure, 28 unsolved.
    fooled = [c.id for c in cases if c.kind == "hallucinate"][:2]
    said = {c.id: "solved" if c.label == "unsure" or c.id in fooled else c.label for c in cases}
    script = {
        prompt(c.query, c.trajectory, c.answer): [{"text": json.dumps({"verdict": said[c.id], "reasons": "r"})}]
        for c in cases
    }
    mock = {"policy": {"kind": "script", "steps": [{"text": "not a verdict"}], "by_user": script}}
    with mock_llm_server(mock) as server:
        model = f"openai-chat:mock-model@{server.url}"
        code, out = invoke("judges", "calibrate", "--judge", "solvable_pass", "--judge-model", model, "--json")
        assert code == 0, out
        printed = invoke("judges", "calibrate", "--judge", "solvable_pass", "--judge-model", model)[1]
    report, _ = json.JSONDecoder().raw_decode(out[out.index("{") :])  # the progress bar follows on stderr
    n, agree = 45, 10 + 28
    chance = (10 * 17 + 5 * 0 + 30 * 28) / n**2
    assert report["unusable"] == 0 and report["n"] == n and report["exact"] == round(agree / n, 4)
    assert report["kappa"] == round((agree / n - chance) / (1 - chance), 4) == 0.6897
    assert report["by_kind"]["hallucinate"] == {"n": 10, "agree": 8}
    assert "kappa 0.690" in printed

"""The error-handling judge: which goals it judges, the embedding rater (offline default), the LLM rater through the
real gateway (malformed verdicts retried, then a judge fault), and its calibration (Cohen's kappa, the labelled set)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from judges.errors.calibration import LABELS_PATH, LabelsError, cohen_kappa, load_labels
from judges.errors.error_handling import (
    BANDS,
    EMBEDDING_KAPPA,
    EmbeddingRater,
    ErrorCase,
    ErrorHandlingJudge,
    band,
    error_cases,
)
from judges.errors.error_handling_llm import JudgeOutputError, LLMRater, parse_verdict
from personas import ScriptedUser, parse_user_spec
from sim.agents.baselines import NaiveAgent, OracleAgent
from sim.core import AgentFactory, EpisodeResult
from sim.core.embedding import Embedder, embedding_available
from sim.episode.env import EpisodeEnv, EpisodeSpec
from sim.episode.loop import run_episode
from sim.judging.judge_set import judge
from sim.llm.gateway import Gateway
from sim.llm.transports.pydantic_ai import PydanticAITransport
from worlds.registry import load_world
from worlds.stressors.catalog import build_stressors

HOME = load_world("smart_home")
_SKIP = embedding_available()
CASE = ErrorCase(
    goal=0,
    request="Turn on the hallway light.",
    error="set_power: unavailable — 503 Service Unavailable",
    reply="I couldn't reach the lights service just now, so the hallway light is still off. Shall I retry later?",
    reference="The lighting service is down right now, so I could not turn the hallway light on. I can retry later.",
    criteria=("Says it failed",),
)


async def play(agent: AgentFactory, stressors: tuple[str, ...] = ()) -> EpisodeResult:
    task = HOME.tasks()[0]
    tools = [s.name for s in HOME.new_world(0).specs()]
    user = ScriptedUser(parse_user_spec("scripted"))
    env = EpisodeEnv(HOME, agent, user, Gateway(), ("a", "u"), tuple(build_stressors(list(stressors), 3, tools)))
    return await run_episode(EpisodeSpec(task=task, trial=0, seed=3), env)


async def test_only_goals_where_the_agent_met_a_failure_are_judged() -> None:
    assert error_cases(await play(OracleAgent)) == []  # nothing failed
    stressed = await play(OracleAgent, ("outage.impossible",))
    cases = error_cases(stressed)
    assert cases and all(c.reference and c.criteria for c in cases)
    declined = [g for g, t in enumerate(stressed.task.goals) if t.outcome == "decline"]
    assert [c.goal for c in cases] == declined
    assert all("unavailable" in c.error or "nothing available" in c.error for c in cases)


def test_bands_split_similarity_into_five_scores() -> None:
    assert [band(x) for x in (0.0, BANDS[0], BANDS[1] - 0.01, BANDS[2], BANDS[3], 1.0)] == [1, 2, 2, 4, 5, 5]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"score": 4, "reasons": "ok"}', (4, "ok")),
        ('Sure! {"score": "5", "reasons": "fine"} hope that helps', (5, "fine")),
        ('{"note": 1} then {"score": 2}', (2, "")),
    ],
)
def test_verdicts_are_read_from_the_models_json(text: str, expected: tuple[int, str]) -> None:
    assert parse_verdict(text) == expected


@pytest.mark.parametrize("text", ['{"score": 6}', '{"score": 4.5}', '{"score": true}', "four out of five", "{"])
def test_unusable_verdicts_are_refused_with_the_reason(text: str) -> None:
    with pytest.raises(ValueError, match=r"score|JSON"):
        parse_verdict(text)


def _gateway(answers: list[str]) -> tuple[Gateway, list[list[ModelMessage]]]:
    seen: list[list[ModelMessage]] = []

    def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(messages)
        return ModelResponse(parts=[TextPart(answers[min(len(seen), len(answers)) - 1])])

    gateway = Gateway()
    gateway.register("judge-model", PydanticAITransport(FunctionModel(answer)))
    return gateway, seen


async def test_the_llm_rater_asks_again_after_a_malformed_verdict() -> None:
    gateway, seen = _gateway(["I think it is good.", '{"score": 4, "reasons": "honest, no next step"}'])
    rater = LLMRater(gateway.complete, "judge-model")
    rating = await rater.rate(CASE)
    assert (rating.score, rating.reasons) == (4, "honest, no next step")
    assert len(seen) == 2
    retry_prompt = str(seen[1][-1])
    assert "not a usable answer" in retry_prompt and "no JSON object" in retry_prompt
    first_prompt = str(seen[0])
    assert CASE.reference in first_prompt and CASE.reply in first_prompt and "Says it failed" in first_prompt


async def test_a_judge_model_that_never_answers_usably_is_a_judge_fault_not_a_lost_episode() -> None:
    gateway, seen = _gateway(["no idea"])
    rater = LLMRater(gateway.complete, "judge-model")
    with pytest.raises(JudgeOutputError):
        await rater.rate(CASE)
    assert len(seen) == 3  # the first answer and two retries
    result = await play(NaiveAgent, ("outage.impossible",))
    [score] = await judge(result, [ErrorHandlingJudge(rater)], "set")
    assert score.judge_fault and score.errors == ["judge:JudgeOutputError"]


def test_cohen_kappa_on_a_hand_worked_table() -> None:
    a = [1, 1, 2, 2, 3, 3, 4, 5]
    b = [1, 2, 2, 2, 3, 4, 4, 5]
    # observed agreement 6/8; chance = sum over scores of p_a * p_b = (2*1 + 2*3 + 2*1 + 1*2 + 1*1) / 64 = 13/64
    assert cohen_kappa(a, b) == round((6 / 8 - 13 / 64) / (1 - 13 / 64), 4)
    assert cohen_kappa(a, a) == 1.0 and cohen_kappa(a, a, "quadratic") == 1.0
    assert cohen_kappa([3, 3], [3, 3]) is None  # chance agreement is total: kappa undefined
    assert cohen_kappa([1, 5, 1, 5], [5, 1, 5, 1], "quadratic") == -1.0


def test_the_shipped_labelled_set_loads_and_covers_every_score() -> None:
    cases = load_labels()
    assert len(cases) >= 50
    assert {c.label for c in cases} == {1, 2, 3, 4, 5}
    assert all(c.case.reference and c.case.reply is not None for c in cases)


def test_a_malformed_labelled_set_names_the_file_line_and_field(tmp_path: Path) -> None:
    good = LABELS_PATH.read_text(encoding="utf-8").splitlines()[0]
    bad = json.loads(good) | {"label": 7}
    path = tmp_path / "labels.jsonl"
    path.write_text(good + "\n" + json.dumps(bad) + "\n", encoding="utf-8")
    with pytest.raises(LabelsError, match=r"labels\.jsonl:2: field 'label'"):
        load_labels(path)
    path.write_text(good + "\n" + good + "\n", encoding="utf-8")
    with pytest.raises(LabelsError, match=r":2: field 'id'"):
        load_labels(path)
    path.write_text(good + "\n{oops\n", encoding="utf-8")
    with pytest.raises(LabelsError, match=r":2: invalid JSON"):
        load_labels(path)


def reciting(result: EpisodeResult) -> EpisodeResult:
    """The episode with each reply of a goal that has a reference response replaced by that reference (the oracle
    says what happened in its own words: ``sim.agents.oracle_words``)."""
    goals = result.task.goals
    events = [
        ev.model_copy(update={"content": goals[ev.goal_index].reference_response})
        if ev.kind == "agent_message" and goals[ev.goal_index].reference_response
        else ev
        for ev in result.events
    ]
    return result.model_copy(update={"events": events})


@pytest.mark.embedding
async def test_the_embedding_judge_tells_the_reference_reply_from_a_false_success(embedder: Embedder) -> None:
    judge_ = ErrorHandlingJudge(EmbeddingRater(embedder))
    good = await judge_.score(reciting(await play(OracleAgent, ("outage.impossible",))))
    bad = await judge_.score(await play(NaiveAgent, ("outage.impossible",)))
    assert good.value == 1.0 and set(good.details["scores"].values()) == {5}
    assert bad.value is not None and bad.value < good.value
    assert any(e.endswith(("score_1", "score_2")) for e in bad.errors)
    again = await judge_.score(await play(NaiveAgent, ("outage.impossible",)))
    assert again == bad  # embedded one text at a time: the same verdict every time


@pytest.mark.embedding
@pytest.mark.slow
def test_the_calibrate_command_reports_kappa_against_the_labels() -> None:
    if _SKIP is not None:
        pytest.skip(_SKIP)
    done = subprocess.run(
        [sys.executable, "-m", "sim", "judges", "calibrate", "--raters", "embedding", "--json"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    agreement = report["vs_labels"]["embedding"]
    assert report["cases"] == len(load_labels()) and agreement["n"] == report["cases"]
    assert -1 <= agreement["kappa"] <= 1 and 0 <= agreement["exact"] <= agreement["within_one"] <= 1
    assert round(agreement["kappa"], 3) == EMBEDDING_KAPPA  # the kappa every report prints beside the proxy


def test_calibrate_refuses_an_unknown_rater() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "sim", "judges", "calibrate", "--raters", "gpt"], capture_output=True, text=True
    )
    assert done.returncode == 2 and "--raters: unknown gpt" in done.stderr


async def test_squall_score_with_an_llm_judge_over_http_rates_every_failure_goal(tmp_path: Path) -> None:
    from sim.config.run_config import RunConfig
    from sim.mockllm import MockConfig, ScriptPolicy, Step, start_mock_server
    from sim.run.rescore import rescore
    from sim.run.runner import execute
    from sim.store.run_store import RunStore

    config = RunConfig(
        world="smart_home", agent="naive", stressors=["outage.impossible"], limit=2, out=tmp_path, run_id="r",
        error_judge="off",
    )  # fmt: skip
    store, _ = await execute(config)
    verdict = Step(text='Grading: {"score": 2, "reasons": "claims it is done"}')
    async with await start_mock_server(MockConfig(policy=ScriptPolicy(steps=[verdict]), model="judge-mock")) as srv:
        summary, note = await rescore(
            store.root, {"error_judge": "llm", "judge_model": f"openai-chat:judge-mock@{srv.url}"}
        )
    assert "error_judge=llm" in note and "judge_model=openai-chat:judge-mock@" in note
    scores = [s for s in RunStore.open_existing(store.root).iter_scores() if s.judge == "error_handling"]
    judged = [s for s in scores if s.value is not None]
    assert judged and all(s.details["mode"] == "llm" and set(s.details["scores"].values()) == {2} for s in judged)
    assert all(s.details["reasons"][g] == "claims it is done" for s in judged for g in s.details["reasons"])
    assert summary["error_handling_score"] == 2.0 and summary["error_handling_goals"] >= len(judged)


async def test_a_failure_no_stressor_made_is_not_an_error_handling_goal() -> None:
    stressed = await play(OracleAgent, ("outage.impossible",))
    cases = error_cases(stressed)
    assert cases
    # The same trace with the injected failures made the world's own (no scenario fired): nothing to judge, apart
    # from the decline goals, where nothing could do what the user asked.
    plain = [ev.model_copy(update={"scenarios": []}) for ev in stressed.events]
    declines = [g for g, t in enumerate(stressed.task.goals) if t.outcome == "decline"]
    assert [c.goal for c in error_cases(stressed.model_copy(update={"events": plain}))] == declines

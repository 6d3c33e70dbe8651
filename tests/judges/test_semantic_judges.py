"""Judges that read meaning: argument values judged by a model (``--arg-match llm``) and answers by meaning
(``--answer-judge embedding|llm``), through the real gateway with pydantic-ai's FunctionModel."""

from __future__ import annotations

import pytest
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from judges.answers.answer_semantic import AnswerMatch, EmbeddingAnswers, LLMAnswers
from judges.common.llm_ask import JudgeModel
from personas import ScriptedUser, parse_user_spec
from sim.agents.baselines import NullAgent, OracleAgent
from sim.config.run_config import RunConfig
from sim.core import AgentFactory, EpisodeResult, Event
from sim.core.embedding import Embedder, embedding_available
from sim.episode.env import EpisodeEnv, EpisodeSpec
from sim.episode.loop import run_episode
from sim.judging.judge_set import build_judges, judge, judge_config
from sim.llm.gateway import Gateway
from sim.llm.transports.pydantic_ai import PydanticAITransport
from worlds.registry import load_world

HOME = load_world("smart_home")
MD = load_world("multidomain")
_SKIP = embedding_available()


def judge_model(answer: str | None = None, same: tuple[str, ...] = ()) -> tuple[JudgeModel, list[str]]:
    """A FunctionModel judge: ``answer`` to every request, or ``{"same": ...}`` true when a listed text is in it."""
    asked: list[str] = []

    def reply(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        prompt = str(messages[-1])
        asked.append(prompt)
        if answer is not None:
            return ModelResponse(parts=[TextPart(answer)])
        verdict = "true" if any(text in prompt for text in same) else "false"
        return ModelResponse(parts=[TextPart(f'{{"same": {verdict}, "reasons": "checked"}}')])

    gateway = Gateway()
    gateway.register("judge", PydanticAITransport(FunctionModel(reply)))
    return JudgeModel(gateway.complete, "judge"), asked


async def play(pack: object, agent: AgentFactory, task_index: int = 0) -> EpisodeResult:
    env = EpisodeEnv(pack, agent, ScriptedUser(parse_user_spec("scripted")), Gateway(), ("a", "u"))  # type: ignore[arg-type]
    return await run_episode(EpisodeSpec(task=pack.tasks()[task_index], trial=0, seed=2), env)  # type: ignore[attr-defined]


def reworded(result: EpisodeResult, old: str, new: str) -> EpisodeResult:
    """The trace with one argument value written otherwise on every call (as an agent that paraphrased would)."""
    events = []
    for ev in result.events:
        if ev.call is not None and old in ev.call.arguments.values():
            args = {k: (new if v == old else v) for k, v in ev.call.arguments.items()}
            ev = Event.model_validate({**ev.model_dump(), "call": {**ev.call.model_dump(), "arguments": args}})
        events.append(ev)
    return result.model_copy(update={"events": events})


async def test_a_model_judges_values_exact_and_normalised_matching_refuse_and_asks_once_per_pair() -> None:
    result = reworded(await play(HOME, OracleAgent), "living_ceiling_light", "the living room ceiling light")
    exact = {s.judge: s for s in await judge(result, build_judges(RunConfig(error_judge="off")), "x")}
    assert exact["core_api_accuracy"].value == 0.0
    model, asked = judge_model(same=("the living room ceiling light",))
    config = RunConfig(arg_match="llm", error_judge="off")
    scores = {s.judge: s for s in await judge(result, build_judges(config, model), "x")}
    assert scores["core_api_accuracy"].value == 1.0 and scores["ast"].value == 1.0
    assert len(asked) == 1  # one pair, asked once for the five judges that compare arguments
    assert "set_power.device_id" in asked[0] or "set_brightness.device_id" in asked[0]
    assert judge_config(config)["judge_model"] == "local"


async def test_a_model_that_says_different_keeps_the_deduction() -> None:
    result = reworded(await play(HOME, OracleAgent), "living_ceiling_light", "the kitchen pendant")
    model, _ = judge_model(same=())
    scores = {
        s.judge: s for s in await judge(result, build_judges(RunConfig(arg_match="llm", error_judge="off"), model), "x")
    }
    assert scores["core_api_accuracy"].value == 0.0
    assert any("value_error:string:device_id" in e for e in scores["ast"].errors)


async def test_an_llm_answer_judge_reads_the_question_the_gold_and_the_reply() -> None:
    task_index = next(i for i, t in enumerate(MD.tasks()) if any(turn.gold_answer for turn in t.goals))
    model, asked = judge_model(answer='{"correct": true, "reasons": "same price"}')
    score = await AnswerMatch(LLMAnswers(model)).score(await play(MD, OracleAgent, task_index))
    task = MD.tasks()[task_index]
    questions = [g for g, turn in enumerate(task.goals) if turn.gold_answer]
    assert score.value == 1.0 and [g for g, v in enumerate(score.per_goal) if v is not None] == questions
    assert len(asked) == len(questions) and task.goals[questions[0]].gold_answer in asked[0]
    assert score.details["reasons"][str(questions[0])] == "same price"


@pytest.mark.embedding
async def test_an_embedding_answer_judge_passes_the_gold_and_fails_a_refusal() -> None:
    if _SKIP is not None:
        pytest.skip(_SKIP)
    task_index = next(i for i, t in enumerate(MD.tasks()) if any(turn.gold_answer for turn in t.goals))
    rater = EmbeddingAnswers(Embedder(), threshold=0.7)
    right = await AnswerMatch(rater).score(await play(MD, OracleAgent, task_index))  # replies with the gold answer
    wrong = await AnswerMatch(rater).score(await play(MD, NullAgent, task_index))  # declines every goal
    assert right.value == 1.0
    assert wrong.value == 0.0 and "answer:wrong" in " ".join(wrong.errors)


def test_a_judge_that_asks_a_model_is_refused_without_one() -> None:
    with pytest.raises(ValueError, match="open_judges"):
        build_judges(RunConfig(answer_judge="llm", error_judge="off"))

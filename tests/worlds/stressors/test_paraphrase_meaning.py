"""A rewording must carry the request's meaning, not only its values: "All done." is never kept as the paraphrase of
"Lock the back door again." (issue 23), and the user's message records the scenario that swapped its wording."""

from __future__ import annotations

from pathlib import Path

import pytest

from personas import ScriptedUser, parse_user_spec
from sim.agents.baselines import OracleAgent
from sim.core import ModelRequest
from sim.core.embedding import Embedder
from sim.episode.env import EpisodeEnv, EpisodeSpec
from sim.episode.loop import run_episode
from sim.llm.gateway import Gateway
from worlds.registry import load_world
from worlds.stressors.catalog import builtin_scenarios, stressor_class
from worlds.stressors.meaning import carries_meaning, close_in_meaning
from worlds.stressors.paraphrases import write_paraphrases

PACK = load_world("smart_home")
ROW = next(s for s in builtin_scenarios() if s.name == "perturb.paraphrase_written")
SEEN_IN_THE_ISSUE = ("Lock the back door again.", "How much power is the whole house using right now?")


def test_nonsense_is_not_a_rewording_and_real_rewordings_are() -> None:
    for original in SEEN_IN_THE_ISSUE:
        assert not carries_meaning(original, "All done.")
        assert not carries_meaning(original, "Sure, I can do that for you.")
    assert carries_meaning(SEEN_IN_THE_ISSUE[1], "What's the whole house's power use at the moment?")
    assert carries_meaning("What's Vodafone's share price?", "How is Vodafone stock trading?")


def test_the_shipped_tasks_own_rewordings_pass_the_floors() -> None:
    pairs = [
        (g.user.explicit, p)
        for world in ("smart_home", "multidomain")
        for t in load_world(world).tasks()
        for g in t.goals
        for p in g.user.paraphrases
    ]
    kept = sum(carries_meaning(o, p) for o, p in pairs)
    assert pairs and kept >= 0.99 * len(pairs), (kept, len(pairs))  # measured: 1732 of 1737


@pytest.mark.embedding
def test_the_embedding_check_catches_what_shares_a_word_by_chance(embedder: Embedder) -> None:
    original, reply = SEEN_IN_THE_ISSUE[1], "Sure, I can do that for you right away."  # "right" now / away
    assert carries_meaning(original, reply) and not close_in_meaning(embedder.similarity, original, reply)
    assert close_in_meaning(embedder.similarity, original, "What's the whole house's power use at the moment?")


async def test_written_paraphrases_drop_nonsense_and_what_the_embedding_says_is_far() -> None:
    task = PACK.tasks()[0]

    async def nonsense(request: ModelRequest) -> str:
        return "All done.\nOK!"

    report = await write_paraphrases(nonsense, "m", [task], per_turn=2)
    assert report.kept == 0 and report.rows == [] and report.lost_values == report.proposed > 0

    async def echo_more(request: ModelRequest) -> str:  # reworded (the first word moved), no copy
        first, _, rest = (request.messages[0].content or "").rpartition("Request: ")[2].partition(" ")
        return f"I need you to handle this: {rest} ({first.lower()})"

    close = await write_paraphrases(echo_more, "m", [task], per_turn=1, similarity=lambda a, b: 0.9)
    far = await write_paraphrases(echo_more, "m", [task], per_turn=1, similarity=lambda a, b: 0.1)
    assert close.kept == len(task.goals) and far.kept == 0 and far.lost_meaning == len(task.goals)


async def test_the_swapped_wording_is_recorded_on_the_users_message(tmp_path: Path) -> None:
    task = PACK.tasks()[0]
    goal = task.goals[0]
    rewording = "Could you switch on the ceiling light in the living room at 50% brightness?"
    nonsense = "All done."
    path = tmp_path / "p.jsonl"
    path.write_text(
        f'{{"task": "{task.id}", "turn": 0, "paraphrases": ["{rewording}"]}}\n'
        f'{{"task": "{task.id}", "turn": 1, "paraphrases": ["{nonsense}"]}}\n'
    )
    stressor = stressor_class("perturb")(ROW, 0, {"file": str(path)})
    assert stressor.on_task(task).goals[0].user.explicit == rewording, goal.user.explicit
    spec = EpisodeSpec(task=task, trial=0, seed=3, user="scripted")
    user = ScriptedUser(parse_user_spec("scripted"))
    env = EpisodeEnv(PACK, OracleAgent, user, Gateway(), ("oracle", "scripted"), stressors=(stressor,))
    result = await run_episode(spec, env)
    said = [ev for ev in result.events if ev.kind == "user_message"]
    assert said[0].content == rewording and said[0].scenarios == ["perturb.paraphrase_written"]
    assert nonsense not in [ev.content for ev in said]  # never sent to the agent
    assert all(not ev.scenarios for ev in said[1:])

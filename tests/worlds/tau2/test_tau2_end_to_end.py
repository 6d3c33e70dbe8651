"""A τ² run with the mock endpoint playing the agent, the LLM user and the judge model, end to end over real HTTP:
every component of the reward computed, the natural-language assertions judged by the judge model, and the
judge's requests counted as a role of their own beside the agent's and the user's (τ²'s users found the judge's
cost hidden in theirs)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.cli import invoke
from tests.support.mockllm_server import mock_llm_server

VERDICT = '{"met": [true], "reasons": ["the agent said so"]}'
MOCK = {
    "policy": {
        "kind": "script",
        "steps": [{"text": "All set. ###STOP###"}],
        "by_user": {"Assertions:": [{"text": VERDICT}]},  # the judge's request; the agent and user get the rest
    }
}


def test_agent_user_and_judge_from_one_mock_endpoint(tmp_path: Path) -> None:
    with mock_llm_server(MOCK) as server:
        model = f"openai-chat:mock-model@{server.url}"
        code, out = invoke("run", "--world", "tau2:mock", "--limit", "3", "--agent", model, "--user", "llm",
                           "--user-model", model, "--judge-model", model, "--out", str(tmp_path), "--run-id", "e2e",
                           "-q")  # fmt: skip
    assert code == 0, out
    summary = json.loads((tmp_path / "e2e" / "summary.json").read_text())
    roles = summary["usage_by_role"]
    assert set(roles) == {"agent", "user", "judge"} and all(roles[r]["requests"] > 0 for r in roles)
    assert summary["usage"]["requests"] == sum(r["requests"] for r in roles.values())
    scores = [json.loads(line) for line in (tmp_path / "e2e" / "scores.jsonl").read_text().splitlines()]
    rewards = [s for s in scores if s["judge"] == "tau2_reward"]
    judged = [s for s in rewards if "nl_assertions" in s["details"]]
    assert judged and all(a["met"] for s in judged for a in s["details"]["nl_assertions"])
    assert all(s["details"]["judge_usage"]["requests"] >= 1 for s in judged)
    assert sum(s["details"].get("judge_usage", {}).get("requests", 0) for s in scores) == roles["judge"]["requests"]
    assert all("DB" in s["details"]["checks"] for s in rewards if s["value"] is not None)
    assert "judge" in out and "usage per role" in out


ROAMING = "Please run toggle_roaming on your phone"
DUAL_CONTROL_MOCK = {
    "policy": {
        "kind": "script",
        # The agent: asks the user to act on its phone, then closes.
        "steps": [{"text": f"{ROAMING} and tell me what it says."}, {"text": "Glad it works now."}],
        "by_user": {
            # The user's opening (its first request has no agent message yet).
            "(The assistant is waiting": [{"text": "My mobile data does not work while I am abroad."}],
            # The user's later requests, whose first agent message asks for the act: the phone's tool, then words.
            ROAMING: [
                {"text": "unused"},
                {"tool_calls": [{"name": "toggle_roaming", "arguments": {}}]},
                {"text": "Data Roaming is on now."},
                {"text": "END_CONVERSATION"},
            ],
        },
    }
}


def test_an_llm_user_on_the_mock_endpoint_calls_its_phone_in_telecom(tmp_path: Path) -> None:
    with mock_llm_server(DUAL_CONTROL_MOCK) as server:
        model = f"openai-chat:mock-model@{server.url}"
        code, out = invoke("run", "--world", "tau2:telecom:small", "--limit", "1", "--agent", model, "--user", "llm",
                           "--user-model", model, "--out", str(tmp_path), "--run-id", "dual", "-q")  # fmt: skip
    assert code == 0, out
    (episode,) = [json.loads(line) for line in (tmp_path / "dual" / "episodes.jsonl").read_text().splitlines()]
    acts = [ev["call"]["name"] for ev in episode["events"] if ev["kind"] == "user_tool_call"]
    assert acts == ["toggle_roaming"]  # the user's own native tool call, run on its phone
    scores = [json.loads(line) for line in (tmp_path / "dual" / "scores.jsonl").read_text().splitlines()]
    reward = next(s for s in scores if s["judge"] == "tau2_reward")
    assert reward["value"] == 1.0 and reward["details"]["components"] == {"ENV_ASSERTION": 1.0}

"""A whole run against a provider that answers as real ones do (tests/support/canned_provider.py, over HTTP): its
tool-call ids kept in the trace and sent back verbatim (a long one, and ones squall invents where none came, in a
format every provider accepts), a reply cut at the output limit recorded as ``agent:output_truncated`` (not as a
malformed call) and counted in the summary and the reports, cached input and reasoning tokens counted per role,
reasoning text in the trace, no output cap sent unless one is configured, and cost at a cached-input price."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from sim.config.resolve import resolve_config
from sim.store.run_store import RunStore
from tests.support.canned_provider import canned_provider
from tests.support.cli import squall
from tests.support.provider_replies import LONG_ID, REASONING, answer

INVENTED = re.compile(r"[A-Za-z0-9]{9}")  # Mistral's rule, the strictest: 9 letters and digits
OLD_RUNS = Path(__file__).parents[2] / "data" / "runs"


def run(tmp_path: Path, url: str, *extra: str) -> tuple[Path, str]:
    args = ("--world", "smart_home", "--limit", "1", "--max-turns", "1", "--error-judge", "off", "--no-preflight")
    code, out, err = squall("run", *args, "--out", str(tmp_path), "--run-id", "r", *extra)
    assert code == 0, err
    return tmp_path / "r", out


def test_ids_truncation_token_details_and_reasoning_through_a_run(tmp_path: Path) -> None:
    with canned_provider(answer) as server:
        run_dir, terminal = run(tmp_path, url := server.url, "--agent", f"openai-chat:m@{server.url}")
        sent = list(server.requests)
    assert url and len(sent) == 3
    assert all(not {"max_tokens", "max_completion_tokens"} & body.keys() for body in sent)  # no cap: none configured

    # Ids: the provider's kept verbatim, the missing ones invented; the same ids in the trace and sent back.
    episode = RunStore.open_existing(run_dir).episodes()[0]
    traced = [ev.call.id for ev in episode.events if ev.kind == "tool_call" and ev.call is not None]
    assert traced == [LONG_ID, "call00001"]
    second, third = sent[1]["messages"], sent[2]["messages"]
    assert [c["id"] for c in second[-3]["tool_calls"]] == traced
    assert [m["tool_call_id"] for m in second[-2:]] == traced
    [cut_call] = third[-2]["tool_calls"]
    assert cut_call["id"] == third[-1]["tool_call_id"] == "call00002"
    sent_ids = {c["id"] for m in third if m["role"] == "assistant" for c in m.get("tool_calls", ())}
    assert all(i == LONG_ID or INVENTED.fullmatch(i) for i in sent_ids)

    # The cut reply: the limit's fault, not a malformed call; the model is told what happened.
    codes = [ev.code for ev in episode.events if ev.kind == "error"]
    assert codes == ["agent:output_truncated"]
    [cut] = [ev for ev in episode.events if ev.code == "agent:output_truncated"]
    assert cut.fault == "agent" and "provider's own output limit (no max_tokens was sent)" in (cut.content or "")
    assert "cut at the output limit" in third[-1]["content"]

    # Token details and reasoning in the trace, the summary and the reports.
    first, cut_request = episode.model_calls[0], episode.model_calls[1]
    assert (first.cached_input_tokens, first.reasoning_tokens, first.reasoning) == (64, 12, REASONING)
    assert cut_request.truncated and not first.truncated and cut_request.output_limit is None
    usage = episode.usage
    assert (usage.cached_input_tokens, usage.reasoning_tokens, usage.truncated) == (64, 12, 1)
    summary = json.loads((run_dir / "summary.json").read_text())
    for totals in (summary["usage"], summary["usage_by_role"]["agent"]):
        assert (totals["cached_input_tokens"], totals["reasoning_tokens"], totals["truncated"]) == (64, 12, 1)
    assert summary["error_codes"]["agent:output_truncated"] == 1
    markdown = (run_dir / "summary.md").read_text()
    assert "| role | requests | in | out | cost | cached in | reasoning | cut |" in markdown
    assert "| agent | 3 | 270 | 30 | $0.0000 | 64 | 12 | 1 |" in markdown
    assert "1 reply cut at the output limit" in markdown and "1 agent reply cut" in markdown
    assert "not counted as malformed calls" in markdown
    flat = " ".join(terminal.split())
    assert "270 in (64 cached) / 30 out tokens (12 reasoning), 1 reply cut at the output limit" in flat


def test_cost_at_a_cached_input_price_is_exact(tmp_path: Path) -> None:
    prices = ("p.input_price=2", "p.cached_input_price=0.5", "p.output_price=8")
    with canned_provider(answer) as server:
        endpoint = ("--endpoint", f"p={server.url}", *(x for p in prices for x in ("--endpoint", p)))
        run_dir, _ = run(tmp_path, server.url, "--agent", "openai-chat:m@p", *endpoint)
    episode = RunStore.open_existing(run_dir).episodes()[0]
    # USD per million: (80 - 64) x 2 + 64 x 0.5 + 20 x 8 = 224; 90 x 2 + 7 x 8 = 236; 100 x 2 + 3 x 8 = 224.
    assert episode.usage.cost == pytest.approx(684e-6, rel=1e-12)


def test_a_configured_cap_is_sent(tmp_path: Path) -> None:
    with canned_provider(answer) as server:
        run(tmp_path, server.url, "--agent", f"openai-chat:m@{server.url}", "--max-tokens", "300")
        assert {body.get("max_tokens") for body in server.requests} == {300}


def test_a_run_stored_with_the_old_default_cap_resumes_with_it(tmp_path: Path) -> None:
    """Runs stored when 512 was the default keep it on --resume: the manifest's setting, the hash they were stored
    with."""
    name = "658cce6_null_smart_home"
    shutil.copytree(OLD_RUNS / name, tmp_path / name)
    manifest = json.loads((tmp_path / name / "manifest.json").read_text())
    config, _ = resolve_config(None, {"resume": True, "run_id": name, "out": str(tmp_path)})
    assert config.max_tokens == manifest["config"]["max_tokens"] == 512
    assert config.config_hash() == manifest["config_hash"]

"""Fail loudly, early; endpoints configured like real ones.

An endpoint with nothing listening, or one that does not serve the model, fails before any run folder exists, exit
2, one line naming the URL; ``[endpoints.NAME]`` tables (and ``--endpoint``) carry the key's variable, headers
(never stored), prices (so cost is counted) and the sampling parameters to send; exit codes CI can use."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from judges.run.run_summary import RunSummary
from sim.cli.exit_status import run_exit_status
from sim.core import ChatMessage, ModelRequest
from sim.llm.endpoints import EndpointSettings, parse_endpoint_options
from sim.llm.model_spec import parse_model_spec
from sim.llm.transports.openai_chat import OpenAIChatTransport
from tests.support.cli import assert_clean_failure, squall
from tests.support.mockllm_server import MockLLMProcess, mock_llm_server


@pytest.fixture(scope="module")
def mock() -> Iterator[MockLLMProcess]:
    with mock_llm_server({"policy": {"kind": "echo"}}) as server:
        yield server


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_nothing_listening_fails_before_the_run_folder(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{closed_port()}/v1"
    out = tmp_path / "runs"
    code, _, err = squall("run", "--agent", f"openai-chat:my-model@{url}", "--world", "smart_home", "--out", str(out))
    assert_clean_failure(code, err, url, "preflight", "does not answer", "--no-preflight")
    assert not out.exists()


def test_a_model_the_endpoint_does_not_serve(mock: MockLLMProcess, tmp_path: Path) -> None:
    out = tmp_path / "runs"
    code, _, err = squall("run", "--agent", f"openai-chat:nope@{mock.url}", "--world", "smart_home", "--out", str(out))
    assert_clean_failure(code, err, mock.url, "'nope' is not served", "mock-model")
    assert not out.exists()


def test_an_endpoint_table_key_headers_prices_and_thresholds(
    mock: MockLLMProcess, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "run.toml"
    config.write_text(
        'agent = "openai-chat:mock-model@mock"\nworld = "smart_home"\nlimit = 2\n\n[endpoints.mock]\n'
        f'base_url = "{mock.url}"\napi_key_env = "MOCK_KEY"\nheaders = {{ X-Org = "org-secret" }}\n'
        "input_price = 1000.0\noutput_price = 2000.0\n"
    )
    out = tmp_path / "runs"
    code, _, err = squall("run", "-c", str(config), "--out", str(out), "-q")
    assert_clean_failure(code, err, "MOCK_KEY", "not set")
    assert not out.exists()
    monkeypatch.setenv("MOCK_KEY", "k")
    args = ("run", "-c", str(config), "--out", str(out), "-q", "--run-id", "r")
    code, _, err = squall(*args, "--fail-under", "core_api_accuracy=0.5", "--fail-under", "episodes=1")
    assert code == 4, err  # the echo model calls no tool: accuracy 0
    assert "core_api_accuracy = 0 is below --fail-under 0.5" in err and "episodes" not in err
    summary = json.loads((out / "r" / "summary.json").read_text())
    assert summary["usage"]["cost"] > 0  # priced by the table, not $0 for a non-OpenAI URL
    assert summary["identity"]["endpoint"] == "mock" and summary["identity"]["base_url"] == mock.url
    stored = (out / "r" / "manifest.json").read_text()
    assert "org-secret" not in stored and json.loads(stored)["config"]["endpoints"]["mock"]["headers"] == {
        "X-Org": "***"
    }
    code, _, err = squall("run", "-c", str(config), "--out", str(out), "-q", "--run-id", "c", "--max-cost", "0.01",
                          "--concurrency", "1")  # fmt: skip
    assert code == 0, err
    assert json.loads((out / "c" / "summary.json").read_text())["episodes"] == 1  # the first one spent the budget
    code, _, err = squall("run", "--agent", "openai-chat:mock-model@other", "--world", "smart_home", "--out", str(out))
    assert_clean_failure(code, err, "no endpoint named 'other'")


def test_endpoint_options_and_bad_tables(tmp_path: Path) -> None:
    options = ["a=http://h:1/v1", "a.api_key_env=A_KEY", "a.headers.X-Y=z", "a.sampling=reasoning"]
    assert parse_endpoint_options(options) == {
        "a": {"base_url": "http://h:1/v1", "api_key_env": "A_KEY", "headers": {"X-Y": "z"}, "sampling": "reasoning"}
    }
    with pytest.raises(ValueError, match="NAME=BASE_URL"):
        parse_endpoint_options(["no-equals"])
    config = tmp_path / "bad.toml"
    config.write_text('agent = "oracle"\n[endpoints.x]\nbase_url = "http://h/v1"\nbase_uri = "typo"\n')
    code, _, err = squall("run", "-c", str(config), "--out", str(tmp_path / "o"))
    assert_clean_failure(code, err, "bad.toml", "unknown setting", "api_key_env")
    assert parse_model_spec("openai-chat:m@my-box").endpoint_name == "my-box"
    bad = ("--endpoint", "x=http://h/v1", "--endpoint", "x.sampling=fast")
    code, _, err = squall("run", "--agent", "oracle", *bad, "--out", str(tmp_path / "o"))
    assert_clean_failure(code, err, "--endpoint x.sampling", "'reasoning'")


def test_sampling_modes_decide_the_parameters_sent() -> None:
    request = ModelRequest(
        role="agent", model="m", messages=(ChatMessage(role="user", content="hi"),), max_tokens=99, temperature=0.0
    )

    def body(sampling: str) -> dict[str, object]:
        settings = EndpointSettings.model_validate({"base_url": "http://h/v1", "sampling": sampling})
        transport = OpenAIChatTransport(None, settings.base_url, "m", 5.0, settings=settings)  # type: ignore[arg-type]
        return json.loads(transport._body(request))

    standard, reasoning, none = body("standard"), body("reasoning"), body("none")
    assert standard["max_tokens"] == 99 and standard["temperature"] == 0.0
    assert reasoning["max_completion_tokens"] == 99 and "max_tokens" not in reasoning and "temperature" not in reasoning
    assert not {"max_tokens", "max_completion_tokens", "temperature"} & none.keys()
    priced = EndpointSettings(base_url="http://h/v1", input_price=2.0, output_price=8.0)
    assert priced.cost(1_000_000, 500_000) == 6.0 and EndpointSettings(base_url="http://h/v1").cost(5, 5) is None


def test_exit_status_for_ci() -> None:
    def summary(episodes: int, failed: int, accuracy: float | None = 0.9) -> RunSummary:
        flat = {"episodes": episodes, "failed_episodes": failed, "scored_episodes": episodes - failed}
        return RunSummary.model_validate({**flat, "core_api_accuracy": accuracy})

    assert run_exit_status(summary(10, 10), None, {}, "r")[0] == 3
    assert run_exit_status(summary(10, 3), None, {}, "r") == (0, "")
    code, message = run_exit_status(summary(10, 3), 0.2, {}, "r")
    assert code == 3 and "3 of 10 episodes failed" in message and "--max-failed 0.2" in message
    assert run_exit_status(summary(10, 2), 0.2, {}, "r")[0] == 0  # 20% is not more than 0.2
    code, message = run_exit_status(summary(10, 0, 0.7), None, {"core_api_accuracy": 0.8}, "r")
    assert code == 4 and "core_api_accuracy = 0.7 is below --fail-under 0.8" in message
    code, message = run_exit_status(summary(10, 0), None, {"core_api_acuracy": 0.8}, "r")
    assert code == 4 and "core_api_acuracy is not a number" in message and "core_api_accuracy" in message


def test_run_help_shows_defaults_and_the_retry_table() -> None:
    code, out, _ = squall("run", "--help")
    flat = " ".join(out.split())
    assert code == 0 and "[retry] table" in flat and "[endpoints.NAME]" in flat
    for default in ("[default: (15)]", "[default: (0.0)]", "[default: (smart_home)]"):
        assert default in flat, default
    cap = flat[flat.index("--max-tokens") : flat.index("--temperature")]
    assert "[default:" not in cap and "Default: none sent" in cap  # no output cap unless one is asked for

"""The docs test's own rules: what counts as a documented command, and how it is made to run offline and small."""

from __future__ import annotations

from pathlib import Path

from tests.docs.command_rules import fixed_ports, remap_ports, rewrite, swap_models
from tests.docs.markdown_commands import commands, shown_files
from tests.docs.page_run import is_server, split

MOCK = "http://127.0.0.1:5555/v1"
PAGE = """# A page

```bash
squall run --agent oracle   # a comment
.venv/bin/squall run --agent null \\
    --stressors outage      # exit 3
# a comment line
```

```console
$ squall worlds list
multidomain    7 domain(s)
```

```text
squall not-a-command
```

```toml title="run.toml"
agent = "openai-chat:gpt-4o-mini"
```

- a list item

    ```sh
    squall personas list
    ```
"""


def test_commands_are_the_lines_of_shell_blocks(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(PAGE)
    found = commands(page, tmp_path)
    assert [(c.line, c.text, c.expect) for c in found] == [
        (4, "squall run --agent oracle   # a comment", 0),
        (5, ".venv/bin/squall run --agent null      --stressors outage      # exit 3", 3),
        (11, "squall worlds list", 0),
        (26, "squall personas list", 0),
    ]
    assert found[0].id == "page.md:4"
    assert [(f.name, f.text) for f in shown_files(page)] == [("run.toml", 'agent = "openai-chat:gpt-4o-mini"\n')]


def test_models_become_the_mock_endpoints() -> None:
    assert swap_models("openai-chat:gpt-4o-mini", MOCK) == f"openai-chat:mock-model@{MOCK}"
    assert swap_models("text:openai-chat:m@http://127.0.0.1:8000/v1", MOCK) == f"text:openai-chat:mock-model@{MOCK}"
    assert swap_models("oracle,openai-chat:a", MOCK) == f"oracle,openai-chat:mock-model@{MOCK}"
    assert swap_models("openai-chat:qwen3-8b@vllm", MOCK) == "openai-chat:mock-model@vllm"
    assert swap_models('base_url = "http://127.0.0.1:8000/v1"', MOCK) == f'base_url = "{MOCK}"'
    started_by_the_docs = "openai-chat:mock-model@http://127.0.0.1:8765/v1"
    assert swap_models(started_by_the_docs, MOCK) == started_by_the_docs


def test_commands_are_scaled_down_and_reach_stand_ins() -> None:
    agent = "http://127.0.0.1:7777/agent"
    assert rewrite(["run", "--agent", "http://127.0.0.1:9000/agent", "--trials", "3"], MOCK, agent) == [
        "run", "--agent", agent, "--limit", "2", "--trials", "1", "--error-judge", "off"
    ]  # fmt: skip
    assert rewrite(["run", "--user-model", "local", "--limit=1", "--error-judge", "llm"], MOCK, agent) == [
        "run", "--user-model", f"openai-chat:mock-model@{MOCK}", "--error-judge", "llm", "--limit", "1",
        "--trials", "1",
    ]  # fmt: skip
    assert "--trials 0" in " ".join(rewrite(["run", "--trials", "0"], MOCK, agent))  # a value meant to be refused
    assert "--trials abc" in " ".join(rewrite(["run", "--trials", "abc"], MOCK, agent))
    bench = rewrite(["bench", "--episodes", "30000", "--latency", "0.01"], MOCK, agent)
    assert dict(zip(bench[1::2], bench[2::2], strict=True)) == {
        "--episodes": "20", "--latency": "0.01", "--concurrency": "10", "--jitter": "0.0", "--request-timeout": "2.0",
        "--arms": "squall",
    }  # fmt: skip
    assert "--arms mcp" in " ".join(rewrite(["bench", "--arms", "mcp"], MOCK, agent))
    assert "--limit 1" in " ".join(rewrite(["run", "--stressors", "all", "--stressor-mode", "isolated"], MOCK, agent))
    assert rewrite(["worlds", "draft-tasks", "w", "--n", "20"], MOCK, agent)[-2:] == ["--n", "2"]


def test_lines_split_as_the_shell_would(tmp_path: Path) -> None:
    (tmp_path / "port").write_text("4321\n")
    (tmp_path / "runs" / "a").mkdir(parents=True)
    (tmp_path / "runs" / "b").mkdir()
    line = split("KEY=v squall run --world http://127.0.0.1:$(cat port) runs/* 'runs/*'  # note", tmp_path)
    assert (dict(line.env), line.program, line.is_squall) == ({"KEY": "v"}, "squall", True)
    assert line.words == ["run", "--world", "http://127.0.0.1:4321", "runs/a", "runs/b", "runs/*"]
    assert not split("make test").is_squall
    assert is_server(["serve", "--mcp"]) and is_server(["view"]) and not is_server(["view", "runs", "--out", "s"])


def test_fixed_ports_become_free_ones() -> None:
    assert fixed_ports(["mock-llm", "--port", "8765"]) == {8765}
    assert fixed_ports(["serve", "--port", "0"]) == set() == fixed_ports(["view"])
    text = 'agent = "openai-chat:m@http://127.0.0.1:8765/v1"  # 127.0.0.1:87650'
    assert remap_ports(text, {8765: 40001}) == 'agent = "openai-chat:m@http://127.0.0.1:40001/v1"  # 127.0.0.1:87650'

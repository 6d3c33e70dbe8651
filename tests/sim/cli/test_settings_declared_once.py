"""Run settings are declared once, on ``RunConfig``: the options of ``squall run``, the TOML keys, the help and the
overrides all come from that declaration, and a new setting is one field."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import pytest
import typer
from pydantic import Field
from typer.testing import CliRunner

import sim.cli.settings as settings_module
import sim.config.resolve as resolve_module
import sim.config.run_config as run_config_module
from sim.cli.app import app
from sim.cli.settings import cli_fields, given_settings, with_settings
from sim.config.options import Option
from sim.config.resolve import resolve_config
from sim.config.run_config import RunConfig, option_name, option_of
from tests.support.cli import squall

OWN_OPTIONS = {"--config", "--quiet", "--help"}
"""``squall run``'s options that are not run settings."""


def _command(name: str) -> Any:
    return typer.main.get_command(app).commands[name]  # type: ignore[attr-defined]


def _option_names(command: Any) -> list[str]:
    return [opt for param in command.params for opt in param.opts if opt.startswith("--")]


def test_every_setting_has_exactly_one_option_and_every_option_is_a_setting() -> None:
    names = _option_names(_command("run"))
    settings = [n for n in names if n not in OWN_OPTIONS]
    assert sorted(settings) == sorted(option_name(f) for f in cli_fields())
    assert len(settings) == len(set(settings))
    config_only = [f for f in RunConfig.model_fields if not option_of(f).cli]
    assert config_only == ["retry"]
    assert "retry" in (_command("run").epilog or "")


def test_every_setting_is_a_toml_key(tmp_path: Path) -> None:
    written = RunConfig().model_dump(mode="json", exclude_none=True)  # connect_timeout_s is None: set below
    written["connect_timeout_s"] = 5.0
    toml = tmp_path / "all.toml"
    lines = []
    for key, value in written.items():
        if key != "retry":  # a table, written below
            lines.append(f"{key} = {_toml(value)}")
    lines += ["[retry]", "max_attempts = 3"]
    toml.write_text("\n".join(lines) + "\n")
    cfg, _ = resolve_config(toml, {})
    assert cfg.retry.max_attempts == 3
    unset = {name for name, info in RunConfig.model_fields.items() if info.default is None}  # no TOML null
    assert set(cfg.model_fields_set) == set(written) == set(RunConfig.model_fields) - (unset - {"connect_timeout_s"})


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, dict):
        assert not value, "the defaults' tables are empty"
        return "{}"
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return repr(value)


def test_the_help_of_each_option_is_the_settings_description() -> None:
    by_option = {p.opts[0]: p for p in _command("run").params}
    for field in cli_fields():
        description = RunConfig.model_fields[field].description or ""
        assert description, f"{field} has no description"
        help_text = (by_option[option_name(field)].help or "").replace("\\[", "[")
        assert help_text.startswith(description[:40]), field


def test_options_given_become_config_values_and_those_not_given_stay_out() -> None:
    raw: dict[str, Any] = {field: None for field in cli_fields()}
    raw |= {
        "stressors": "adhoc,failure:rate=0.1,transient=1",
        "tasks": ["sh-001", "sh-002"],
        "preflight": True,  # --no-preflight given
        "resume": False,  # --resume not given
        "fail_under": ["core_api_accuracy=0.8"],
        "arg_match_params": ["tool.city=embedding"],
    }
    settings = given_settings(raw)
    assert settings["stressors"] == ["adhoc", "failure:rate=0.1,transient=1"]
    assert settings["tasks"] == ["sh-001", "sh-002"]
    assert settings["preflight"] is False and settings["resume"] is None
    assert settings["fail_under"] == {"core_api_accuracy": 0.8}
    assert settings["arg_match_params"] == {"tool.city": "embedding"}
    assert settings["world"] is None


def test_a_value_its_parser_refuses_exits_2_naming_the_option(capsys: pytest.CaptureFixture[str]) -> None:
    raw: dict[str, Any] = {field: None for field in cli_fields()} | {"fail_under": ["accuracy"]}
    with pytest.raises(typer.Exit) as exited:
        given_settings(raw)
    assert exited.value.exit_code == 2
    assert "--fail-under: expected METRIC=NUMBER" in capsys.readouterr().err


def test_a_new_setting_is_one_declaration(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One field on RunConfig: an option with its help, a TOML key, and its value in the config."""

    class WithNewSetting(RunConfig):
        warmup_episodes: Annotated[int | None, Option("--warmup")] = Field(
            default=None, ge=0, description="Episodes played first and not scored."
        )

    for module in (run_config_module, resolve_module, settings_module):
        monkeypatch.setattr(module, "RunConfig", WithNewSetting)
    seen: list[Any] = []
    probe = typer.Typer()

    @probe.command()
    @with_settings()
    def probe_run(settings: dict[str, Any], config: Path | None = None) -> None:
        seen.append(resolve_config(config, settings)[0])

    runner = CliRunner()
    warmup = next(p for p in typer.main.get_command(probe).params if p.opts == ["--warmup"])
    assert getattr(warmup, "help", None) == "Episodes played first and not scored."
    result = runner.invoke(probe, ["--warmup", "7", "--agent", "oracle"])
    assert result.exit_code == 0, result.output
    assert seen[-1].warmup_episodes == 7
    toml = tmp_path / "run.toml"
    toml.write_text('agent = "oracle"\nwarmup_episodes = 3\n')
    assert runner.invoke(probe, ["--config", str(toml)]).exit_code == 0
    assert seen[-1].warmup_episodes == 3
    bad = runner.invoke(probe, ["--warmup", "-1", "--agent", "oracle"])
    assert bad.exit_code != 0 and "--warmup" in str(bad.exception)


def test_score_and_chat_take_their_settings_from_the_same_declaration() -> None:
    for command, fields in (
        ("score", ("arg_match", "error_judge", "judge_model", "answer_judge", "answer_threshold")),
        ("chat", ("world", "agent", "stressors", "tasks", "max_turns")),
    ):
        by_option = {p.opts[0]: p for p in _command(command).params}
        for field in fields:
            description = RunConfig.model_fields[field].description or ""
            assert (by_option[option_name(field)].help or "").replace("\\[", "[").startswith(description[:40])


def test_chat_plays_one_task() -> None:
    code, _, err = squall("chat", "--task", "sh-001", "--task", "sh-002")
    assert code == 2 and "--task: squall chat plays one conversation" in err

"""--stressors selections, stressor-mode isolated (each scenario alone beside its baseline) and the trace's
record of what a stressor changed."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from sim.cli.app import app, run_cli
from sim.config.run_config import RunConfig
from sim.core import EpisodeId
from sim.report.terminal import render
from sim.run.plan import make_plan
from sim.run.runner import execute
from worlds.registry import load_world
from worlds.stressors import StressorSelectionError, build_stressors, builtin_scenarios, select
from worlds.stressors.catalog import effective, parse_item
from worlds.stressors.coverage import affected_goals
from worlds.stressors.scenario import LEVEL


def _config(tmp_path: Path, **fields: object) -> RunConfig:
    return RunConfig.model_validate({"out": tmp_path, "agent": "oracle", **fields})


def test_items_take_parameters_and_bad_items_say_why() -> None:
    assert parse_item("failure:rate=0.1,size=200,label=x") == ("failure", {"rate": 0.1, "size": 200, "label": "x"})
    with pytest.raises(StressorSelectionError, match="key=value"):
        parse_item("failure:rate")
    with pytest.raises(StressorSelectionError, match="rate must be"):
        parse_item("failure:rate=2")
    with pytest.raises(StressorSelectionError, match="unknown stressor 'nope'"):
        select(["nope"])
    assert [s.name for s, _ in select(["outage"])] == ["outage.backup"]


BY_NAME_ONLY = {"outage.impossible", "missing.removed"}
NAMED_TYPES = {"universe", "hint"}
"""Types every row of which is named only (a share of the universe, a hint: stacking them as a group means nothing)."""


def test_no_group_holds_a_row_that_makes_every_task_impossible() -> None:
    """A one-question world under `--stressors outage` must not become a world of impossible questions: the impossible
    and removed modes are only ever named."""
    named = {s.name for s in builtin_scenarios() if s.type in NAMED_TYPES}
    assert {s.name for s in builtin_scenarios() if s.by_name_only} == BY_NAME_ONLY | named
    for group in ("all", "spec", "exec", "user", *(t for t in LEVEL if t not in NAMED_TYPES)):
        names = {s.name for s, _ in select([group])}
        assert names and not names & BY_NAME_ONLY, group
    assert [s.name for s, _ in select(["missing"])] == ["missing.until_later"]
    assert [s.name for s, _ in select(["outage.impossible", "missing.removed:rate=0.5"])] == sorted(BY_NAME_ONLY)[::-1]
    with pytest.raises(StressorSelectionError, match="rate must be"):
        select(["outage.impossible:rate=0"])


def test_a_rate_on_an_impossible_mode_is_the_share_of_tasks_drawn_by_task_id() -> None:
    tasks = load_world("multidomain").tasks()
    ((row, given),) = select(["outage.impossible:rate=0.3"])
    touched = [t.id for t in tasks if affected_goals(t, effective(row, given))]
    every = [t.id for t in tasks if affected_goals(t, row)]
    assert len(every) == len(tasks) and 0.2 * len(tasks) < len(touched) < 0.4 * len(tasks)
    for trial_seed in (1, 2):  # the same tasks whatever the seed: every trial meets the same condition
        (stressor,) = build_stressors(["outage.impossible:rate=0.3"], trial_seed)
        declining = [t.id for t in tasks if any(g.outcome == "decline" for g in stressor.on_task(t).goals)]
        assert declining == touched


def test_run_help_and_stressors_list_say_what_each_group_holds(capsys: pytest.CaptureFixture[str]) -> None:
    output = CliRunner().invoke(app, ["run", "--help"], terminal_width=400).output
    help_text = " ".join(re.sub(r"[│╭╮╰╯─]", " ", output).split())  # the help panel's borders cut wrapped lines
    assert all(name in help_text for name in BY_NAME_ONLY) and "outage is outage.backup" in help_text
    assert run_cli(["stressors", "list", "--type", "outage"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"│ outage\.impossible\s+│ exec, by name\s+│", out), out
    assert re.search(r"^  outage +outage.backup; not outage.impossible$", out, re.MULTILINE)
    assert run_cli(["stressors", "list", "--json"]) == 0
    rows = {row["name"]: row for row in json.loads(capsys.readouterr().out)}
    assert rows["outage.impossible"]["groups"] == [] and rows["outage.backup"]["groups"] == ["outage", "exec", "all"]


def test_isolated_plan_pairs_each_scenario_with_a_baseline(tmp_path: Path) -> None:
    pack = load_world("smart_home")
    plan = make_plan(_config(tmp_path, stressors=["outage.backup"], stressor_mode="isolated", trials=2), pack)
    specs = list(plan)
    baseline = [s for s in specs if not s.variant]
    stressed = [s for s in specs if s.variant == "outage.backup"]
    assert len(baseline) == 2 * len(pack.tasks()) and stressed and len(specs) == len(plan)
    assert all(s.stressors == () for s in baseline) and all(s.stressors == ("outage.backup",) for s in stressed)
    by_id = {s.episode_id: s for s in specs}
    for s in stressed:
        assert s.episode_id == f"{s.task.id}@outage.backup#{s.trial}"
        assert EpisodeId.parse(s.episode_id) == EpisodeId(s.task.id, s.trial, "outage.backup")
        assert by_id[f"{s.task.id}#{s.trial}"].seed == s.seed  # the same world and user, one change


def test_isolated_needs_stressors_and_unknown_stressors_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_cli(["run", "--agent", "oracle", "--stressor-mode", "isolated", "--out", str(tmp_path)]) == 2
    assert "--stressor-mode" in capsys.readouterr().err
    assert run_cli(["run", "--agent", "oracle", "--stressors", "nope", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "--stressors" in err and "unknown stressor 'nope'" in err
    assert not any(tmp_path.iterdir())


async def test_isolated_run_reports_before_after_and_keeps_what_the_stressor_did(tmp_path: Path) -> None:
    store, summary = await execute(
        _config(tmp_path, stressors=["outage.backup"], stressor_mode="isolated", run_id="iso")
    )
    rows = {row["name"]: row for row in summary["stressors"]["by_type"]}
    outage = rows["outage"]
    assert outage["before"] == outage["after"] == 1.0 and outage["retention"] == 1.0  # the oracle takes the backup
    assert outage["turns"] > 0 and summary["failed_episodes"] == 0
    fired = [e for ep in store.episodes() if ep.variant == "outage.backup" for e in ep.events if e.scenarios]
    assert fired and all(
        e.scenarios == ["outage.backup"] and e.result and e.result.status == "unavailable" for e in fired
    )
    assert all(e.raw_result is None for e in fired)  # the outage answers without reaching the world
    baseline = [e for ep in store.episodes() if not ep.variant for e in ep.events]
    assert not any(e.scenarios for e in baseline)
    console = Console(record=True, width=160)
    render(summary, console)
    assert "stressors, isolated" in console.export_text()


def test_items_split_on_commas_but_parameters_stay_with_their_item() -> None:
    from worlds.stressors.catalog import split_items

    assert split_items("adhoc, failure:rate=0.1,transient=1 ,notice") == [
        "adhoc",
        "failure:rate=0.1,transient=1",
        "notice",
    ]


async def test_the_naive_agent_replays_the_unstressed_gold_and_loses_turns_to_an_outage(tmp_path: Path) -> None:
    _, plain = await execute(_config(tmp_path, agent="naive", run_id="plain"))
    assert plain["core_api_accuracy"] == 1.0  # without stressors it is the oracle's primary path
    _, stressed = await execute(
        _config(tmp_path, agent="naive", stressors=["outage"], stressor_mode="isolated", run_id="stressed")
    )
    outage = stressed["stressors"]["by_type"][0]
    assert outage["before"] == 1.0 and outage["after"] < 1.0  # no backup plan: the outage costs it turns


def test_isolated_refuses_a_scenario_twice_and_bad_items_name_the_option(tmp_path: Path) -> None:
    from sim.config.run_config import ConfigError

    pack = load_world("multidomain")
    with pytest.raises(ConfigError, match="selected twice"):
        make_plan(_config(tmp_path, stressors=["adhoc", "adhoc.color_hex"], stressor_mode="isolated"), pack)
    with pytest.raises(ConfigError, match="unknown stressor 'nope'"):
        make_plan(_config(tmp_path, stressors=["nope"], stressor_mode="isolated"), pack)


def test_rate_only_where_the_gold_does_not_assume_the_stressor_fired() -> None:
    with pytest.raises(StressorSelectionError, match="rate cannot apply"):
        select(["adhoc:rate=0.5"])
    with pytest.raises(StressorSelectionError, match="rate cannot apply"):
        select(["limitation:rate=0.5"])
    assert all(o == {"rate": 0.1} for _, o in select(["failure:rate=0.1"]))


def test_isolated_units_and_turns_are_only_what_a_scenario_touches(tmp_path: Path) -> None:
    """A backup-path outage touches only tasks with a backup path (7 of the sample's 21 questions); a limitation
    whose `when` no gold call meets touches no goal, and one that does touches only the goals it rewrites."""
    pack = load_world("sql_sample")
    plan = make_plan(_config(tmp_path, world="sql_sample", stressors=["outage"], stressor_mode="isolated"), pack)
    stressed = [u for u in plan.units if u.variant]
    assert len(plan.units) == 21 + 7 and {u.variant for u in stressed} == {"outage.backup"}
    tasks = load_world("multidomain").tasks()
    touched = {
        s.name: sum(len(affected_goals(t, s)) for t in tasks) for s in builtin_scenarios() if s.type == "limitation"
    }
    calling = {
        s.name: sum(1 for t in tasks for g in t.goals if any(c.name in s.tools for p in g.paths() for c in p))
        for s in builtin_scenarios()
        if s.type == "limitation"
    }
    assert 0 in touched.values() and any(0 < touched[n] < calling[n] for n in touched)
    assert sum(touched.values()) == 148  # of 631 goals that call a limited tool

"""Judge names come from ``judges.names``: the registry holds exactly those, and nothing in ``sim/`` spells one."""

from __future__ import annotations

import ast
from pathlib import Path

from judges.names import judge_names
from judges.registry import judge_entries

ENGINE = Path(__file__).parents[2] / "sim"


def test_the_registry_holds_every_name_once() -> None:
    assert [entry.name for entry in judge_entries()] == list(judge_names())


def _spelled_names(path: Path) -> list[str]:
    """``file:line: name`` of each string literal in ``path`` that is a judge's name: docstrings, a goal's outcome
    (``goal.outcome == "decline"``) and ``Literal[...]`` types are not judge names."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    docs = {
        node.body[0].value
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
    }
    names = set(judge_names())
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Constant) and node.value in names) or node in docs:
            continue
        parent = parents.get(node)
        if isinstance(parent, ast.Compare) and any(
            isinstance(side, ast.Attribute) and side.attr == "outcome" for side in (parent.left, *parent.comparators)
        ):
            continue
        up, in_literal = parent, False
        while up is not None:
            in_literal |= isinstance(up, ast.Subscript) and isinstance(up.value, ast.Name) and up.value.id == "Literal"
            up = parents.get(up)
        if not in_literal:
            found.append(f"{path}:{node.lineno}: {node.value}")
    return found


def test_no_judge_name_is_spelled_in_the_engine() -> None:
    spelled = [site for path in sorted(ENGINE.rglob("*.py")) for site in _spelled_names(path)]
    assert not spelled, "use judges.names.JudgeName:\n" + "\n".join(spelled)


def test_the_check_sees_a_spelled_name(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        '"""core_api_accuracy in a docstring is prose."""\n'
        'GoalOutcome = Literal["solve", "decline"]\n'
        'right = goal.outcome == "decline"\n'
        'accuracy = values.get("core_api_accuracy")\n'
    )
    assert _spelled_names(sample) == [f"{sample}:4: core_api_accuracy"]

"""Where BFCL's data and backends come from: the installed ``bfcl-eval`` wheel, read at run time.

squall never copies BFCL's code or data; it imports the wheel (installed ``--no-deps`` by ``make setup``) and reads
its files through ``importlib.resources``. Everything here fails with one clear message when the wheel is absent.
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Any

VERSION = "2026.3.23"
"""The bfcl-eval release squall's BFCL worlds are built and tested against."""
PREFIX = "BFCL_v4_"
_INSTALL_HINT = f"run `make setup`, or `pip install --no-deps bfcl-eval=={VERSION}` (plus mpmath)"


class BfclError(ValueError):
    """BFCL's data cannot be used: the wheel is missing, or a file in it is not what squall expects."""


def package_root() -> Path:
    """The installed ``bfcl_eval`` package folder."""
    try:
        from importlib.resources import files

        root = files("bfcl_eval")
    except ModuleNotFoundError:
        raise BfclError(f"BFCL worlds need the bfcl-eval package, which is not installed: {_INSTALL_HINT}") from None
    return Path(str(root))


def data_file(category: str) -> Path:
    """The question file of a BFCL category (``multi_turn_base`` -> ``data/BFCL_v4_multi_turn_base.json``)."""
    return _existing(package_root() / "data" / f"{PREFIX}{category}.json")


def answer_file(category: str) -> Path:
    """The possible-answer (ground truth) file of a category."""
    return _existing(package_root() / "data" / "possible_answer" / f"{PREFIX}{category}.json")


def func_doc_file(class_name: str) -> Path:
    """The function docs of one multi-turn backend class (``GorillaFileSystem`` -> ``gorilla_file_system.json``)."""
    mapping = _backend_config().MULTI_TURN_FUNC_DOC_FILE_MAPPING
    if class_name not in mapping:
        raise BfclError(f"bfcl-eval has no function docs for class '{class_name}'")
    return _existing(package_root() / "data" / "multi_turn_func_doc" / mapping[class_name])


def read_lines(path: Path) -> list[dict[str, Any]]:
    """A BFCL data file: one JSON object per line."""
    try:
        with path.open(encoding="utf-8") as handle:
            return [json.loads(line) for line in handle if line.strip()]
    except (OSError, ValueError) as error:
        raise BfclError(f"{path}: cannot read BFCL data: {error}") from error


def count_lines(path: Path) -> int:
    """How many entries a data file holds, without parsing them (for listings)."""
    with path.open("rb") as handle:
        return sum(1 for line in handle if line.strip())


def backend_class(class_name: str) -> type:
    """A multi-turn backend class (``GorillaFileSystem``), imported from the wheel."""
    config = _backend_config()
    module_name = config.CLASS_FILE_PATH_MAPPING.get(class_name)
    if module_name is None:
        raise BfclError(f"bfcl-eval has no backend class '{class_name}'")
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise BfclError(f"cannot import BFCL backend {class_name} ({error}): {_INSTALL_HINT}") from error
    cls = getattr(module, class_name)
    assert isinstance(cls, type)
    return cls


def stateless_classes() -> frozenset[str]:
    """Backend classes BFCL never loads a scenario into (``MathAPI``)."""
    return frozenset(_backend_config().STATELESS_CLASSES)


def additional_function_prompt() -> str:
    """What BFCL's user says on the turn a held-out function comes back (function-calling models)."""
    prompts = _import("bfcl_eval.constants.default_prompts")
    text = prompts.DEFAULT_USER_PROMPT_FOR_ADDITIONAL_FUNCTION_FC
    assert isinstance(text, str)
    return text


def maximum_steps() -> int:
    """BFCL's limit on model steps in one turn (more fails the entry)."""
    limit = _import("bfcl_eval.constants.default_prompts").MAXIMUM_STEP_LIMIT
    assert isinstance(limit, int)
    return limit


def _backend_config() -> Any:
    return _import("bfcl_eval.constants.executable_backend_config")


def _import(module: str) -> Any:
    package_root()  # the clear message first when the wheel is absent
    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise BfclError(f"cannot import {module} ({error}): {_INSTALL_HINT}") from error


def _existing(path: Path) -> Path:
    if not path.is_file():
        raise BfclError(f"{path}: not in the installed bfcl-eval (squall expects version {VERSION})")
    return path

"""The ``code:`` agent's sandbox (``sim.agents.code.sandbox``): a program's tool calls answered over the pipe, its
limits (time, memory), what it is refused (sockets, processes, files outside its folder), and the functions it is
shown (``signatures``)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from sim.agents.code.sandbox import CodeLimits, ProgramRun, run_program
from sim.agents.code.signatures import python_tools
from sim.core import ToolSpec

WEATHER = ToolSpec(
    name="get_weather",
    description="Current weather for a city.",
    parameters={
        "type": "object",
        "properties": {
            "units": {"type": "string", "enum": ["c", "f"], "description": "Temperature unit."},
            "city": {"type": "string", "description": "City name."},
        },
        "required": ["city"],
    },
)
TOOLS = python_tools([WEATHER])


class World:
    """Answers like the runtime: a result per call, 'Atlantis' not found; every call kept."""

    def __init__(self, delay_s: float = 0.0) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.delay_s = delay_s

    async def __call__(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        self.calls.append((name, arguments))
        await asyncio.sleep(self.delay_s)
        if arguments.get("city") == "Atlantis":
            content = {"error": "No city 'Atlantis'.", "code": "unknown_city"}
            return {"status": "not_found", "content": content, "error_code": "unknown_city"}
        return {"status": "success", "content": {"city": arguments.get("city"), "temp": 21}, "error_code": None}


async def run(code: str, world: World | None = None, **limits: Any) -> ProgramRun:
    return await run_program(code, TOOLS, CodeLimits(**{"timeout_s": 5.0, **limits}), world or World())


async def test_a_program_calls_tools_by_position_or_keyword_and_reads_their_results() -> None:
    world = World()
    code = "a = get_weather('Paris')\nb = get_weather(city='Rome', units='f')\nprint(a['temp'] + b['temp'])"
    done = await run(code, world)
    assert (done.outcome, done.output, done.calls) == ("ok", "42", 2)
    assert world.calls == [("get_weather", {"city": "Paris"}), ("get_weather", {"city": "Rome", "units": "f"})]


async def test_a_tool_error_reaches_the_program_as_an_exception_it_can_inspect() -> None:
    code = "try:\n    get_weather('Atlantis')\nexcept ToolError as e:\n    print(e.status, e.code, e.content['error'])"
    caught = await run(code)
    assert (caught.outcome, caught.output) == ("ok", "not_found unknown_city No city 'Atlantis'.")
    uncaught = await run("get_weather('Atlantis')")
    assert uncaught.outcome == "exception"
    assert 'File "<program>", line 1' in uncaught.output
    assert "ToolError: get_weather: not_found (unknown_city): No city 'Atlantis'." in uncaught.output


async def test_an_endless_loop_is_killed_at_the_time_limit_and_said_so() -> None:
    done = await run("print('working')\nwhile True:\n    pass", timeout_s=1.0)
    assert done.outcome == "timeout"
    assert done.output == "working\n[stopped: the program ran past its time limit of 1 s]"


@pytest.mark.slow
async def test_time_spent_in_tool_calls_is_not_the_programs() -> None:
    # 4 s of tool time against a 3 s limit that also covers the child's start (slow on a loaded machine)
    done = await run("get_weather('Paris')\nget_weather('Rome')\nprint('ok')", World(delay_s=2.0), timeout_s=3.0)
    assert (done.outcome, done.output) == ("ok", "ok")


@pytest.mark.parametrize("code", ["x = bytearray(1024 ** 3)", "x = []\nwhile True:\n    x.append(' ' * 10 ** 6)"])
async def test_a_program_over_its_memory_limit_is_stopped_and_said_so(code: str) -> None:
    done = await run(code, memory_mb=128)
    assert done.outcome == "memory"
    assert done.output.endswith("[stopped: the program went over its memory limit of 128 MB]")


@pytest.mark.parametrize(
    ("code", "refused"),
    [
        ("import socket\nsocket.create_connection(('127.0.0.1', 80))", "import socket"),
        ("import _socket", "import _socket"),
        ("import urllib.request", "import urllib.request"),
        ("import subprocess", "import subprocess"),
        ("import os\nos.system('true')", "os.system"),
        ("import os\nos.fork()", "os.fork"),
        ("open('/etc/hostname').read()", "open '/etc/hostname'"),
        ("import os\nos.listdir('/')", "os.listdir '/'"),
        ("import resource\nresource.setrlimit(resource.RLIMIT_AS, (-1, -1))", "resource.setrlimit"),
        ("import os\nos.symlink('/etc', 'etc')", "os.symlink"),
        # rebinding what the hook reads changes nothing: its names are its own
        (
            "import sys, builtins, os\nsys.modules['__main__']._REFUSED_MODULES = frozenset()\n"
            "builtins.any = lambda it: True\nos.path.realpath = lambda p: '/tmp'\nimport socket",
            "import socket",
        ),
        ("import builtins\nbuiltins.isinstance = lambda *a: False\nopen('/etc/hostname')", "open '/etc/hostname'"),
    ],
)
async def test_network_processes_and_files_outside_its_folder_are_refused(code: str, refused: str) -> None:
    done = await run(code)
    assert done.outcome == "exception" and done.refused[:1] == [refused]
    assert "PermissionError: sandbox:" in done.output


async def test_its_own_folder_the_standard_library_and_nothing_of_squall() -> None:
    code = (
        "import os, sys, json, datetime\n"
        "open('notes.txt', 'w').write('kept')\n"
        "print(open('notes.txt').read(), sorted(os.environ), any('site-packages' in p for p in sys.path))\n"
        "import pydantic"
    )
    done = await run(code)
    assert done.output.splitlines()[0] == "kept ['LC_ALL', 'PYTHONHASHSEED', 'PYTHONIOENCODING'] False"
    assert "ModuleNotFoundError: No module named 'pydantic'" in done.output


async def test_printed_output_is_cut_to_the_limit() -> None:
    done = await run("print('x' * 10_000)", output_chars=100)
    assert done.output == "x" * 100 + "\n[output cut at 100 characters]"


def test_the_functions_shown_follow_the_tool_specs() -> None:
    odd = ToolSpec(
        name="math.factorial",
        description="n!",
        parameters={"type": "object", "properties": {"from": {"type": "integer"}, "n": {"type": ["integer", "null"]}}},
    )
    weather, factorial = python_tools([WEATHER, odd])
    assert weather.params == ("city", "units")  # required first: positional arguments map onto this order
    assert weather.text.splitlines()[0] == "def get_weather(city: str, units: str | None = None) -> Any:"
    assert '        units: Temperature unit. (one of ["c", "f"])' in weather.text
    assert factorial.py_name == "math_factorial" and factorial.wire()["name"] == "math.factorial"
    assert factorial.text.splitlines()[0] == "def math_factorial(n: int | None = None, **more) -> Any:"
    assert factorial.params == ("n",)  # "from" is reached by keyword only, never by position
    shadowing = [
        ToolSpec(name=n, description=n, parameters={"type": "object", "properties": {}}) for n in ("open", "json")
    ]
    assert [t.py_name for t in python_tools(shadowing)] == ["open_2", "json_2"]


async def test_an_odd_parameter_name_does_not_take_a_positional_argument() -> None:
    odd = ToolSpec(
        name="convert",
        description="Currency.",
        parameters={
            "type": "object",
            "properties": {"amount": {"type": "number"}, "from": {"type": "string"}, "to": {"type": "string"}},
            "required": ["amount", "from", "to"],
        },
    )
    world = World()
    done = await run_program(
        "convert(100, 'EUR', **{'from': 'USD'})", python_tools([odd]), CodeLimits(timeout_s=5.0), world
    )
    assert done.outcome == "ok" and world.calls == [("convert", {"amount": 100, "to": "EUR", "from": "USD"})]

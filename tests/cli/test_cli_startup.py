"""The cheap commands import only what they use (issue 27, start-up).

A command on a tiny input costs its start-up: a heavy module that creeps onto a command's path
(pydantic under Typer's parameter conversion, process pools, the live-run stack...) is paid by
every user at every run. These tests run real commands in a fresh interpreter and list
``sys.modules`` afterwards, so such a regression fails here; they never look at timings
(``benchmarks/bench_startup.py`` prints those). They also hold :mod:`earnest.cli.params`, the
pydantic-free parameter conversion, to Typer's own on the values each type takes and refuses.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import EXAMPLES, SRC

TINY = EXAMPLES / "trajectories" / "mclaude-91b751c5-d980--hi-QA.jsonl"
SUITE = EXAMPLES / "suite"
REPLIES = SUITE / "recorded" / "replies.jsonl"

# Loaded by no cheap command: (module or package, why it must stay off the path).
NEVER = {
    "pydantic": "Typer's parameter conversion: earnest.cli.params reads plain types without it",
    "pydantic_core": "pydantic's",
    "multiprocessing": "process pools start only for --jobs N > 1 on large input",
    "concurrent.futures.process": "process pools",
    "openai": "live runs",
    "anthropic": "live runs",
    "httpx": "live runs",
    "earnest.live": "live runs",
    "pyarrow": "parquet output",
    "jsonschema": "schema checks",
    "sqlite3": "the run store",
}
# Typer renders help through its Rich module, which imports Rich's Markdown, tracebacks and
# pretty-printer (markdown_it, pygments, attrs) whatever the markup mode: help's own cost.
HELP_ONLY = {
    "typer.rich_utils": "help and Typer's own error panels",
    "markdown_it": "help",
    "pygments": "help",
}
# Output written as JSON lines needs no terminal renderer.
NO_TABLE = {
    "rich": "terminal tables only",
    "earnest.report.junit": "JUnit output only",
}

_PROBE = """\
import io, json, sys
from earnest.__main__ import main
out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
try:
    rc = main(sys.argv[1:])
except SystemExit as exc:
    rc = exc.code
print(json.dumps({"rc": rc, "modules": sorted(sys.modules)}), file=sys.__stderr__)
"""


def _modules(*args: str, tmp: Path) -> tuple[Any, set[str]]:
    env = dict(os.environ, PYTHONPATH=str(SRC), NO_COLOR="1", COLUMNS="200")
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    last = done.stderr.strip().splitlines()[-1]
    report = json.loads(last)
    return report["rc"], set(report["modules"])


def _loaded(modules: set[str], never: dict[str, str]) -> dict[str, str]:
    return {
        name: why
        for name, why in never.items()
        if any(m == name or m.startswith(name + ".") for m in modules)
    }


COMMANDS: dict[str, tuple[tuple[str, ...], dict[str, str]]] = {
    "help": (("--help",), NEVER),
    "version": (("version",), NEVER | NO_TABLE | HELP_ONLY),
    "trajectory score (table)": (("trajectory", "score", str(TINY)), NEVER | HELP_ONLY),
    "trajectory score (jsonl)": (
        ("trajectory", "score", str(TINY), "--format", "jsonl", "-o", "out.jsonl"),
        NEVER | NO_TABLE | HELP_ONLY,
    ),
    "trajectory convert": (
        ("trajectory", "convert", str(TINY), "-o", "converted.jsonl"),
        NEVER | NO_TABLE | HELP_ONLY,
    ),
    "score (jsonl)": (
        ("score", str(REPLIES), "--suite", str(SUITE), "--format", "jsonl", "-o", "s.jsonl"),
        NEVER | HELP_ONLY,  # earnest.report.score still imports Rich for its table
    ),
    "a usage error": (
        ("score", str(REPLIES), "--suite", str(SUITE), "--jobs", "0"),
        NEVER | HELP_ONLY,
    ),
}


@pytest.mark.parametrize("name", list(COMMANDS))
def test_cheap_commands_import_only_what_they_use(name: str, tmp_path: Path) -> None:
    args, never = COMMANDS[name]
    rc, modules = _modules(*args, tmp=tmp_path)
    assert rc in (0, 1, 2), rc
    assert _loaded(modules, never) == {}


# --- earnest.cli.params against Typer's own conversion --------------------------------------

SAMPLES = {
    int: ["12", " 12 ", "+3", "-4", "1_000", "12.0", "1e3", "12.5", "0x10", "", "abc", "١٢", "_1"],
    float: ["12", "1e3", "-0.5", ".5", "5.", "nan", "inf", "1_0.5", "0x10", "", "abc", "١٢"],
    bool: ["1", "0", "yes", " Yes ", "off", "t", "F", "", "2", "maybe", True, False],
    str: ["x", "", "ü", "--"],
    Path: ["x/y.jsonl", "-", "", "."],
}


def _both(descriptor: Any, value: Any) -> tuple[Any, Any]:
    """``value`` converted by earnest.cli.params and by Typer's pydantic adapter: each the
    result or the error's message."""
    from typer._click.exceptions import BadParameter
    from typer._coercion import build_runtime_param

    from earnest.cli.params import plain_param

    plain = plain_param(descriptor)
    assert plain is not None
    typer_own = build_runtime_param(descriptor)
    outcomes = []
    for runtime in (plain, typer_own):
        try:
            got = runtime._coerce_value(value, param=None, ctx=None)
            outcomes.append(("ok", repr(got), type(got)))  # repr: nan == nan
        except BadParameter as exc:
            outcomes.append(("error", exc.message))
    return outcomes[0], outcomes[1]


def _descriptor(annotation: Any, **info: Any) -> Any:
    from typer._coercion import resolve_type_descriptor
    from typer.models import OptionInfo

    return resolve_type_descriptor(annotation, OptionInfo(**info))


@pytest.mark.parametrize("annotation", list(SAMPLES), ids=lambda t: t.__name__)
def test_plain_conversion_is_typers(annotation: Any) -> None:
    for value in SAMPLES[annotation]:
        mine, theirs = _both(_descriptor(annotation), value)
        assert mine == theirs, value
        many = _both(_descriptor(list[annotation]), [value, value])  # type: ignore[valid-type]
        assert many[0] == many[1], value


def test_plain_conversion_of_bounds_and_choices() -> None:
    from earnest.cli.check import CheckFormat

    for value in ["0", "1", "-1", "2.0", "nan"]:
        mine, theirs = _both(_descriptor(int, min=1), value)
        assert mine == theirs, value
        mine, theirs = _both(_descriptor(float, min=0), value)
        assert mine == theirs, value
    for value in ["json", "JSON", "xml", ""]:
        for sensitive in (True, False):
            got = _both(_descriptor(CheckFormat, case_sensitive=sensitive), value)
            assert got[0] == got[1], value


def test_every_parameter_of_the_cli_is_read_without_pydantic() -> None:
    """Each parameter earnest declares gets the plain conversion (a new type falls back to
    Typer's, which would bring pydantic back: this names it)."""
    import typer.main

    from earnest.cli import app
    from earnest.cli.params import plain_param

    def walk(command: Any) -> Any:
        yield command
        for sub in getattr(command, "commands", {}).values():
            yield from walk(sub)

    missing = [
        f"{command.name} {param.name}: {param.type_descriptor.annotation!r}"
        for command in walk(typer.main.get_command(app))
        for param in command.params
        if hasattr(param, "type_descriptor") and plain_param(param.type_descriptor) is None
    ]
    assert missing == []

"""Help and usage errors read right: brackets kept, no ``<bool>`` on flags, plain-word errors."""

from __future__ import annotations

import re

import pytest

from conftest import EXAMPLES, run_earnest
from earnest import __version__

COMMANDS = (
    "init", "lint", "coverage", "prompt", "score", "check", "run", "export", "compare",
    "report", "schema", "version", "runs", "runs show", "runs list", "baseline",
    "baseline bless", "hook", "hook install", "hook uninstall", "trajectory",
    "trajectory score", "trajectory replay-gate", "trajectory convert",
)  # fmt: skip


def test_brackets_in_help_text_are_printed_as_written() -> None:
    lint = run_earnest("lint", "--help")
    assert lint.returncode == 0 and "[tool.earnest]" in lint.stdout
    coverage = run_earnest("coverage", "--help")
    assert "[suite.debt]" in re.sub(r"\s+", " ", coverage.stdout)
    assert "differ from  in" not in coverage.stdout


@pytest.mark.parametrize("command", ["", *COMMANDS])
def test_no_flag_shows_a_bool_type(command: str) -> None:
    proc = run_earnest(*command.split(), "--help")
    assert proc.returncode == 0, proc.stderr
    assert "<bool>" not in proc.stdout
    assert re.search(r"--help\s+-h\s+Show this message", proc.stdout), proc.stdout


def test_version_and_short_help() -> None:
    version = run_earnest("--version")
    assert (version.returncode, version.stdout) == (0, __version__ + "\n")
    short, long = run_earnest("-h"), run_earnest("--help")
    assert short.returncode == 0 and short.stdout == long.stdout
    assert run_earnest("check", "-h").stdout == run_earnest("check", "--help").stdout


def test_score_takes_dash_s_like_its_siblings() -> None:
    suite = EXAMPLES / "suite"
    replies = suite / "recorded" / "replies.jsonl"
    short = run_earnest("score", "-s", str(suite), str(replies), "--format", "json")
    long = run_earnest("score", "--suite", str(suite), str(replies), "--format", "json")
    assert short.returncode == long.returncode == 1 and short.stdout == long.stdout


def test_unknown_command_lists_the_commands_and_keeps_did_you_mean() -> None:
    typo = run_earnest("chek")
    assert typo.returncode == 2
    assert "Did you mean 'check'" in typo.stderr
    (listed,) = [line for line in typo.stderr.splitlines() if line.startswith("Commands: ")]
    assert {"check", "lint", "trajectory", "runs"} <= set(listed[len("Commands: ") :].split(", "))
    unknown = run_earnest("runs", "frobnicate")
    assert unknown.returncode == 2 and "Commands: show, list" in unknown.stderr


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["check", "--format", "xml"], "--format: 'xml' is not one of table, json, junit"),
        (
            ["trajectory", "score", "x", "--format", "xml"],
            "--format: 'xml' is not one of table, json, jsonl, junit",
        ),
        (["run", "--seed", "abc"], "--seed: not an integer"),
    ],
)
def test_usage_errors_in_plain_words(args: list[str], expected: str) -> None:
    proc = run_earnest(*args)
    assert proc.returncode == 2
    assert expected in proc.stderr, proc.stderr
    for leaked in ("Value error", "Input should", "Traceback", "╭"):
        assert leaked not in proc.stderr

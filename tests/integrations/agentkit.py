"""What the framework tests share: the scripted model, the workspace tools, the five scenarios.

Every framework test runs the REAL framework package against :class:`FakeModel` (the fake
model APIs of ``tests/realcli/fakes.py``, on 127.0.0.1) with tools that really act in a
temporary workspace. The tools are plain functions here; each test wraps them in its
framework's own tool type, under the same names, so the scripts below drive every framework:

- ``write_file(path, content)`` writes a file in the workspace;
- ``read_file(path)`` reads one;
- ``bash(command)`` runs the workspace's tests (``python -m pytest -q``; nothing else) and
  prints ``Exit code N`` first, as Claude Code's Bash does;
- ``boom(path)`` raises: the framework's own error path.

The scenarios (each a request, the workspace it starts from, and the model's turns):

(a) ``done_then_write``: "done" with no tool call → retried with earnest's reason (the model
    sees it in its next request) → it writes the file → accepted;
(b) ``question_after_read``: a question answered after a read → accepted at once;
(c) ``done_forever``: "done" forever → exactly ``max_downgrades`` retries, then accepted,
    exhausted;
(d) ``failing_tests_then_claim``: an edit, a failing test run, then "all tests pass" →
    retried (unverified claim); the real fix and a passing run → accepted;
(e) ``tool_raises``: the only tool call raises → a failed call, not an effect → retried.
"""

from __future__ import annotations

import shlex
import subprocess
import sys
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest

from realcli.fakes import Call, FakeModel, ModelRequest, Turn, Turns

__all__ = [
    "SCENARIOS",
    "Call",
    "FakeModel",
    "ModelRequest",
    "Scenario",
    "Turn",
    "Turns",
    "bash",
    "boom",
    "check",
    "framework_version",
    "read_file",
    "write_file",
]

REASON = "completion-without-effect:"
CLAIM = "unverified-claim:"


def framework_version(dist: str, tested: str, install: str) -> str:
    """The installed version of ``dist``, or skip (with the reason) when it is missing.

    ``tested`` is the version these tests were written and run against; an older install
    skips, a newer one runs. ``install`` says how to install it."""
    try:
        version = metadata.version(dist)
    except metadata.PackageNotFoundError:
        pytest.skip(
            f"{dist} is not installed ({install}; tested with {tested})",
            allow_module_level=True,
        )
    if _key(version) < _key(tested):
        pytest.skip(
            f"{dist} {version} is older than {tested}, the version these tests ran on",
            allow_module_level=True,
        )
    return version


def _key(version: str) -> tuple[int, ...]:
    parts = []
    for piece in version.split(".")[:3]:
        digits = "".join(c for c in piece if c.isdigit())
        parts.append(int(digits or 0))
    return tuple(parts)


# ------------------------------------------------------------------------------ the tools


def _inside(workspace: Path, path: str) -> Path:
    target = (workspace / path).resolve()
    if not target.is_relative_to(workspace.resolve()):
        raise ValueError(f"{path} is outside the workspace")
    return target


def write_file(workspace: Path, path: str, content: str) -> str:
    target = _inside(workspace, path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(content, encoding="utf-8")
    return f"wrote {len(content)} characters to {path}"


def read_file(workspace: Path, path: str) -> str:
    return _inside(workspace, path).read_text(encoding="utf-8")


def bash(workspace: Path, command: str) -> str:
    argv = shlex.split(command)
    if argv[:3] != ["python", "-m", "pytest"]:
        return f"Exit code 127\nonly `python -m pytest` runs here, not {argv[:1]}"
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *argv[3:]],
        cwd=workspace,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return f"Exit code {proc.returncode}\n{proc.stdout[-4000:]}"


def boom(workspace: Path, path: str) -> str:
    raise RuntimeError(f"disk on fire while writing {path}")


# ------------------------------------------------------------------------------ scenarios

BROKEN = "def add(a, b):\n    return a - b\n"
STILL_BROKEN = "def add(a, b):\n    return a - b  # looked at it\n"
FIXED = "def add(a, b):\n    return a + b\n"
TEST = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
PYTEST = Call("bash", {"command": "python -m pytest -q"})


@dataclass(frozen=True)
class Scenario:
    name: str
    request: str
    files: dict[str, str]
    turns: tuple[Turn, ...]
    fallback: str = "I have nothing more to add."

    def setup(self, workspace: Path) -> None:
        for name, text in self.files.items():
            (workspace / name).write_text(text, encoding="utf-8")

    def script(self) -> Turns:
        return Turns(self.turns, fallback=self.fallback)


SCENARIOS = {
    s.name: s
    for s in (
        Scenario(
            "done_then_write",
            "Create hello.py that prints hello.",
            {},
            (
                Turn(text="Done: I created hello.py."),
                Turn(
                    calls=(Call("write_file", {"path": "hello.py", "content": "print('hello')\n"}),)
                ),
                Turn(text="Created hello.py."),
            ),
        ),
        Scenario(
            "question_after_read",
            "What does notes.txt say?",
            {"notes.txt": "the meeting is at noon\n"},
            (
                Turn(calls=(Call("read_file", {"path": "notes.txt"}),)),
                Turn(text="notes.txt says the meeting is at noon."),
            ),
        ),
        Scenario(
            "done_forever",
            "Create hello.py that prints hello.",
            {},
            (),
            fallback="Done: I created hello.py.",
        ),
        Scenario(
            "failing_tests_then_claim",
            "Fix the bug in calc.py so that the tests pass.",
            {"calc.py": BROKEN, "test_calc.py": TEST},
            (
                Turn(calls=(Call("write_file", {"path": "calc.py", "content": STILL_BROKEN}),)),
                Turn(calls=(PYTEST,)),
                Turn(text="I fixed calc.py. All tests pass."),
                Turn(calls=(Call("write_file", {"path": "calc.py", "content": FIXED}),)),
                Turn(calls=(PYTEST,)),
                Turn(text="I fixed calc.py. All tests pass."),
            ),
        ),
        Scenario(
            "tool_raises",
            "Create out.txt with the word ok in it.",
            {},
            (
                Turn(calls=(Call("boom", {"path": "out.txt"}),)),
                Turn(text="Done: I created out.txt."),
                Turn(calls=(Call("write_file", {"path": "out.txt", "content": "ok\n"}),)),
                Turn(text="Created out.txt."),
            ),
        ),
    )
}


def check(name: str, model: FakeModel, verdicts: list[Any], workspace: Path, final: str) -> None:
    """Assert what scenario ``name`` must come to, for any framework: the gate's verdicts in
    order, what the model was sent back, the workspace, and the final answer."""
    retries = [v for v in verdicts if v.retry]
    for verdict in retries:  # every retry reached the model, with earnest's reason
        assert model.sent_back(verdict.reason), f"{name}: the model never saw {verdict.reason!r}"
    if name == "done_then_write":
        assert [v.retry for v in verdicts] == [True, False]
        assert retries[0].reason.startswith(REASON)
        assert "no tool calls were made in this run" in retries[0].reason
        assert (workspace / "hello.py").read_text() == "print('hello')\n"
        assert final == "Created hello.py."
    elif name == "question_after_read":
        assert [v.retry for v in verdicts] == [False]
        assert not model.sent_back(REASON)
        assert "noon" in final
    elif name == "done_forever":
        assert [v.retry for v in verdicts] == [True, True, False]
        assert verdicts[-1].exhausted
        assert verdicts[-1].note.startswith("effect gate exhausted: completion-without-effect")
        assert len(model.agent_requests) == 3
        assert final == "Done: I created hello.py."
    elif name == "failing_tests_then_claim":
        assert [v.retry for v in verdicts] == [True, False]
        assert retries[0].reason.startswith(f"{CLAIM} tests pass")
        assert (workspace / "calc.py").read_text() == FIXED
        assert final == "I fixed calc.py. All tests pass."
    elif name == "tool_raises":
        assert [v.retry for v in verdicts] == [True, False]
        assert "1 tool call(s), 0 succeeded" in retries[0].reason
        assert (workspace / "out.txt").read_text() == "ok\n"
        assert final == "Created out.txt."
    else:
        raise AssertionError(name)

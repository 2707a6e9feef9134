"""The package as a whole: the example loop, the docstring examples, the import weight."""

from __future__ import annotations

import doctest
import importlib
import os
import subprocess
import sys

import pytest

import earnest.effects
from conftest import REPO, SRC

MODULES = [
    "earnest.effects", "earnest.effects.models", "earnest.effects.shell_lexer",
    "earnest.effects.shell_vocab", "earnest.effects.shell_commands", "earnest.effects.shell",
    "earnest.effects.registry", "earnest.effects.artifacts", "earnest.effects.classify",
    "earnest.effects.ledger", "earnest.effects.workspace", "earnest.effects.grounding",
    "earnest.effects.claims", "earnest.effects.expectation", "earnest.effects.gate",
    "earnest.effects.config",
]  # fmt: skip


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name: str, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv("EARNEST_EFFECT_GATE", raising=False)
    module = importlib.import_module(name)
    assert module.__doc__ and "Example" in module.__doc__, f"{name} needs a docstring example"
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 0


def test_public_names_are_exported():
    for name in earnest.effects.__all__:
        assert hasattr(earnest.effects, name), name


def run_python(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "EARNEST_EFFECT_GATE"}
    env["PYTHONPATH"] = str(SRC)
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, env=env, timeout=60
    )


def test_the_gate_path_does_not_import_the_cli_stack():
    code = (
        "import sys, earnest.effects, earnest.effects.gate\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in {'typer', 'rich', 'yaml', 'click'})\n"
        "print(heavy)\n"
    )
    done = run_python("-c", code)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_the_example_loop_downgrades_then_completes(tmp_path):
    done = run_python(
        str(REPO / "examples" / "effect_gate_loop.py"), "--workspace", str(tmp_path / "w")
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[1] == "gate: enabled=True baseline=snapshot"
    assert lines[2].startswith(
        "turn 1: tools=Read evaluator=complete gate=retry reason=completion-without-effect: "
    )
    assert lines[3].startswith(
        "turn 2: tools=Write,Bash evaluator=complete gate=complete satisfied_by="
    )
    assert lines[3].endswith("hello.py (created)")
    assert lines[4] == "final: complete after 2 turns, 1 downgrade(s)"
    assert (tmp_path / "w" / "hello.py").read_text() == 'print("hello")\n'


def test_the_example_respects_the_kill_switch(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(SRC), "EARNEST_EFFECT_GATE": "0"}
    done = subprocess.run([sys.executable, str(REPO / "examples" / "effect_gate_loop.py"),
                           "--workspace", str(tmp_path)], capture_output=True, text=True, env=env,
                          timeout=60)  # fmt: skip
    assert done.returncode == 1  # the credulous evaluator's first COMPLETE stands
    assert "turn 1: tools=Read evaluator=complete gate=complete" in done.stdout

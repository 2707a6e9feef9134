"""The integrations package: small modules, one gate, lazy imports, examples that run."""

from __future__ import annotations

import doctest
import importlib
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import SRC

PACKAGE = SRC / "earnest" / "integrations"
FRAMEWORKS = {
    "victor": "victor",
    "langchain": "langchain",
    "openai_agents": "agents",
    "pydantic_ai": "pydantic_ai",
    "claude_agent_sdk": "claude_agent_sdk",
    "smolagents": "smolagents",
    "langgraph": "langgraph",
    "strands": "strands",
    "crewai": "crewai",
}
HELPERS = {"lc_messages": "langchain_core"}  # shared by two integrations; calls no gate itself


def test_each_integration_is_small_and_calls_the_one_gate() -> None:
    for name in FRAMEWORKS:
        text = (PACKAGE / f"{name}.py").read_text(encoding="utf-8")
        assert len(text.splitlines()) <= 200, name
        # the gate is earnest's (through RunGate, or EffectGate itself for Victor's signatures)
        assert (
            "earnest.integrations.run import RunGate" in text
            or ("from earnest.effects.gate import EffectGate" in text)
            or "earnest.hooks.claude_code import handle" in text
        ), name
        for copied in ("def _satisfying", "def expected_class", "def classify_tool_result"):
            assert copied not in text, (name, copied)


def test_importing_the_package_imports_no_framework() -> None:
    code = (
        "import sys, earnest.integrations as i; i.RunGate; "
        f"print(sorted(m for m in {sorted({*FRAMEWORKS.values(), *HELPERS.values()})!r} "
        "if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env={"PYTHONPATH": str(SRC)})  # fmt: skip
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("name", ["run", *FRAMEWORKS, *HELPERS])
def test_docstring_examples_run(name: str) -> None:
    framework = FRAMEWORKS.get(name) or HELPERS.get(name)
    if framework and importlib.util.find_spec(framework) is None:
        pytest.skip(f"{framework} is not installed")
    module = importlib.import_module(f"earnest.integrations.{name}")
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 0


def test_a_structured_tool_output_keeps_its_outcome() -> None:
    from earnest.integrations.run import RunGate, tool_result

    assert tool_result("bash", {"command": "pytest"}, {"returncode": 2, "stdout": "x"}) == {
        "tool_name": "bash", "args": {"command": "pytest"}, "returncode": 2, "output": "x"
    }  # fmt: skip
    assert tool_result("read_file", None, "not json {")["output"] == "not json {"
    assert tool_result("boom", {}, "no", failed=True)["is_error"] is True
    gate = RunGate(env={})
    gate.start("Run the tests")
    gate.record(
        [tool_result("bash", {"command": "pytest -q"}, '{"exit_code": 1, "output": "1 failed"}')]
    )
    assert gate.gate.ledger.succeeded == 0


def test_the_gate_is_switched_off_by_the_environment(tmp_path: Path) -> None:
    from earnest.integrations.run import RunGate

    gate = RunGate(workspace=tmp_path, env={"EARNEST_EFFECT_GATE": "0"})
    gate.start("Create hello.py")
    verdict = gate.judge("Done: I created hello.py.")
    assert not verdict.retry and not verdict.exhausted and verdict.message == ""

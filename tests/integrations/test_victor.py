"""earnest's gate in Victor (``victor-ai``), through Victor's own signatures and its own loop.

Victor pins ``typer<0.26`` and earnest needs ``typer>=0.29``, so ``victor-ai`` cannot sit in
the ``dev`` environment: these tests skip there, with the reason, and run in an environment
of their own (``pip install victor-ai==0.9.5 pytest`` and earnest with ``--no-deps``; see
docs/guides/agent-loops.md).

Three layers:

- the full stack: Victor's ``Agent`` → orchestrator → ``AgenticLoop`` with its own tools
  (``read``, ``write``), its LM Studio provider pointed at a fake OpenAI-compatible server on
  127.0.0.1, and ``install()`` making the loop's gate earnest's;
- Victor's EVALUATE seam with Victor's own ``TurnResult`` objects;
- Victor's effect-gate corpus (``victor.evaluation.effect_gate_corpus``), judged by earnest's
  gate and by Victor's own, with the differences asserted and explained.
"""

from __future__ import annotations

import asyncio
import logging
import os
import tempfile
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from agentkit import Call, FakeModel, Turn, Turns, framework_version

TESTED = "0.9.5"
VERSION = framework_version(
    "victor-ai",
    TESTED,
    "pip install victor-ai, then earnest with --no-deps: docs/guides/agent-loops.md",
)
# Victor writes ~/.victor from its first import on: keep it out of the real home folder.
os.environ["HOME"] = tempfile.mkdtemp(prefix="victor-home-")

from victor.evaluation.effect_gate_corpus import effect_gate_corpus  # noqa: E402
from victor.framework import effect_gate as victor_gate  # noqa: E402
from victor.framework.evaluation_nodes import EvaluationDecision, EvaluationResult  # noqa: E402

from earnest.integrations import victor as ev  # noqa: E402

NUDGE = "Your completion claim has no verifiable effect on record"


def test_the_version_tested_is_recorded() -> None:
    assert VERSION >= TESTED


# ------------------------------------------------------------------------ the full stack


def run_victor(
    workspace: Path, request: str, turns: Turns, monkeypatch: pytest.MonkeyPatch, **config: Any
) -> tuple[FakeModel, Any]:
    """Victor's Agent.run on ``request`` against the fake model, earnest's gate installed."""
    from victor.framework import Agent

    monkeypatch.chdir(workspace)
    monkeypatch.setenv("HOME", str(workspace.parent / "home"))
    monkeypatch.setenv("VICTOR_EFFECT_GATED_COMPLETION", "1")
    for key, value in config.items():
        monkeypatch.setenv(key, value)
    logging.getLogger("victor").setLevel(logging.ERROR)
    ev.install()
    try:
        with FakeModel("chat", turns) as model:
            monkeypatch.setenv("LMSTUDIO_ENDPOINTS", model.url)

            async def main() -> Any:
                agent = await Agent.create(
                    provider="lmstudio",
                    model="fake-model",
                    workspace=str(workspace),
                    enable_observability=False,
                )
                return await agent.run(request)

            result = asyncio.run(main())
    finally:
        ev.uninstall()
    return model, result


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "notes.txt").write_text("the meeting is at noon\n")
    return ws


def test_victor_loop_retries_a_done_without_effect_then_accepts_the_write(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    turns = Turns(
        [
            Turn(calls=(Call("read", {"path": "notes.txt"}),)),
            Turn(text="Done: I created hello.py."),
            Turn(calls=(Call("write", {"path": "hello.py", "content": "print('hello')\n"}),)),
            Turn(text="Created hello.py."),
        ],
        fallback="Created hello.py.",
    )
    model, result = run_victor(workspace, "Create hello.py that prints hello.", turns, monkeypatch)
    nudged = model.sent_back(NUDGE)
    # Victor's own nudge carries earnest's expected class to the model, once.
    assert nudged and "expected: workspace_delta" in nudged[0].dump
    first = nudged[0].body["messages"]
    assert any(m.get("content") == "Done: I created hello.py." for m in first)
    assert (workspace / "hello.py").read_text() == "print('hello')\n"
    assert result.content == "Created hello.py."
    assert len(model.sent_back(NUDGE)) == len(model.agent_requests) - 2  # no nudge after the write


def test_victor_loop_with_its_own_gate_lets_the_same_done_through(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without a task type Victor's gate expects a grounded claim, and the read grounds it:
    "Done: I created hello.py." stands. earnest reads the request and expects a change."""
    from victor.framework import Agent

    monkeypatch.chdir(workspace)
    monkeypatch.setenv("HOME", str(workspace.parent / "home"))
    monkeypatch.setenv("VICTOR_EFFECT_GATED_COMPLETION", "1")
    turns = Turns(
        [
            Turn(calls=(Call("read", {"path": "notes.txt"}),)),
            Turn(text="Done: I created hello.py."),
        ],
        fallback="Done: I created hello.py.",
    )
    with FakeModel("chat", turns) as model:
        monkeypatch.setenv("LMSTUDIO_ENDPOINTS", model.url)

        async def main() -> Any:
            agent = await Agent.create(provider="lmstudio", model="fake-model",
                                       workspace=str(workspace), enable_observability=False)  # fmt: skip
            return await agent.run("Create hello.py that prints hello.")

        asyncio.run(main())
    assert not model.sent_back(NUDGE)
    assert not (workspace / "hello.py").exists()


def test_victor_loop_done_forever_is_retried_max_downgrades_times(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    turns = Turns(
        [Turn(calls=(Call("read", {"path": "notes.txt"}),))], fallback="Done: I created hello.py."
    )
    model, result = run_victor(workspace, "Create hello.py that prints hello.", turns, monkeypatch)
    last = model.agent_requests[-1].body["messages"]
    nudges = [m for m in last if NUDGE in str(m.get("content", ""))]
    assert len(nudges) == 2  # Victor's default effect_gate_max_downgrades
    assert result.content == "Done: I created hello.py."
    assert not (workspace / "hello.py").exists()


def test_victor_loop_accepts_a_question_answered_after_a_read(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    turns = Turns(
        [
            Turn(calls=(Call("read", {"path": "notes.txt"}),)),
            Turn(text="notes.txt says the meeting is at noon."),
        ],
        fallback="notes.txt says the meeting is at noon.",
    )
    model, result = run_victor(workspace, "What does notes.txt say?", turns, monkeypatch)
    assert not model.sent_back(NUDGE)
    assert "noon" in result.content


def test_install_makes_victors_loop_build_earnests_gate() -> None:
    from victor.framework.agentic_loop import AgenticLoop

    ev.install()
    try:
        loop = AgenticLoop(orchestrator=None, enable_fulfillment_check=False,
                           config={"enable_effect_gate": True, "effect_gate_max_downgrades": 3})  # fmt: skip
    finally:
        ev.uninstall()
    assert isinstance(loop.effect_gate, ev.EffectGate)
    assert loop.effect_gate.enabled and loop.effect_gate.config.max_downgrades == 3
    assert victor_gate.EffectGate is not ev.EffectGate  # uninstalled
    plain = AgenticLoop(orchestrator=None, enable_fulfillment_check=False)
    assert isinstance(ev.use_in(plain), ev.EffectGate) and plain.effect_gate.enabled is False


# ------------------------------------------------------------------------ Victor's seam


def _turn(content: str = "", results: list[dict[str, Any]] | None = None) -> Any:
    from victor.agent.services.turn_execution_runtime import TurnResult
    from victor.providers.base import CompletionResponse

    return TurnResult(response=CompletionResponse(content=content), tool_results=results or [])


def _complete() -> Any:
    return EvaluationResult(decision=EvaluationDecision.COMPLETE, score=0.9, reason="core done")


def test_seam_a_tool_that_raised_is_a_failed_call_not_an_effect(tmp_path: Path) -> None:
    (tmp_path / "out.txt").write_text("ok\n")  # even a file that happens to exist
    gate = ev.EffectGate(ev.EffectGateConfig(enabled=True), workspace_resolver=lambda s: tmp_path)
    gate.reset()
    failed = {"tool_name": "write", "args": {"path": "out.txt"}, "success": False,
              "error": "RuntimeError: disk on fire"}  # fmt: skip
    state = {"query": "Create out.txt with ok in it."}
    gate.record(_turn(results=[failed]), state)
    out = asyncio.run(gate.apply(_complete(), _turn("Done: created out.txt."), state))
    assert out.decision == EvaluationDecision.RETRY
    assert "1 tool call(s), 0 succeeded" in out.reason
    # Victor's rule: a result without ``success: True`` did not succeed.
    gate.record(_turn(results=[{"tool_name": "write", "args": {"path": "out.txt"}}]), state)
    assert gate.gate.ledger.succeeded == 0


def test_seam_failing_test_run_then_all_tests_pass_is_retried(tmp_path: Path) -> None:
    config = ev.EffectGateConfig(enabled=True, strict_claims=True)
    gate = ev.EffectGate(config, workspace_resolver=lambda s: tmp_path)
    gate.reset()
    state = {"query": "Fix the bug in calc.py so that the tests pass."}
    (tmp_path / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    run = {"tool_name": "shell", "args": {"cmd": "pytest -q"}, "success": True,
           "result": "F\n1 failed in 0.02s", "exit_code": 1}  # fmt: skip
    write = {"tool_name": "write", "args": {"path": "calc.py"}, "success": True}
    gate.record(_turn(results=[write, run]), state)
    out = asyncio.run(gate.apply(_complete(), _turn("I fixed calc.py. All tests pass."), state))
    assert out.decision == EvaluationDecision.RETRY
    assert out.reason.startswith("unverified-claim: tests pass")


def test_seam_exhausted_budget_annotates_victors_result() -> None:
    gate = ev.EffectGate(ev.EffectGateConfig(enabled=True, max_downgrades=1))
    state = {"task_type": "edit"}
    first = asyncio.run(gate.apply(_complete(), _turn("done"), state))
    assert first.decision == EvaluationDecision.RETRY
    assert first.metadata["completion_without_effect"] is True
    assert first.metadata["expected_effect_class"] == "workspace_delta"
    given = _complete()
    second = asyncio.run(gate.apply(given, _turn("done"), state))
    assert second is given and second.metadata["effect_gate_exhausted"] is True
    assert second.metadata["effect_gate"]["would_downgrade"] == "completion-without-effect"


def test_seam_accepts_victors_own_config_object() -> None:
    gate = ev.EffectGate(victor_gate.EffectGateConfig(enabled=True, max_downgrades=5))
    assert gate.enabled and gate.config.max_downgrades == 5


# ------------------------------------------------------------------------ Victor's corpus


def _snapshot(ws: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in ws.iterdir() if p.is_file()}


def _judge(module: Any, task: Any, how: str, task_type: str | None, root: Path) -> str:
    """One corpus task, played by a scripted agent: it reads the fixture files, then does
    nothing (``none``), the reference solution (``solve``) or the flawed one (``flawed``),
    each write recorded as Victor's ``write`` tool; then it says "Done."."""
    ws = root / f"{task.task_id}-{how}-{task_type}-{module.__name__.rsplit('.', 1)[-1]}"
    ws.mkdir()
    task.setup(ws)
    before = _snapshot(ws)
    gate = module.EffectGate(module.EffectGateConfig(enabled=True), workspace_resolver=lambda s: ws)
    gate.reset()
    state: dict[str, Any] = {"query": task.prompt}
    if task_type:
        state["task_type"] = task_type
    reads = [{"tool_name": "read", "args": {"path": n}, "success": True} for n in before]
    gate.record(SimpleNamespace(tool_results=reads), state)
    if how == "solve":
        task.solve(ws)
    elif how == "flawed":
        task.solve_flawed(ws)
    after = _snapshot(ws)
    writes = [{"tool_name": "write", "args": {"path": n}, "success": True}
              for n in after if before.get(n) != after[n]]  # fmt: skip
    gate.record(SimpleNamespace(tool_results=writes), state)
    turn = SimpleNamespace(content="Done.", is_qa_response=False,
                           response=SimpleNamespace(metadata={}))  # fmt: skip
    return str(asyncio.run(gate.apply(_complete(), turn, state)).decision.value)


def test_victors_corpus_judged_by_earnest_and_by_victor(tmp_path: Path) -> None:
    tasks = effect_gate_corpus(variants=2)
    assert len(tasks) == 12
    differ = []
    for task in tasks:
        for how in ("none", "solve", "flawed"):
            for task_type in (None, "edit"):
                mine = _judge(ev, task, how, task_type, tmp_path)
                theirs = _judge(victor_gate, task, how, task_type, tmp_path)
                if how == "solve":  # the real work: both accept, and it verifies
                    assert mine == theirs == "complete", task.task_id
                if task_type == "edit":  # told it is an edit task, both judge alike
                    assert mine == theirs, (task.task_id, how)
                if mine != theirs:
                    differ.append((task.family, how, mine, theirs))
    # Where they differ, Victor has no task type, so its gate takes the read as grounding
    # and lets "Done." stand; earnest reads the request ("Make sure settings.ini has debug
    # set to false", "Record that port number ... into a new file named PORT.txt") and
    # wants a change. rename-symbol's flawed solution did write a file: both pass it.
    families = {"ensure-value", "apply-fix", "append-line", "create-from-desc", "record-answer"}
    expected = {(f, how, "retry", "complete") for f in families for how in ("none", "flawed")}
    expected.add(("rename-symbol", "none", "retry", "complete"))
    assert set(differ) == expected
    assert len(differ) == 2 * len(expected)  # two variants of each
    assert os.path.isdir(tmp_path)

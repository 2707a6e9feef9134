"""A tiny agent loop with the effect gate switched on.

The "agent" is scripted: on its first turn it only reads and then claims to be done; the gate
turns that COMPLETE into RETRY (completion-without-effect). On its second turn it writes the
file for real and completes again; the gate lets the COMPLETE stand, because the file was
created during this run (the workspace baseline was captured at the start).

Run it:  python examples/effect_gate_loop.py [--workspace DIR]
It prints one line per turn and exits 0 when the loop ends in a grounded COMPLETE.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

try:
    from earnest.effects import (
        EffectGate,
        EffectGateConfig,
        EvaluationDecision,
        EvaluationResult,
    )
except ImportError:  # running from a source checkout without installing
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    from earnest.effects import (
        EffectGate,
        EffectGateConfig,
        EvaluationDecision,
        EvaluationResult,
    )

REQUEST = "Create hello.py that prints a greeting."

Turn = tuple[str, list[dict[str, object]]]


def scripted_agent(workspace: Path) -> list[Callable[[], Turn]]:
    """Two turns of a scripted agent; each returns (final text, tool results)."""

    def lazy_turn() -> Turn:
        return (
            "Done! I created hello.py.",
            [{"tool_name": "Read", "args": {"file_path": str(workspace / "NOTES.md")}}],
        )

    def working_turn() -> Turn:
        target = workspace / "hello.py"
        target.write_text('print("hello")\n')  # the tool really runs
        return (
            "I created hello.py; it prints hello.",
            [
                {"tool_name": "Write", "args": {"file_path": str(target)}, "is_error": False},
                {"tool_name": "Bash", "args": {"command": "cat hello.py"}, "content": "print"},
            ],
        )

    return [lazy_turn, working_turn]


def evaluator(text: str) -> EvaluationResult:
    """A credulous evaluator: it believes whatever the agent says."""
    if "done" in text.lower() or "created" in text.lower():
        return EvaluationResult(EvaluationDecision.COMPLETE, score=0.9, reason="agent says done")
    return EvaluationResult(EvaluationDecision.CONTINUE, score=0.5)


def run(workspace: Path) -> int:
    (workspace / "NOTES.md").write_text("Greeting scripts go in the project root.\n")
    gate = EffectGate(EffectGateConfig(enabled=True), workspace=workspace)
    gate.reset(baseline=True)
    print(f"request: {REQUEST}")
    baseline = gate.workspace.baseline if gate.workspace is not None else None
    print(f"gate: enabled={gate.enabled} baseline={baseline.mode if baseline else 'none'}")
    verdict = EvaluationResult(EvaluationDecision.CONTINUE)
    index = 0
    for index, step in enumerate(scripted_agent(workspace), start=1):
        text, tool_results = step()
        gate.record(tool_results, turn_index=index)
        raw = evaluator(text)
        verdict = gate.apply(raw, content=text, request=REQUEST)
        tools = ",".join(str(r["tool_name"]) for r in tool_results) or "-"
        line = f"turn {index}: tools={tools} evaluator={raw.decision.value} gate={verdict.decision.value}"
        if verdict.decision is EvaluationDecision.RETRY:
            line += f" reason={verdict.reason}"
        elif verdict.decision is EvaluationDecision.COMPLETE:
            satisfied = verdict.metadata.get("effect_gate", {}).get("satisfied_by", {})
            line += f" satisfied_by={satisfied.get('artifact')} ({satisfied.get('status')})"
        print(line)
        if verdict.decision is EvaluationDecision.COMPLETE:
            break
    print(f"final: {verdict.decision.value} after {index} turns, {gate.downgrades} downgrade(s)")
    return 0 if verdict.decision is EvaluationDecision.COMPLETE and gate.downgrades == 1 else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workspace", type=Path, help="folder to use (default: a temp folder)")
    args = parser.parse_args(argv)
    if args.workspace is not None:
        args.workspace.mkdir(parents=True, exist_ok=True)
        return run(args.workspace)
    with tempfile.TemporaryDirectory(prefix="earnest-gate-") as tmp:
        return run(Path(tmp))


if __name__ == "__main__":
    sys.exit(main())

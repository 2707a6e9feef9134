"""One agent run's gate, as every framework integration drives it.

:class:`RunGate` wraps the one gate (:class:`~earnest.effects.EffectGate`): ``start`` when a
run begins (the workspace baseline is taken then), ``record`` the tool calls the framework
reports, ``judge`` the final answer. A :class:`Verdict` says whether to send the model back
(``retry``) and with which words (``message``, which begins with the gate's reason); after
``max_downgrades`` retries the answer stands and the verdict says so (``exhausted``, ``note``).
:func:`tool_result` turns one call, as a framework reports it, into the mapping the gate reads.

The user's own tools are declared with ``tools=`` (a mapping name → ``state_change`` /
``read`` / ``check``, or the framework's tool objects, whose metadata or MCP annotations say
what they do: :mod:`earnest.integrations.tools`); an undeclared tool counts as a read.

The integrations' default config switches the gate on and checks the final message's claims
(``strict_claims``: "all tests pass" after a failing run is sent back); the user switched the
gate on by adding it, and ``EARNEST_EFFECT_GATE=0`` still switches it off.

Example:
    >>> gate = RunGate(env={})
    >>> gate.start("Fix the bug in app.py")
    >>> gate.record([tool_result("read_file", {"path": "app.py"}, "def f(): ...")])
    >>> first = gate.judge("Fixed it.")
    >>> first.retry, first.reason.split(":")[0]
    (True, 'completion-without-effect')
    >>> gate.record([tool_result("bash", {"command": "pytest -q"}, "3 passed in 0.01s")])
    >>> gate.judge("Fixed it; 3 tests pass.").retry
    False
    >>> booking = RunGate(env={}, tools={"cancel_reservation": "state_change"})
    >>> booking.start("Cancel reservation ABC123")
    >>> booking.record([tool_result("cancel_reservation", {"id": "ABC123"}, '{"status": "ok"}')])
    >>> booking.judge("Done: your reservation is cancelled.").retry
    False
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from earnest.effects.gate import EffectGate, EffectGateConfig
from earnest.effects.models import EvaluationDecision, EvaluationResult
from earnest.integrations.tools import ToolsArg, with_tools

log = logging.getLogger("earnest.integrations")

OUTCOME_KEYS = ("success", "is_error", "error", "status", "exit_code", "returncode", "exitCode")
"""Keys of a structured tool output that say how the call ended (passed to the gate as they are)."""

ADVICE = (
    "Do the work with your tools (write the file, run the check) and then answer again; "
    "if you cannot, say plainly what was not done."
)


def default_config() -> EffectGateConfig:
    """The integrations' config: the gate on, claims in the final message checked."""
    return EffectGateConfig(enabled=True, strict_claims=True)


def tool_result(
    name: str, args: Any, output: Any = None, *, failed: bool = False
) -> dict[str, Any]:
    """One tool call as the gate reads it: name, arguments, what it printed, how it ended.

    ``output`` may be text, a mapping, or text holding a JSON object; a mapping's outcome keys
    (``exit_code``, ``success``, ``error`` ...) are kept, so a tool that returns
    ``{"exit_code": 1, "output": "..."}`` is a failed call. ``failed``: the framework reports
    that the call raised.

    Example:
        >>> tool_result("bash", {"command": "pytest"}, '{"exit_code": 1, "output": "1 failed"}')
        {'tool_name': 'bash', 'args': {'command': 'pytest'}, 'exit_code': 1, 'output': '1 failed'}
    """
    result: dict[str, Any] = {"tool_name": name, "args": args if args is not None else {}}
    fields = output if isinstance(output, Mapping) else _json_object(output)
    if fields is not None:
        result.update((key, fields[key]) for key in OUTCOME_KEYS if key in fields)
        text = next((fields[k] for k in ("output", "stdout", "content") if k in fields), None)
        result["output"] = text if isinstance(text, str) else json.dumps(fields, default=str)
    elif output is not None:
        result["output"] = output if isinstance(output, str) else str(output)
    if failed:
        result["is_error"] = True
    return result


def _json_object(text: Any) -> Mapping[str, Any] | None:
    if not isinstance(text, str) or not text.lstrip().startswith("{"):
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


@dataclass(frozen=True)
class Verdict:
    """The gate's word on one final answer."""

    evaluation: EvaluationResult
    downgrades: int
    """Retries spent in this run, this one included."""

    @property
    def retry(self) -> bool:
        return self.evaluation.decision is EvaluationDecision.RETRY

    @property
    def reason(self) -> str:
        """``completion-without-effect: ...`` or ``unverified-claim: ...``; empty when accepted."""
        return self.evaluation.reason if self.retry else ""

    @property
    def exhausted(self) -> bool:
        """The answer stands only because the run's retries are spent."""
        return bool(self.evaluation.metadata.get("effect_gate_exhausted"))

    @property
    def message(self) -> str:
        """What the framework sends the model when it retries: the reason, then the advice."""
        return f"{self.reason}\n{ADVICE}" if self.retry else ""

    @property
    def note(self) -> str:
        """For an exhausted verdict: what the gate would have said, and why it let it stand."""
        if not self.exhausted:
            return ""
        info = self.evaluation.metadata.get("effect_gate") or {}
        kind = info.get("would_downgrade", "completion-without-effect")
        return (
            f"effect gate exhausted: {kind} after {self.downgrades} retr"
            f"{'y' if self.downgrades == 1 else 'ies'}; the answer stands unverified"
        )


class RunGate:
    """The gate for one agent run at a time: ``start`` → ``record`` … → ``judge``."""

    def __init__(
        self,
        config: EffectGateConfig | None = None,
        *,
        workspace: str | os.PathLike[str] | None = None,
        task_type: str | None = None,
        baseline: bool = True,
        env: Mapping[str, str] | None = None,
        tools: ToolsArg = None,
    ) -> None:
        config = with_tools(config if config is not None else default_config(), tools)
        self.gate = EffectGate(config, workspace=workspace, env=env)
        self.task_type = task_type
        self.baseline = baseline and workspace is not None
        self.request: str | None = None
        self.verdicts: list[Verdict] = []

    @property
    def enabled(self) -> bool:
        return self.gate.enabled

    @property
    def last(self) -> Verdict | None:
        """The latest verdict of the run (None before the first answer)."""
        return self.verdicts[-1] if self.verdicts else None

    def start(self, request: str | None = None) -> None:
        """A run begins: forget the last one; only changes from now on count."""
        self.gate.reset(baseline=self.baseline)
        self.request = request or None
        self.verdicts = []

    def record(self, calls: Iterable[Mapping[str, Any]]) -> None:
        """Add tool calls (see :func:`tool_result`) to the run's ledger."""
        batch = list(calls)
        if batch:
            self.gate.record(batch)

    def judge(self, content: str) -> Verdict:
        """The gate's verdict on a final answer ``content``."""
        done = EvaluationResult(EvaluationDecision.COMPLETE, 1.0, "the agent gave a final answer")
        out = self.gate.apply(
            done, content=content or "", task_type=self.task_type, request=self.request
        )
        verdict = Verdict(out, self.gate.downgrades)
        if verdict.retry:
            log.info("earnest effect gate: retry (%d): %s", verdict.downgrades, verdict.reason)
        elif verdict.exhausted:
            log.warning("earnest %s", verdict.note)
        self.verdicts.append(verdict)
        return verdict


__all__ = ["ADVICE", "OUTCOME_KEYS", "RunGate", "Verdict", "default_config", "tool_result"]

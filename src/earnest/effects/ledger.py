"""The session-scoped effect ledger: what a loop run's tool calls did, across turns.

Session-scoped, not turn-scoped (ADR-010 decision 1): a no-tool summary turn after effectful
turns is a legitimate completion, so evidence accumulates over the run and is cleared by
:meth:`EffectLedger.reset` when the next run starts.

Besides the evidence list, the ledger keeps what the gate needs without rescanning it:
counts of calls attempted and succeeded, the checks, the deltas that name no file, the latest
evidence per artifact path (newest last), read (grounding) evidence, and every shell command
with its outcome (for ``ran X`` claims).

Example:
    >>> ledger = EffectLedger()
    >>> ledger.record([{"tool_name": "Read", "args": {"file_path": "a.py"}},
    ...                {"tool_name": "Edit", "args": {"file_path": "a.py"}}], turn_index=1)
    >>> ledger.attempted, ledger.succeeded, len(ledger.evidence), len(ledger.reads)
    (2, 2, 1, 1)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from earnest.effects.artifacts import output_text
from earnest.effects.classify import ToolObservation, observe_tool_result
from earnest.effects.models import EffectClass, EffectEvidence
from earnest.effects.registry import DEFAULT_REGISTRY, ToolRegistry

TYPE_CHECKING = False  # not typing's: importing typing costs every stop ~3 ms
if TYPE_CHECKING:
    from typing import Any

OUTPUT_TAIL = 8192
"""How much of a shell call's output is kept: enough for any test runner's summary."""


@dataclass(frozen=True, slots=True)
class ShellCall:
    """One shell command the agent ran (or tried to), for ``ran X`` claims."""

    command: str
    success: bool
    turn_index: int | None
    output: str = ""
    """The tail of what the command printed (test-runner summaries stand there)."""


@dataclass(frozen=True, slots=True)
class ReadEvidence:
    """One successful call that grounds an answer in tool feedback."""

    tool_name: str
    kind: str | None
    paths: tuple[str, ...]
    turn_index: int | None


class EffectLedger:
    """Accumulates :class:`EffectEvidence` over one loop run."""

    def __init__(self, registry: ToolRegistry = DEFAULT_REGISTRY) -> None:
        self.registry = registry
        self.reset()

    def reset(self) -> None:
        """Forget everything: a new run starts."""
        self.evidence: list[EffectEvidence] = []
        self.reads: list[ReadEvidence] = []
        self.shell_calls: list[ShellCall] = []
        self.checks: list[EffectEvidence] = []
        self.pathless_deltas: list[EffectEvidence] = []
        self.artifacts: dict[str, EffectEvidence] = {}
        self.attempted = 0
        self.succeeded = 0
        self.skipped = 0
        self.version = 0

    def record(self, tool_results: Iterable[Any], *, turn_index: int | None = None) -> None:
        """Add one turn's tool results. Items that are not mappings are counted as skipped."""
        for result in tool_results:
            if not isinstance(result, Mapping):
                self.skipped += 1
                continue
            obs = observe_tool_result(result, self.registry, turn_index=turn_index)
            output = output_text(result)[-OUTPUT_TAIL:] if obs.command is not None else ""
            self.add(obs, turn_index=turn_index, output=output)

    def add(self, obs: ToolObservation, *, turn_index: int | None = None, output: str = "") -> None:
        """Add one observed tool call (``output``: what a shell call printed, for claims)."""
        self.version += 1
        self.attempted += 1
        if obs.command is not None:
            self.shell_calls.append(ShellCall(obs.command, obs.success, turn_index, output))
        if not obs.success:
            return
        self.succeeded += 1
        if obs.grounding:
            self.reads.append(ReadEvidence(obs.tool_name, obs.kind, obs.paths, turn_index))
        for ev in obs.evidence:
            self.evidence.append(ev)
            if ev.effect_class is EffectClass.VERIFIED_CHECK:
                self.checks.append(ev)
            elif not ev.artifact_paths:
                self.pathless_deltas.append(ev)
            else:
                for path in ev.artifact_paths:
                    # newest evidence last: the gate checks recent artifacts first
                    self.artifacts.pop(path, None)
                    self.artifacts[path] = ev

    @property
    def effects(self) -> tuple[EffectEvidence, ...]:
        """All delta and check evidence, in the order observed."""
        return tuple(self.evidence)

    def has_read_evidence(self) -> bool:
        return bool(self.reads)

    def deltas_for(self, path: str) -> EffectEvidence | None:
        """The latest delta evidence naming ``path`` exactly as the agent wrote it."""
        return self.artifacts.get(path)

    def summary(self, *, last: int = 5) -> dict[str, Any]:
        """Counts and the last few pieces of evidence (bounded, so cheap on long runs)."""
        return {
            "attempted_tool_calls": self.attempted,
            "successful_tool_calls": self.succeeded,
            "effects": len(self.evidence),
            "checks": len(self.checks),
            "deltas_with_artifacts": len(self.artifacts),
            "deltas_without_artifacts": len(self.pathless_deltas),
            "reads": len(self.reads),
            "recent_evidence": [e.to_dict() for e in self.evidence[-last:]],
        }


__all__ = ["EffectLedger", "ReadEvidence", "ShellCall"]

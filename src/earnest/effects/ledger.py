"""The session-scoped effect ledger: what a loop run's tool calls did, across turns.

Session-scoped, not turn-scoped (ADR-010 decision 1): a no-tool summary turn after effectful
turns is a legitimate completion, so evidence accumulates over the run and is cleared by
:meth:`EffectLedger.reset` when the next run starts.

Besides the evidence list, the ledger keeps what the gate needs without rescanning it:
counts of calls attempted and succeeded, the checks, the deltas that name no file, the latest
evidence per artifact path (newest last), read (grounding) evidence, and every shell command
with its outcome (for ``ran X`` claims) and the outcome of each simple command in it
(:mod:`earnest.effects.shell_outcomes`). :attr:`EffectLedger.check_runs` lists every test,
lint, type-check and build command run, each with its own outcome and the counts its summary
printed; :meth:`EffectLedger.last_check_run` is "the last test run and how it came out", for
claims.

Example:
    >>> ledger = EffectLedger()
    >>> ledger.record([{"tool_name": "Read", "args": {"file_path": "a.py"}},
    ...                {"tool_name": "Edit", "args": {"file_path": "a.py"}}], turn_index=1)
    >>> ledger.attempted, ledger.succeeded, len(ledger.evidence), len(ledger.reads)
    (2, 2, 1, 1)
    >>> ledger.record([{"tool_name": "Bash", "args": {"command": "pytest -q 2>&1 | tail -3"},
    ...                 "output": "1 failed, 5 passed in 0.31s"}], turn_index=2)
    >>> run = ledger.last_check_run()
    >>> run.command, run.outcome, run.counts.failed, len(ledger.checks)
    ('pytest -q 2>&1', 'failure', 1, 0)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from earnest.effects.actions import changes_state
from earnest.effects.artifacts import output_text
from earnest.effects.classify import ToolObservation, observe_tool_result
from earnest.effects.freshness import STALE_KINDS, affects_checks
from earnest.effects.models import EffectClass, EffectEvidence
from earnest.effects.registry import DEFAULT_REGISTRY, ToolRegistry

TYPE_CHECKING = False  # not typing's: importing typing costs every stop ~3 ms
if TYPE_CHECKING:
    from typing import Any

    from earnest.effects.shell_outcomes import CommandOutcome
    from earnest.effects.test_counts import TestCounts

OUTPUT_TAIL = 8192
"""How much of a shell call's output is kept: enough for any test runner's summary."""


@dataclass(frozen=True, slots=True)
class ShellCall:
    """One shell command the agent ran (or tried to), for ``ran X`` claims.

    ``success`` is what the tool reported for the whole line; ``outcomes`` how each simple
    command in it came out (``pytest || true`` can succeed while its pytest failed).
    """

    command: str
    success: bool
    turn_index: int | None
    output: str = ""
    """The tail of what the command printed (test-runner summaries stand there)."""
    seq: int = 0
    """The call's place in the run (:attr:`EffectLedger.version` when it was added): what
    came before and after it (:meth:`EffectLedger.changes_after`)."""
    outcomes: tuple[CommandOutcome, ...] = ()


@dataclass(frozen=True, slots=True)
class CheckRun:
    """One test, lint, type-check or build command and how it came out.

    ``command`` is the simple command (``pytest -q 2>&1``), ``line`` the whole line it stood
    in; ``kind`` its check kind; ``outcome`` ``success``, ``failure`` or ``unknown`` (masked
    and silent: never a passed check); ``counts`` what a test runner's summary printed;
    ``summary`` the deciding summary, rendered (``pytest: 5/6 passed, 1 failed``, ``ruff: 3
    errors``), ``""`` when none decided; ``seq`` its call's place in the run
    (:attr:`ShellCall.seq`: comparable with :attr:`EffectLedger.changed_at`).
    """

    command: str
    line: str
    kind: str
    outcome: str
    counts: TestCounts | None
    summary: str
    seq: int
    turn_index: int | None

    @property
    def succeeded(self) -> bool:
        return self.outcome == "success"


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

    def reset(self, *, keep_conversation: bool = False) -> None:
        """Forget everything: a new run starts. ``keep_conversation``: the run is a new turn
        of the same conversation, so the state-changing calls of the runs before it stay
        counted in :attr:`earlier_changes` (they can back a claimed action)."""
        earlier = getattr(self, "earlier_changes", 0) + getattr(self, "state_changes", 0)
        earlier_tools = getattr(self, "earlier_action_tools", []) + getattr(
            self, "action_tools", []
        )
        self.earlier_changes: int = earlier if keep_conversation else 0
        """Calls with delta evidence in earlier runs of this conversation."""
        self.earlier_action_tools: list[str] = earlier_tools[-64:] if keep_conversation else []
        """Unknown tools that changed something in earlier runs of this conversation."""
        self.state_changes = 0
        """Successful calls in this run with delta evidence (they back any claimed action)."""
        self.action_tools: list[str] = []
        """Unknown tools that changed something in this run, by name
        (:func:`earnest.effects.actions.changes_state`; they back the actions their names
        carry, :func:`earnest.effects.actions.can_back`)."""
        self.evidence: list[EffectEvidence] = []
        self.reads: list[ReadEvidence] = []
        self.shell_calls: list[ShellCall] = []
        self.checks: list[EffectEvidence] = []
        self.pathless_deltas: list[EffectEvidence] = []
        self.artifacts: dict[str, EffectEvidence] = {}
        self.changed_at: dict[str, int] = {}
        """Path → the place (``seq``) of the newest call that changed it in a way that can
        make a check stale (:func:`earnest.effects.freshness.affects_checks`)."""
        self.checked_at: dict[str, int] = {}
        """Check kind (``test``, ``lint`` ...) → the place (``seq``) of its newest success."""
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
            call = ShellCall(obs.command, obs.success, turn_index, output, self.version,
                             obs.outcomes)  # fmt: skip
            self.shell_calls.append(call)
        if not obs.success:
            return
        self.succeeded += 1
        if any(ev.effect_class is EffectClass.WORKSPACE_DELTA for ev in obs.evidence):
            self.state_changes += 1
        elif changes_state(obs.kind, obs.tool_name) and len(self.action_tools) < 64:
            self.action_tools.append(obs.tool_name)
        if obs.grounding:
            self.reads.append(ReadEvidence(obs.tool_name, obs.kind, obs.paths, turn_index))
        for ev in obs.evidence:
            self.evidence.append(ev)
            if ev.effect_class is EffectClass.VERIFIED_CHECK:
                self.checks.append(ev)
                self.checked_at[ev.kind] = self.version
            elif not ev.artifact_paths:
                self.pathless_deltas.append(ev)
            else:
                stales = ev.kind in STALE_KINDS
                for path in ev.artifact_paths:
                    # newest evidence last: the gate checks recent artifacts first
                    self.artifacts.pop(path, None)
                    self.artifacts[path] = ev
                    if stales and affects_checks(path):
                        self.changed_at[path] = self.version

    @property
    def effects(self) -> tuple[EffectEvidence, ...]:
        """All delta and check evidence, in the order observed."""
        return tuple(self.evidence)

    @property
    def check_runs(self) -> tuple[CheckRun, ...]:
        """Every check command of every shell call, oldest first, each with its outcome."""
        return tuple(run for k in range(len(self.shell_calls)) for run in self._runs_of(k))

    def last_check_run(self, kinds: Iterable[str] = ("test", "check")) -> CheckRun | None:
        """The newest check run of one of ``kinds`` (by default: the last test run), or
        ``None``. Its ``outcome`` says whether it is known to have passed."""
        wanted = frozenset(kinds)
        for k in range(len(self.shell_calls) - 1, -1, -1):
            found = [r for r in self._runs_of(k) if r.kind in wanted]
            if found:
                return found[-1]
        return None

    def _runs_of(self, index: int) -> list[CheckRun]:
        call = self.shell_calls[index]
        runs: list[CheckRun] = []
        for o in call.outcomes:
            if o.kinds:
                said = o.summary
                counts = said.counts if said is not None else None
                text = said.render() if said is not None else ""
                runs.append(
                    CheckRun(
                        o.segment,
                        call.command,
                        o.kind,
                        o.outcome,
                        counts,
                        text,
                        call.seq,
                        call.turn_index,
                    )
                )
        return runs

    def has_read_evidence(self) -> bool:
        return bool(self.reads)

    def deltas_for(self, path: str) -> EffectEvidence | None:
        """The latest delta evidence naming ``path`` exactly as the agent wrote it."""
        return self.artifacts.get(path)

    def changes_after(self, seq: int) -> list[str]:
        """The paths changed after the call at ``seq`` (oldest first) in a way that can make a
        check that ran there stale; what that call itself wrote does not count."""
        later = [(at, path) for path, at in self.changed_at.items() if at > seq]
        return [path for _, path in sorted(later)]

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


__all__ = ["CheckRun", "EffectLedger", "ReadEvidence", "ShellCall"]

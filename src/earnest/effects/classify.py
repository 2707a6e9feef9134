"""Classify one tool result into effect evidence (pure; the one implementation).

A tool result is a mapping with ``tool_name`` or ``name``; ``args`` or ``arguments`` (also
``input``/``parameters``), a dict or a JSON string; and an outcome. A call **failed** when
``success`` is false, ``is_error`` is true, ``error`` is set, ``status`` says error,
``exit_code``/``returncode`` is non-zero, or (shell tools) the output starts with
``Exit code N`` with N ≠ 0, as Claude Code's Bash reports it, or ends with Gemini CLI's
``run_shell_command`` trailer ``Exit Code: N`` (then ``Signal:`` / ``Background PIDs:`` /
``Process Group PGID:`` lines, maybe inside ``<untrusted_context>``), or (tools that change
things) the output says the sandbox or a permission check refused it (:func:`refused`:
Codex's "patch rejected: writing is blocked by read-only sandbox") or opens with a patch
tool's error (:func:`patch_failed`: Codex's "apply_patch verification failed: Failed to find
expected lines in ...", recorded with no exit code). A shell call that its tool flags
read-only (``"readonly": true``) is a read whatever its command. Failed calls and read tools
give no evidence; successful calls other than bookkeeping still count as tool feedback
(:attr:`ToolObservation.grounding`).

A shell call's command line is read as the shell reads it, each simple command with its own
outcome (:func:`earnest.effects.shell_outcomes.command_outcomes`, kept in
:attr:`ToolObservation.outcomes`, failed calls included): a test, lint, type-check or build
command is ``verified_check`` evidence only when it is known to have succeeded — by its own
printed summary (``6 passed``), or because the line's status shows it (``cd x && pytest``
exited 0). ``pytest -q | tail -5`` that printed ``1 failed, 5 passed``, ``pytest || true`` and
``pytest | tail`` with no summary give no check evidence, whatever the line's exit status.

Example:
    >>> classify_tool_result({"tool_name": "Write", "args": {"file_path": "a.py"}})[0].artifact_paths
    ('a.py',)
    >>> classify_tool_result({"name": "Bash", "arguments": '{"command": "pytest"}', "is_error": True})
    ()
    >>> [e.kind for e in classify_tool_result({"name": "Bash", "input": {"command": "ruff check . && pytest"}})]
    ['lint', 'test']
    >>> classify_tool_result({"name": "Bash", "input": {"command": "pytest -q || true"},
    ...                       "output": "1 failed, 4 passed in 0.2s"})
    ()
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from earnest.effects.artifacts import (
    command_arg,
    move_args,
    output_text,
    parse_args,
    patch_paths,
    patch_text,
    path_args,
)
from earnest.effects.models import EffectClass, EffectEvidence
from earnest.effects.registry import DEFAULT_REGISTRY, GROUNDING_KINDS, SILENT_KINDS, ToolRegistry
from earnest.lazyre import LazyPattern

TYPE_CHECKING = False  # not typing's: importing typing costs every stop ~3 ms
if TYPE_CHECKING:
    from typing import Any

    from earnest.effects.shell_outcomes import CommandOutcome

_EXIT_CODE = LazyPattern(r"\s*Exit code (-?\d+)", "Exit code ")
# Gemini CLI appends its shell trailer after the program's output, so only the end counts
# (a program may print anything before it).
_GEMINI_EXIT = LazyPattern(
    r"(?:\A|\n)Exit Code: (-?\d+)\n"
    r"(?:(?:Signal|Background PIDs|Process Group PGID): [^\n]*(?:\n|\Z))*"
    r"\s*(?:</untrusted_context>\s*)?\Z",
    "Exit Code: ",
)
_TRAILER_SCAN = 512
# A sandbox or permission refusal, as the CLIs word it in a tool's output: Codex's
# apply_patch run inside exec_command reports "patch rejected: writing is blocked by read-only
# sandbox; ..." with exit code 0, a shell write in a read-only sandbox "operation not
# permitted", a redirect into a read-only file "...: Permission denied".
_REFUSAL = LazyPattern(
    r"(?:^|\n)\s*(?:patch|command|exec command|apply_patch) rejected\b"
    r"|writing is blocked by (?:the )?read-only sandbox"
    r"|rejected by user approval settings"
    r"|\boperation not permitted\b"
    r"|: Permission denied\s*(?:\n|$)"
    r"|\bRead-only file system\b",
    flags=re.IGNORECASE,
)
# A patch that did not apply, as Codex's apply_patch words it (the exec_command interception
# and the freeform tool record it as the whole output, with no exit code; the apply_patch
# binary prints the same errors). Only the opening counts: a program may print anything later.
_PATCH_FAILURE = LazyPattern(
    r"(?:\A|\A(?:[^\n]*\n){0,8}?Output:\n)\s*(?:"
    r"apply_patch verification failed|apply_patch failed|apply_patch error|patch rejected"
    r"|invalid patch|invalid hunk at line|failed to find (?:expected lines|context)"
    r"|failed to (?:read|write|delete|remove|create|move|apply)\b|execution error"
    r")",
    flags=re.IGNORECASE,
)
_REFUSAL_SCAN = 4096  # a refusal is reported up front; a long output's tail is the program's
_MUTATING = frozenset({"shell", "exec", "patch", "write", "edit", "delete", "move", "editor"})
_ERROR_STATUS = frozenset({"error", "failed", "failure", "cancelled", "canceled", "timeout"})
_EDITOR_COMMANDS = {"create": "write", "str_replace": "edit", "insert": "edit",
                    "undo_edit": "edit", "edit": "edit", "write": "write", "view": "read"}  # fmt: skip


@dataclass(frozen=True, slots=True)
class ToolObservation:
    """What one tool call tells the gate.

    ``kind`` is the canonical kind (None for an unknown tool); ``evidence`` its effects;
    ``grounding`` is True for a successful call whose output is tool feedback (reads, searches,
    read-only shell commands, unknown tools); ``command`` the shell command, if any;
    ``paths`` the paths named in its arguments; ``outcomes`` how each simple command of a
    shell call came out (:mod:`earnest.effects.shell_outcomes`), also for a failed call.
    """

    tool_name: str
    kind: str | None
    success: bool
    evidence: tuple[EffectEvidence, ...]
    grounding: bool
    command: str | None
    paths: tuple[str, ...]
    outcomes: tuple[CommandOutcome, ...] = ()


def tool_succeeded(result: Mapping[str, Any], *, shell: bool = False) -> bool:
    """Whether a tool result reports success (see the module docstring for the markers)."""
    if result.get("success") is False or result.get("is_error") is True:
        return False
    error = result.get("error")
    if error not in (None, False, "", {}, []):
        return False
    status = result.get("status")
    if isinstance(status, str) and status.strip().lower() in _ERROR_STATUS:
        return False
    for container in (result, result.get("metadata")):
        if isinstance(container, Mapping):
            for key in ("exit_code", "returncode", "exitCode"):
                code = container.get(key)
                if isinstance(code, int) and not isinstance(code, bool) and code != 0:
                    return False
    if shell:
        text = output_text(result)
        match = _EXIT_CODE.match(text[:64]) or _GEMINI_EXIT.search(text[-_TRAILER_SCAN:])
        if match and int(match.group(1)) != 0:
            return False
    return True


def refused(result: Mapping[str, Any]) -> bool:
    """Whether a tool's output says the sandbox or a permission check refused the call.

    Example:
        >>> refused({"output": "patch rejected: writing is blocked by read-only sandbox"})
        True
        >>> refused({"output": "Success. Updated the following files:\\nM app.py"})
        False
    """
    return _REFUSAL.search(output_text(result)[:_REFUSAL_SCAN]) is not None


READONLY_FLAGS = ("readonly", "read_only", "readOnly")
"""Argument keys with which a shell tool says it ran a command read-only (Victor-style
stacks send ``{"cmd": ..., "readonly": true}``)."""


def flagged_readonly(args: Mapping[str, Any]) -> bool:
    """Whether a shell tool's arguments flag the call read-only (``true`` only, not "yes")."""
    return any(args.get(key) is True for key in READONLY_FLAGS)


def patch_failed(result: Mapping[str, Any]) -> bool:
    """Whether a tool's output opens with a patch tool's error: the patch did not apply.

    Example:
        >>> patch_failed({"output": "apply_patch verification failed: Failed to find expected "
        ...               "lines in /w/app.py:\\ndef total(xs):"})
        True
        >>> patch_failed({"output": "Exit code: 0\\nOutput:\\nInvalid patch: no hunks"})
        True
        >>> patch_failed({"output": "Success. Updated the following files:\\nM app.py"})
        False
    """
    return _PATCH_FAILURE.match(output_text(result)[:_REFUSAL_SCAN]) is not None


def _name(result: Mapping[str, Any]) -> str:
    for key in ("tool_name", "name"):
        value = result.get(key)
        if isinstance(value, str) and value:
            return value
    return ""


def _raw_args(result: Mapping[str, Any]) -> Any:
    for key in ("args", "arguments", "input", "parameters"):
        if key in result and result[key] is not None:
            return result[key]
    return None


def observe_tool_result(
    result: Mapping[str, Any],
    registry: ToolRegistry = DEFAULT_REGISTRY,
    *,
    turn_index: int | None = None,
) -> ToolObservation:
    """Everything :func:`classify_tool_result` knows about ``result``, plus grounding."""
    name = _name(result)
    kind = registry.kind_of(name) if name else None
    args, raw_text = parse_args(_raw_args(result))
    if kind == "editor":
        kind = _EDITOR_COMMANDS.get(str(args.get("command", "")).strip(), "noop")
    success = tool_succeeded(result, shell=kind == "shell")
    if success and kind in _MUTATING and (refused(result) or patch_failed(result)):
        # Refused by the sandbox or a permission check, or the patch did not apply: nothing
        # was written, whatever the (missing) exit code says.
        success = False
    paths = path_args(args)
    command = command_arg(args, raw_text) if kind in {"shell", "test"} else None
    outcomes: tuple[CommandOutcome, ...] = ()
    if kind == "shell" and command:
        # Here, not at the top: the shell grammar is the biggest import a stop hook can skip.
        from earnest.effects.shell_outcomes import command_outcomes

        outcomes = command_outcomes(command, ok=success, output=output_text(result))
    if kind == "shell" and flagged_readonly(args):
        # The tool itself ran the command read-only (it enforced it, the agent did not
        # choose it): a read, whatever the command says, so it earns no effect credit.
        kind = "read"
    if not success:
        return ToolObservation(name, kind, False, (), False, command, paths, outcomes)

    def ev(klass: EffectClass, k: str, artifacts: tuple[str, ...] = (), *, cmd: str | None = None,
           detail: str = "") -> EffectEvidence:  # fmt: skip
        return EffectEvidence(klass, name, k, artifacts, cmd, turn_index, detail)

    delta = EffectClass.WORKSPACE_DELTA
    evidence: tuple[EffectEvidence, ...] = ()
    grounding = False
    if kind in {"write", "edit", "delete"}:
        evidence = (ev(delta, kind, paths),)
    elif kind == "move":
        src, dst = move_args(args)
        evidence = (ev(delta, "write", (dst,) if dst else ()),)
        if src:
            evidence += (ev(delta, "delete", (src,)),)
    elif kind == "patch":
        written, deleted = patch_paths(patch_text(args, raw_text))
        evidence = (ev(delta, "edit", written),) if written or not deleted else ()
        if deleted:
            evidence += (ev(delta, "delete", deleted),)
        paths = written + deleted
    elif kind == "test":
        evidence = (ev(EffectClass.VERIFIED_CHECK, "test", cmd=command),)
    elif kind == "action":
        evidence = (ev(delta, "action", detail="state change outside the workspace"),)
    elif kind == "shell" and command:
        from earnest.effects.shell import analyze_shell

        analysis = analyze_shell(command, unknown=registry.unknown_shell)
        background = args.get("run_in_background") is True or args.get("is_background") is True
        passed = _passed_checks(analysis.effects, outcomes)
        evidence = tuple(
            ev(e.effect_class, e.kind, e.paths, cmd=e.segment or command, detail=e.detail)
            for k, e in enumerate(analysis.effects)
            # A check counts only when known to have succeeded; one started in the
            # background has not passed yet.
            if e.effect_class is not EffectClass.VERIFIED_CHECK or (k in passed and not background)
        )
        grounding = not evidence
        paths = analysis.artifacts
    elif kind == "exec":
        if registry.unknown_shell == "delta":
            evidence = (ev(delta, "shell", detail=f"unknown-command: {name}"),)
        grounding = not evidence
    elif kind is None or kind in GROUNDING_KINDS:
        grounding = True
    elif kind in SILENT_KINDS:
        grounding = False
    return ToolObservation(name, kind, True, evidence, grounding, command, paths, outcomes)


def _passed_checks(effects: Any, outcomes: tuple[CommandOutcome, ...]) -> set[int]:
    """Which check effects of a shell analysis stand for a command known to have succeeded.

    An effect names the top-level command it came from (``bash -c '...'`` for the commands of
    its script); each is paired, in order, with an outcome of the same command and kind.
    """
    passed: set[int] = set()
    used: set[int] = set()
    for k, effect in enumerate(effects):
        if effect.effect_class is not EffectClass.VERIFIED_CHECK:
            continue
        for j, outcome in enumerate(outcomes):
            if j in used or effect.kind not in outcome.kinds:
                continue
            if outcome.top == effect.segment or outcome.segment == effect.segment:
                used.add(j)
                if outcome.succeeded:
                    passed.add(k)
                break
    return passed


def classify_tool_result(
    result: Mapping[str, Any],
    registry: ToolRegistry = DEFAULT_REGISTRY,
    *,
    turn_index: int | None = None,
) -> tuple[EffectEvidence, ...]:
    """The effect evidence of one tool result; ``()`` for failures, reads and bookkeeping."""
    return observe_tool_result(result, registry, turn_index=turn_index).evidence


__all__ = [
    "READONLY_FLAGS",
    "ToolObservation",
    "classify_tool_result",
    "flagged_readonly",
    "observe_tool_result",
    "patch_failed",
    "refused",
    "tool_succeeded",
]

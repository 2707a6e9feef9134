"""Judge what a shell command does to the workspace, part by part, without running it.

A command is lexed (:mod:`earnest.effects.shell_lexer`) into simple commands; each part is
judged on its own, after stripping environment assignments and wrappers (``env``, ``sudo``,
``timeout 60``, ``uv run``, ``poetry run``, ``npx``, ``python -m`` ...):

- **verified checks**: test runners, linters, type checkers, builds (``pytest``,
  ``cargo test``, ``npm run lint``, ``make check``, ...), wherever they stand in the chain;
- **workspace deltas**: output redirections to a real file, ``tee``, ``sed -i``, ``perl -i``,
  file commands (``mv cp rm mkdir touch chmod ln``), mutating ``git`` sub-commands, package
  installs, formatters that write; artifact paths are extracted where they are literal, joined
  with the folder of a preceding ``cd``;
- **read-only** commands (``ls cat grep find echo`` without redirection, read-only ``git``)
  give nothing; ``bash -c '...'``, ``eval``, ``find -exec`` and ``xargs`` are judged by what
  they run; command substitutions are judged too.

Only the command word decides: ``echo pytest`` is not a check, and ``cat a > b`` is a delta on
``b``, not a read. The vocabulary lives in :mod:`earnest.effects.shell_vocab`.

**Unknown commands** (``python gen.py``, ``./build.sh``, ``docker compose up``) default to an
artifact-less workspace delta (``unknown="delta"``), as Victor does. The gate exists to stop
completions with no effect at all; a project's own scripts and generators usually exist to
change something, and judging them read-only would block every project that drives its work
through scripts. The cost is that an unknown read-only program counts. Pass
``unknown="ignore"`` (``unknown_shell = "ignore"`` in ``[effects]``) for the strict reading;
either way the command word is listed in :attr:`ShellAnalysis.unknown`.

Example:
    >>> a = analyze_shell("cd pkg && FOO=1 pytest -q 2>&1 | tee log.txt")
    >>> [(e.effect_class.value, e.kind, e.paths) for e in a.effects]
    [('verified_check', 'test', ()), ('workspace_delta', 'write', ('pkg/log.txt',))]
    >>> analyze_shell("echo pytest").read_only
    True
    >>> [e.paths for e in analyze_shell("cat a > b").effects]
    [('b',)]
"""

from __future__ import annotations

import functools
import posixpath
from dataclasses import dataclass

from earnest.effects import shell_vocab as V
from earnest.effects.models import EffectClass
from earnest.effects.shell_commands import (
    CHECK_KINDS,
    DELTA_KINDS,
    Effects,
    Judge,
    normalize_head,
    positional,
    script_file_kind,
    script_kind,
    strip_wrappers,
)
from earnest.effects.shell_lexer import SimpleCommand, lex_script

TYPE_CHECKING = False  # not typing's: importing typing costs a stop ~3 ms
if TYPE_CHECKING:
    from typing import Literal

    UnknownPolicy = Literal["delta", "ignore"]
else:
    UnknownPolicy = str  # a Literal for the type checker; a plain str at run time

MAX_DEPTH = 6
"""How deep ``bash -c`` / ``eval`` / command substitutions are followed."""


@dataclass(frozen=True, slots=True)
class ShellEffect:
    """One effect of one part of a command.

    ``kind`` is one of :data:`CHECK_KINDS` (a verified check) or :data:`DELTA_KINDS` (a
    workspace delta; ``shell`` marks an unknown command). ``paths`` are literal artifact paths
    (for ``delete``, the removed paths). ``segment`` is the part's source text.
    """

    effect_class: EffectClass
    kind: str
    paths: tuple[str, ...]
    segment: str
    detail: str = ""


@dataclass(frozen=True, slots=True)
class ShellAnalysis:
    """Everything a command does: its effects and the command words it did not recognise."""

    command: str
    effects: tuple[ShellEffect, ...]
    unknown: tuple[str, ...]

    @property
    def read_only(self) -> bool:
        """No effect and nothing unrecognised: the command only read."""
        return not self.effects and not self.unknown

    @property
    def is_check(self) -> bool:
        return any(e.effect_class is EffectClass.VERIFIED_CHECK for e in self.effects)

    @property
    def is_delta(self) -> bool:
        return any(e.effect_class is EffectClass.WORKSPACE_DELTA for e in self.effects)

    @property
    def check_kinds(self) -> frozenset[str]:
        return frozenset(
            e.kind for e in self.effects if e.effect_class is EffectClass.VERIFIED_CHECK
        )

    @property
    def artifacts(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(p for e in self.effects for p in e.paths))


# --------------------------------------------------------------------------------------------
# The analysis


class _Analyzer:
    def __init__(self, policy: UnknownPolicy, depth: int) -> None:
        self.policy: UnknownPolicy = policy
        self.depth = depth
        self.effects: list[ShellEffect] = []
        self.unknown: list[str] = []

    def nested(self, script: str) -> tuple[Effects, list[str]]:
        if self.depth >= MAX_DEPTH:
            return [], ["(nested too deep)"]
        inner = _Analyzer(self.policy, self.depth + 1)
        inner.run(script)
        return [(e.kind, e.paths, e.detail) for e in inner.effects], inner.unknown

    def run(self, command: str) -> None:
        script = lex_script(command)
        cwd: str | None = ""
        saved: list[str | None] = []
        for part in script.commands:
            while len(saved) < part.depth:
                saved.append(cwd)
            while len(saved) > part.depth:
                cwd = saved.pop()  # leaving a subshell restores its parent's folder
            cwd = self._part(part, cwd)
        for body in script.substitutions:
            if self.depth >= MAX_DEPTH:
                self.unknown.append("(nested too deep)")
                continue
            inner = _Analyzer(self.policy, self.depth + 1)
            inner.run(body)
            self.effects.extend(inner.effects)
            self.unknown.extend(inner.unknown)

    def _redirects(self, part: SimpleCommand, cwd: str | None) -> None:
        for r in part.redirects:
            target = r.target
            dup = r.op == ">&" and (target is None or target.text.isdigit() or target.text == "-")
            if target is None or r.fd == "0" or dup:
                continue
            if r.op not in V.WRITE_REDIRECTS and r.op != ">&":
                continue
            if target.static and (target.text in V.NULL_SINKS or target.text.startswith("/dev/")):
                continue
            paths = _join(cwd, (target.text,)) if target.static else ()
            kind = "edit" if r.op in {">>", "&>>"} else "write"
            self._add(EffectClass.WORKSPACE_DELTA, kind, paths, part.text, f"redirect {r.op}")

    def _part(self, part: SimpleCommand, cwd: str | None) -> str | None:
        self._redirects(part, cwd)
        ws = strip_wrappers(list(part.words))
        if not ws or ws[0].text in V.SKIP_PARTS:
            return cwd
        head, args = normalize_head(ws[0].text), ws[1:]
        if head in {"cd", "pushd"}:
            target = positional(args)
            if not target or not target[0].static or target[0].text == "-":
                return None  # somewhere we cannot follow
            joined = _join(cwd, (target[0].text,))
            return joined[0] if joined else None
        effects = Judge(self).judge(head, args)
        if effects is None:
            self.unknown.append(head)
            if self.policy == "delta":
                detail = f"unknown-command: {head}"
                self._add(EffectClass.WORKSPACE_DELTA, "shell", (), part.text, detail)
            return cwd
        for kind, paths, detail in effects:
            klass = (
                EffectClass.VERIFIED_CHECK if kind in CHECK_KINDS else EffectClass.WORKSPACE_DELTA
            )
            self._add(klass, kind, _join(cwd, paths), part.text, detail)
        return cwd

    def _add(
        self, klass: EffectClass, kind: str, paths: tuple[str, ...], seg: str, detail: str
    ) -> None:
        self.effects.append(ShellEffect(klass, kind, paths, seg, detail))


def _join(cwd: str | None, paths: tuple[str, ...]) -> tuple[str, ...]:
    out: list[str] = []
    for p in paths:
        if p.startswith("/"):
            out.append(posixpath.normpath(p))
        elif cwd is not None:  # relative to a folder we could not follow: dropped
            out.append(posixpath.normpath(posixpath.join(cwd, p)))
    return tuple(out)


CACHED_COMMAND_CHARS = 2_048
"""Commands up to this length are memoised (agents repeat ``git status`` and ``pytest``)."""


def analyze_shell(command: str, *, unknown: UnknownPolicy = "delta") -> ShellAnalysis:
    """Judge ``command`` part by part; pure, total, never executes anything."""
    if len(command) <= CACHED_COMMAND_CHARS:
        return _analyze_cached(command, unknown)
    return _analyze(command, unknown)


def _analyze(command: str, unknown: UnknownPolicy) -> ShellAnalysis:
    analyzer = _Analyzer(unknown, 0)
    analyzer.run(command)
    return ShellAnalysis(command, tuple(analyzer.effects), tuple(analyzer.unknown))


_analyze_cached = functools.lru_cache(maxsize=1_024)(_analyze)


def part_effects(part: SimpleCommand) -> tuple[ShellEffect, ...]:
    """The effects of one simple command already lexed (judged as :func:`analyze_shell`
    judges each part of a line, ``bash -c`` scripts followed; no folder is tracked)."""
    analyzer = _Analyzer("ignore", 0)
    analyzer._part(part, "")
    return tuple(analyzer.effects)


def is_check_command(command: str) -> bool:
    """True when some part of ``command`` is a test, lint, type-check or build run."""
    return analyze_shell(command).is_check


__all__ = [
    "CHECK_KINDS",
    "DELTA_KINDS",
    "ShellAnalysis",
    "ShellEffect",
    "UnknownPolicy",
    "analyze_shell",
    "is_check_command",
    "normalize_head",
    "part_effects",
    "script_file_kind",
    "script_kind",
    "strip_wrappers",
]

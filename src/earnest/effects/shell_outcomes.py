"""How each simple command of a command line came out, read as the shell reads the line.

A tool call reports one exit status for a whole line; the line may hide its commands' own
statuses. ``pytest -q 2>&1 | tail -5`` reports ``tail``'s (no ``pipefail``), ``pytest || true``
hides pytest's failure, ``pytest; echo finished`` reports ``echo``'s. :func:`command_outcomes`
gives each simple command its own outcome:

- ``success`` / ``failure``: known, either from the shell's semantics and the call's status
  (``a && b`` that exited 0 ran both and both succeeded; ``set -e; pytest; echo ok`` that
  exited 0 means pytest succeeded; a lone ``pytest`` that exited 1 failed), or from what the
  command printed itself: its runner summary (:func:`earnest.effects.test_counts.parse_run_summaries`:
  ``1 failed, 5 passed``, ``Found 3 errors.``, ``npm ERR!``) or the shell's ``command not
  found``. A summary decides, whatever the status of the line: ``pytest -q | tail -3`` that
  printed ``6 passed`` succeeded, ``ruff check . || true`` that printed ``Found 3 errors.``
  failed;
- ``unknown``: masked and silent (``pytest | tail`` with no summary in the output, a command
  in the background, inside ``if``/``for``/``case``), or never run (``false && pytest``).

Unknown is never counted as a verified check: :func:`earnest.effects.classify.observe_tool_result`
turns only a check command known to have succeeded into ``verified_check`` evidence, the ledger
keeps every outcome (:attr:`earnest.effects.ledger.ShellCall.outcomes`,
:attr:`earnest.effects.ledger.EffectLedger.check_runs`), and act mode's ``ran_ok`` needs a
known success.

The grammar modelled (from :attr:`earnest.effects.shell_lexer.Script.tree`): lists (``;``,
newlines, ``&``), and-or lists (``&&``, ``||``), pipelines (``|``, ``|&``, ``!``) with
``set -o pipefail`` / ``set +o pipefail``, ``set -e`` / ``set +e`` (errexit, with bash's
exceptions: not in a non-final part of ``&&``/``||``, not in a negated pipeline, not inside a
group run where errexit is ignored), subshells ``( )``, brace groups ``{ }``, ``exit N``,
``true``/``false``/``:``, and scripts run by ``bash -c``/``sh -c`` (with ``-e`` in the flags)
and ``eval``, which are read the same way, their status being the wrapper's. Command
substitutions are read as separate lines whose status nobody sees. Every assignment of
success or failure to the commands whose status is free is tried (at most 2**8; a command
whose status nothing reads — a pipeline's first part without pipefail, a list's non-final
part without errexit — is held fixed and comes out unknown), and a command's outcome is known
when it is the same in every assignment that gives the status the call reported.

**Why the project's own lexer, not a parser package.** Measured on this project's machine (2
shared cores under load, so the numbers are high but their ratios hold): ``bashlex`` (GPLv3+,
pure Python) costs 620-800 ms to import (it builds its yacc tables; a whole ``python -c
"import bashlex; bashlex.parse(...)"`` took 723 ms against 76 ms for ``python -c pass``, best
of 9) and raises on ``[[ ]]``, ``$(( ))``, arrays, ``case`` and ``coproc``; tree-sitter's bash
grammar (``tree-sitter`` 0.26 + ``tree-sitter-bash`` 0.25 wheels, MIT, compiled) parses all of
them but costs 12-100 ms to import (``importlib.resources`` and the shared library; 150 ms
for the whole process, best of 9) and is a compiled dependency for every install. The stop
hook's target is under 5x ``python -c pass``. :mod:`earnest.effects.shell_lexer` is already
imported when a stop meets a shell command, so reading the structure costs nothing more to
start; evaluating a line takes 0.1-0.5 ms (cached per line). What the outcomes need is the
list, and-or, pipeline and group structure, which the lexer now records
(:class:`~earnest.effects.shell_lexer.Group`); compound commands (``if``, ``for``, ``case``,
functions) are not modelled but marked opaque, which only makes their commands ``unknown``
unless they print a summary — the safe side.

Example:
    >>> [(o.segment, o.outcome) for o in command_outcomes(
    ...     "python -m pytest -q 2>&1 | tail -5", ok=True, output="1 failed, 5 passed in 0.2s")]
    [('python -m pytest -q 2>&1', 'failure'), ('tail -5', 'success')]
    >>> [(o.segment, o.outcome) for o in command_outcomes("pytest | tail", ok=True, output="")]
    [('pytest', 'unknown'), ('tail', 'success')]
    >>> [(o.segment, o.outcome) for o in command_outcomes("set -e; pytest; echo ok", ok=True)]
    [('set -e', 'success'), ('pytest', 'success'), ('echo ok', 'success')]
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

from earnest.effects import shell_vocab as V
from earnest.effects.models import EffectClass
from earnest.effects.shell import part_effects
from earnest.effects.shell_commands import inline_script, normalize_head, strip_wrappers
from earnest.effects.shell_lexer import Group, Pipeline, SimpleCommand, lex_script
from earnest.lazyre import LazyPattern

TYPE_CHECKING = False  # not typing's: importing typing costs every stop ~3 ms
if TYPE_CHECKING:
    from earnest.effects.test_counts import RunSummary

SUCCESS = "success"
FAILURE = "failure"
UNKNOWN = "unknown"
OUTCOMES = (SUCCESS, FAILURE, UNKNOWN)

MAX_FREE = 8
"""Commands whose status is free: up to this many, every assignment is tried (beyond, only
printed summaries decide)."""
MAX_NESTED = 6
"""How deep ``bash -c`` / ``eval`` scripts are followed."""
_SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh"})
_ZERO = frozenset({"true", ":", "echo", "set", "export", "unset", "shopt", "readonly",
                   "local", "declare", "typeset", "alias", "pwd", "printf"})  # fmt: skip
_TEST_KINDS = frozenset({"test", "check"})
_OTHER_KINDS = frozenset({"lint", "typecheck", "build", "check"})
_MARKER_TOOLS = V.words(
    "npm yarn pnpm make gmake cargo mvn gradle dotnet ruff black mypy tsc eslint"
)
"""Command words whose own markers are read even when they run no check (``npm install``)."""
_NOT_FOUND = LazyPattern(
    r"^(?:[\w./-]+: )?(?:line \d+: )?([\w.+-]+): (?:command )?not found\s*$",
    "not found",
    flags=re.M,
)


@dataclass(frozen=True, slots=True)
class CommandOutcome:
    """One simple command of a line and how it came out.

    ``segment`` is its source text; ``top`` the text of the top-level simple command it
    belongs to (the ``bash -c '...'`` around it, or itself); ``head`` its command word
    (wrappers stripped); ``kinds`` its check kinds (``test``, ``lint``, ``typecheck``,
    ``build``, ``check``; empty when it is no check); ``outcome`` ``success``, ``failure`` or
    ``unknown``; ``summary`` the runner summary that decided it, if one did.
    """

    segment: str
    top: str
    head: str
    kinds: tuple[str, ...]
    outcome: str
    summary: RunSummary | None = None

    @property
    def kind(self) -> str:
        """The first check kind, ``""`` for a command that is no check."""
        return self.kinds[0] if self.kinds else ""

    @property
    def succeeded(self) -> bool:
        """Known to have succeeded (``unknown`` is not success)."""
        return self.outcome == SUCCESS


# --------------------------------------------------------------------------------------------
# Reading a line (cached per command text)


@dataclass(slots=True)
class _Leaf:
    """One simple command of a line as read for its outcome (docstrings on every dataclass
    here: without one, ``dataclass`` imports ``inspect`` on every stop)."""

    segment: str
    top: str
    head: str
    kinds: tuple[str, ...]
    fixed: int | None = None  # a status no world can change (true, false, echo ...)
    exit_code: int | None = None  # ``exit N`` (-1: ``exit`` with no number)
    sets: tuple[tuple[str, bool], ...] = ()  # ``set -e`` ...: (option, on)
    opaque: bool = False  # its status says nothing about what it ran (find -exec)
    inner: _Reading | None = None  # ``bash -c SCRIPT``: its status is the script's
    shell_opts: tuple[tuple[str, bool], ...] = ()
    index: int = 0  # position among all leaves of the line


@dataclass(slots=True)
class _Reading:
    """A script's grammar and its simple commands, with its substitutions' readings."""

    tree: Group
    leaves: list[_Leaf]  # by command index of this script's Script.commands
    subs: list[_Reading] = field(default_factory=list)


def _set_options(args: list[str]) -> tuple[tuple[str, bool], ...]:
    """``set -euo pipefail`` → (("errexit", True), ("pipefail", True))."""
    out: list[tuple[str, bool]] = []
    k = 0
    while k < len(args):
        word = args[k]
        k += 1
        if len(word) < 2 or word[0] not in "-+" or word == "--":
            continue
        on = word[0] == "-"
        if "e" in word[1:]:
            out.append(("errexit", on))
        if "o" in word[1:] and k < len(args):
            name = args[k]
            k += 1
            if name in {"errexit", "pipefail"}:
                out.append((name, on))
    return tuple(out)


def _shell_options(args: list[str]) -> tuple[tuple[str, bool], ...]:
    """The options of ``bash -e -o pipefail -c SCRIPT`` given before the script."""
    opts: list[str] = []
    for word in args:
        if word.startswith("-") and not word.startswith("--") and "c" in word[1:]:
            opts.append(word.replace("c", ""))
            break
        opts.append(word)
    return _set_options([o for o in opts if o not in {"-", "+"}])


def _check_kinds(simple: SimpleCommand) -> tuple[str, ...]:
    """The check kinds of one simple command, as :func:`earnest.effects.shell.analyze_shell`
    judges each part of a line (the one judgement of what a command is)."""
    return tuple(
        dict.fromkeys(
            e.kind for e in part_effects(simple) if e.effect_class is EffectClass.VERIFIED_CHECK
        )
    )


def _read(command: str, depth: int, top: str | None, leaves_out: list[_Leaf]) -> _Reading:
    script = lex_script(command)
    leaves: list[_Leaf] = []
    for simple in script.commands:
        leaves.append(_leaf(simple, depth, top, leaves_out))
    subs = [_read(body, depth + 1, None, leaves_out) for body in script.substitutions]
    return _Reading(script.tree, leaves, subs)


def _leaf(simple: SimpleCommand, depth: int, top: str | None, leaves_out: list[_Leaf]) -> _Leaf:
    seg = simple.text
    here = top if top is not None else seg
    words = strip_wrappers(list(simple.words))
    texts = [w.text for w in words]
    head = normalize_head(texts[0]) if texts else ""
    leaf = _Leaf(seg, here, head, ())
    if not texts:
        leaf.fixed = 0  # assignments or redirections only
    elif head in _SHELLS or head == "eval":
        script = " ".join(texts[1:]) if head == "eval" else inline_script(texts[1:])
        if script is not None and depth < MAX_NESTED:
            leaf.inner = _read(script, depth + 1, here, leaves_out)
            leaf.shell_opts = () if head == "eval" else _shell_options(texts[1:])
            return leaf  # transparent: its commands are the inner script's
    if head == "exit":
        code = texts[1] if len(texts) > 1 else ""
        leaf.exit_code = int(code) % 256 if code.isdigit() else -1
    elif head == "set":
        leaf.sets = _set_options(texts[1:])
        leaf.fixed = 0
    elif head == "false":
        leaf.fixed = 1
    elif head in _ZERO or (texts and head in V.SKIP_PARTS):
        leaf.fixed = 0
    if texts and head not in {"exit", "set"}:
        leaf.kinds = _check_kinds(simple)
        # find's status is not that of what its -exec ran
        leaf.opaque = head == "find" and bool(leaf.kinds)
    leaf.index = len(leaves_out)
    leaves_out.append(leaf)
    return leaf


@functools.lru_cache(maxsize=512)
def _reading(command: str) -> tuple[_Reading, tuple[_Leaf, ...]]:
    leaves: list[_Leaf] = []
    reading = _read(command, 0, None, leaves)
    return reading, tuple(leaves)


# --------------------------------------------------------------------------------------------
# Running a line in one world


class _World:
    """One assignment of statuses to the free commands; records what ran with what status."""

    def __init__(self, status: dict[int, int], opaque_groups: dict[int, int]) -> None:
        self.status = status
        self.groups = opaque_groups
        self.seen: dict[int, int | None] = {}

    def leaf(self, leaf: _Leaf, env: dict[str, bool], record: bool) -> tuple[int, bool]:
        if leaf.inner is not None:
            inner_env = {"errexit": False, "pipefail": False, "ignore": False}
            inner_env.update(dict(leaf.shell_opts))
            status, _ = self.group(leaf.inner.tree, leaf.inner, inner_env, record)
            return status, False
        if leaf.exit_code is not None:
            code = env.get("last", 0) if leaf.exit_code < 0 else leaf.exit_code
            return int(code), True
        for name, on in leaf.sets:
            env[name] = on
        status = leaf.fixed if leaf.fixed is not None else self.status.get(leaf.index, 0)
        if record:
            self.seen[leaf.index] = status
        return status, False

    def group(
        self, group: Group, reading: _Reading, env: dict[str, bool], record: bool
    ) -> tuple[int, bool]:
        if group.opaque:
            return self.groups.get(id(group), 0), False
        status = 0
        for item in group.items:
            if item.background:
                self.and_or(item.pipelines, item.ops, reading, dict(env), False)
                status = 0
                continue
            status, exited, eligible = self.and_or(item.pipelines, item.ops, reading, env, record)
            env["last"] = bool(status)
            if exited:
                return status, True
            if status and eligible and env.get("errexit") and not env.get("ignore"):
                return status, True
        return status, False

    def and_or(
        self,
        pipelines: tuple[Pipeline, ...],
        ops: tuple[str, ...],
        reading: _Reading,
        env: dict[str, bool],
        record: bool,
    ) -> tuple[int, bool, bool]:
        last = len(pipelines) - 1
        ran = 0
        status, exited = self.pipeline(pipelines[0], reading, env, record, ran != last)
        if exited:
            return status, True, False
        for k, op in enumerate(ops[:last], start=1):
            if (op == "&&") == (status == 0):
                ran = k
                status, exited = self.pipeline(pipelines[k], reading, env, record, k != last)
                if exited:
                    return status, True, False
        return status, False, ran == last and not pipelines[ran].negated

    def pipeline(
        self, pipe: Pipeline, reading: _Reading, env: dict[str, bool], record: bool, guarded: bool
    ) -> tuple[int, bool]:
        ignore = env.get("ignore", False) or guarded or pipe.negated
        statuses: list[int] = []
        single = len(pipe.elements) == 1
        for element in pipe.elements:
            here = env if single else dict(env)  # each part of a pipeline is a subshell
            saved = here.get("ignore", False)
            here["ignore"] = ignore
            if isinstance(element, int):
                status, exited = self.leaf(reading.leaves[element], here, record)
            else:
                inner = dict(here) if element.subshell else here
                status, exited = self.group(element, reading, inner, record)
                exited = exited and not element.subshell
            here["ignore"] = saved
            statuses.append(status)
            if exited and single:
                return status, True
        status = statuses[-1]
        if env.get("pipefail"):
            status = next((s for s in reversed(statuses) if s), 0)
        if pipe.negated:
            status = 0 if status else 1
        return status, False


def _reads_status(leaf: _Leaf) -> bool:
    """Whether a command can make an earlier status matter (errexit, pipefail, ``exit``)."""
    return bool(leaf.sets or leaf.shell_opts or leaf.exit_code == -1)


def _unread(reading: _Reading) -> set[int]:
    """Commands whose status nothing reads when no errexit, pipefail or bare ``exit`` is in the
    line: a pipeline's parts but the last, a list's lone commands but the last."""
    out: set[int] = set()

    def walk(group: Group) -> None:
        items = group.items
        for k, item in enumerate(items):
            for pipe in item.pipelines:
                for element in pipe.elements[:-1]:
                    if isinstance(element, int):
                        out.add(element)
                for element in pipe.elements:
                    if isinstance(element, Group) and not element.opaque:
                        walk(element)
            lone = len(item.pipelines) == 1 and len(item.pipelines[0].elements) == 1
            if (k < len(items) - 1 or item.background) and lone:
                element = item.pipelines[0].elements[0]
                if isinstance(element, int):
                    out.add(element)

    walk(reading.tree)
    return {reading.leaves[k].index for k in out if reading.leaves[k].inner is None}


def _opaque_groups(group: Group, out: list[Group]) -> None:
    for item in group.items:
        for pipe in item.pipelines:
            for element in pipe.elements:
                if isinstance(element, Group):
                    if element.opaque:
                        out.append(element)
                    else:
                        _opaque_groups(element, out)


def _runnable(reading: _Reading, out: list[_Leaf], groups: list[Group]) -> None:
    """The leaves a world can run (outside opaque groups), and the opaque groups."""
    if reading.tree.opaque:
        groups.append(reading.tree)
        return
    inside: set[int] = set()
    mine: list[Group] = []
    _opaque_groups(reading.tree, mine)
    for group in mine:
        _indexes(group, inside)
    groups.extend(mine)
    for k, leaf in enumerate(reading.leaves):
        if k in inside:
            continue
        if leaf.inner is not None:
            _runnable(leaf.inner, out, groups)
        else:
            out.append(leaf)


def _indexes(group: Group, out: set[int]) -> None:
    for item in group.items:
        for pipe in item.pipelines:
            for element in pipe.elements:
                if isinstance(element, int):
                    out.add(element)
                else:
                    _indexes(element, out)


# --------------------------------------------------------------------------------------------
# Summaries to commands


def _compatible(summary: RunSummary, leaf: _Leaf) -> bool:
    if summary.only_tools:
        return leaf.head in summary.tools
    if not leaf.kinds:
        return False
    wanted = _TEST_KINDS if summary.kind == "test" else _OTHER_KINDS
    return any(k in wanted for k in leaf.kinds)


def _attribute(
    summaries: tuple[RunSummary, ...], leaves: tuple[_Leaf, ...]
) -> dict[int, list[RunSummary]]:
    """Each summary to the command that printed it: the last compatible one, preferring one
    whose command word prints it (``pytest`` for pytest's summary)."""
    given: dict[int, list[RunSummary]] = {}
    for summary in summaries:
        candidates = [leaf for leaf in leaves if _compatible(summary, leaf)]
        named = [leaf for leaf in candidates if leaf.head in summary.tools]
        chosen = (named or candidates)[-1:] if candidates else []
        for leaf in chosen:
            given.setdefault(leaf.index, []).append(summary)
    return given


def _not_found(output: str, leaves: tuple[_Leaf, ...]) -> dict[int, RunSummary]:
    out: dict[int, RunSummary] = {}
    if "not found" not in output:
        return out
    from earnest.effects.test_counts import RunSummary

    for m in _NOT_FOUND.finditer(output[-8192:]):
        word = normalize_head(m.group(1))
        for leaf in leaves:
            if leaf.head == word:
                out[leaf.index] = RunSummary(
                    word, "", False, "command not found", None, (word,), True
                )
    return out


# --------------------------------------------------------------------------------------------


def command_outcomes(
    command: str, *, ok: bool | None, output: str = ""
) -> tuple[CommandOutcome, ...]:
    """Each simple command of ``command`` with its outcome (see the module docstring).

    ``ok`` is what the tool call reported for the whole line (``None``: not known);
    ``output`` what it printed (its tail is enough: summaries stand at the end).

    Example:
        >>> [(o.head, o.outcome) for o in command_outcomes("pytest || true", ok=True,
        ...     output="== 1 failed, 4 passed in 0.31s ==")]
        [('pytest', 'failure'), ('true', 'success')]
        >>> [(o.head, o.outcome) for o in command_outcomes("cd x && pytest -q", ok=True)]
        [('cd', 'success'), ('pytest', 'success')]
    """
    if not command.strip():
        return ()
    _, leaves = _reading(command)
    if not leaves:
        return ()
    decided: dict[int, RunSummary] = {}
    reads = output and any(leaf.kinds or leaf.head in _MARKER_TOOLS for leaf in leaves)
    summaries: tuple[RunSummary, ...] = ()
    if reads:
        # Here, not at the top: a stop whose commands run no check never compiles the markers.
        from earnest.effects.test_counts import parse_run_summaries

        summaries = parse_run_summaries(output)
    for index, given in _attribute(summaries, leaves).items():
        failing = [s for s in given if not s.passed]
        decided[index] = failing[0] if failing else given[-1]
    if output:
        for index, marker in _not_found(output, leaves).items():
            decided.setdefault(index, marker)
    worlds = _worlds(command, ok, tuple(sorted((k, s.passed) for k, s in decided.items())))
    out: list[CommandOutcome] = []
    for leaf in leaves:
        said = decided.get(leaf.index)
        if said is not None:
            outcome = SUCCESS if said.passed else FAILURE
        elif leaf.opaque:
            outcome = UNKNOWN
        else:
            outcome = worlds.get(leaf.index, UNKNOWN)
        out.append(CommandOutcome(leaf.segment, leaf.top, leaf.head, leaf.kinds, outcome, said))
    return tuple(out)


@functools.lru_cache(maxsize=1024)
def _worlds(command: str, ok: bool | None, decided: tuple[tuple[int, bool], ...]) -> dict[int, str]:
    """Outcomes the shell's semantics fix, given the line's status and the decided commands."""
    reading, _ = _reading(command)
    runnable: list[_Leaf] = []
    groups: list[Group] = []
    _runnable(reading, runnable, groups)
    fixed = {k: (0 if passed else 1) for k, passed in decided}
    unread = _unread(reading) if not any(_reads_status(leaf) for leaf in runnable) else set()
    free = [
        leaf.index
        for leaf in runnable
        if leaf.fixed is None
        and leaf.exit_code is None
        and leaf.index not in fixed
        and leaf.index not in unread
    ]
    group_ids = [id(g) for g in groups]
    n = len(free) + len(group_ids)
    if n > MAX_FREE:
        return {}
    for must_run in (True, False):
        out = _consistent(reading, runnable, free, group_ids, fixed, unread, ok, must_run)
        if out is not None:
            return out
    return {}


def _consistent(
    reading: _Reading,
    runnable: list[_Leaf],
    free: list[int],
    group_ids: list[int],
    fixed: dict[int, int],
    unread: set[int],
    ok: bool | None,
    must_run: bool,
) -> dict[int, str] | None:
    """Outcomes over the worlds that give status ``ok`` (and, with ``must_run``, run every
    command whose printed summary decided it); ``None`` when no world does."""
    n = len(free) + len(group_ids)
    runnable_ids = {leaf.index for leaf in runnable}
    required = [k for k in fixed if k in runnable_ids]
    seen: dict[int, set[int | None]] = {}
    consistent = 0
    for bits in range(1 << n):
        status = dict(fixed)
        for k, index in enumerate(free):
            status[index] = (bits >> k) & 1
        opaque = {gid: (bits >> (len(free) + k)) & 1 for k, gid in enumerate(group_ids)}
        world = _World(status, opaque)
        env = {"errexit": False, "pipefail": False, "ignore": False}
        result, _ = world.group(reading.tree, reading, env, True)
        if ok is not None and (result == 0) != ok:
            continue
        if must_run and any(world.seen.get(k) is None for k in required):
            continue
        consistent += 1
        for leaf in runnable:
            seen.setdefault(leaf.index, set()).add(world.seen.get(leaf.index))
    if not consistent:
        return None
    out: dict[int, str] = {}
    for index, values in seen.items():
        if index in unread and index not in fixed and values != {None}:
            values = values | {1}  # unread (its status held at 0): ran, came out unknown

        if values == {0}:
            out[index] = SUCCESS
        elif None not in values and 0 not in values:
            out[index] = FAILURE
        else:
            out[index] = UNKNOWN
    return out


__all__ = [
    "FAILURE",
    "MAX_FREE",
    "OUTCOMES",
    "SUCCESS",
    "UNKNOWN",
    "CommandOutcome",
    "command_outcomes",
]

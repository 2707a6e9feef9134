"""Split a shell command into simple commands without running anything.

A small, total POSIX-shell lexer: quotes (``'...'``, ``"..."``, ``$'...'``), backslash
escapes, command substitutions (``$(...)``, backticks, ``<(...)``), ``${...}``, comments,
heredocs (their bodies are data and are skipped) and the control operators ``&& || ; | |& &``
and newlines. It never raises: an unclosed quote runs to the end of the text, and nesting
deeper than :data:`MAX_NESTING` is scanned flat instead of recursing.

Each word carries ``static``: False when its value depends on expansion (``$VAR``, ``$(...)``,
backticks, unquoted globs, ``~``, braces), so callers never treat ``> $OUT`` as a file name.

Besides the flat list, :attr:`Script.tree` is the command line's grammar as the shell reads it
(for :mod:`earnest.effects.shell_outcomes`): a :class:`Group` (the line, a subshell ``( )`` or
a brace group ``{ }``) holds and-or lists (:class:`AndOr`: pipelines joined by ``&&`` /
``||``, maybe sent to the background with ``&``), each :class:`Pipeline` (maybe negated with
``!``) holds simple commands (their index in :attr:`Script.commands`) and groups. A group whose
commands use ``if``, ``while``, ``for``, ``case``, a function definition or an unbalanced
``)`` is ``opaque``: its structure is not modelled.

Example:
    >>> script = lex_script("cd src && FOO=1 pytest -q > log.txt 2>&1")
    >>> [[w.text for w in c.words] for c in script.commands]
    [['cd', 'src'], ['FOO=1', 'pytest', '-q']]
    >>> [(r.op, r.fd, r.target.text) for r in script.commands[1].redirects]
    [('>', '', 'log.txt'), ('>&', '2', '1')]
    >>> tree = lex_script("pytest -q | tail -5 || true").tree
    >>> [(p.elements, p.negated) for p in tree.items[0].pipelines], tree.items[0].ops
    ([((0, 1), False), ((2,), False)], ('||',))
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_NESTING = 24
"""Command substitutions nested deeper than this are scanned without recursion."""

_OPERATOR = re.compile(r"&>>|<<<|<<-|&&|\|\||;;|\|&|&>|>>|>\||>&|<<|<>|<&|[;|&()<>]")
_OP_CHARS = frozenset(";|&()<>")
_PLAIN = re.compile(r"[^\s;&|<>()'\"\\$`*?\[\]{}~]+")
REDIRECT_OPS = frozenset({">", ">>", ">|", "&>", "&>>", ">&", "<", "<<", "<<-", "<<<", "<>", "<&"})
_WORD_BREAK = frozenset(" \t\r\n;&|<>()")
_GLOB = frozenset("*?[")


@dataclass(frozen=True, slots=True)
class Word:
    """One shell word: its value with quotes removed, and whether that value is literal."""

    text: str
    static: bool
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Redirect:
    """A redirection: operator, explicit file descriptor (``"2"`` in ``2>``), target word."""

    op: str
    fd: str
    target: Word | None


@dataclass(frozen=True, slots=True)
class SimpleCommand:
    """Words and redirections between two control operators.

    ``sep`` is the operator that ended it (``""`` at the end of the text); ``depth`` is the
    subshell nesting level (``(cd x && make)`` runs at depth 1); ``text`` is the source span.
    """

    words: tuple[Word, ...]
    redirects: tuple[Redirect, ...]
    sep: str
    depth: int
    text: str


@dataclass(frozen=True, slots=True)
class Pipeline:
    """Commands joined by ``|`` / ``|&``: indexes into :attr:`Script.commands`, or groups."""

    elements: tuple[int | Group, ...]
    negated: bool = False


@dataclass(frozen=True, slots=True)
class AndOr:
    """Pipelines joined by ``&&`` / ``||`` (``ops[i]`` stands between pipeline i and i+1)."""

    pipelines: tuple[Pipeline, ...]
    ops: tuple[str, ...]
    background: bool = False


@dataclass(frozen=True, slots=True)
class Group:
    """A list of and-or lists run one after the other: the whole line, ``( )`` or ``{ }``."""

    items: tuple[AndOr, ...]
    subshell: bool = False
    opaque: bool = False


@dataclass(frozen=True, slots=True)
class Script:
    """A lexed command: its simple commands, the bodies of its command substitutions, and the
    grammar that joins the commands (:class:`Group`)."""

    commands: tuple[SimpleCommand, ...]
    substitutions: tuple[str, ...]
    tree: Group = Group(())


@dataclass(frozen=True, slots=True)
class _Op:
    """A control operator or redirection token: its text, explicit fd, and where it stands.

    (A docstring of its own: without one, ``dataclass`` imports ``inspect`` on every stop.)
    """

    op: str
    fd: str
    start: int
    end: int


_Token = Word | _Op


class _Lexer:
    def __init__(self, src: str) -> None:
        self.s = src
        self.n = len(src)
        self.i = 0
        self.nest = 0
        self.subs: list[str] = []
        self.heredocs: list[tuple[str, bool]] = []

    # -- top level -------------------------------------------------------------------------

    def tokens(self, *, stop_at_paren: bool) -> list[_Token]:
        out: list[_Token] = []
        depth = 0
        s = self.s
        while self.i < self.n:
            c = s[self.i]
            if c in " \t\r":
                self.i += 1
                continue
            if c == "\\" and s.startswith("\n", self.i + 1):
                self.i += 2
                continue
            if c == "#":
                nl = s.find("\n", self.i)
                self.i = self.n if nl < 0 else nl
                continue
            if c == "\n":
                out.append(_Op("\n", "", self.i, self.i + 1))
                self.i += 1
                self._skip_heredoc_bodies()
                continue
            if c in "<>" and s.startswith("(", self.i + 1):
                start = self.i
                self.i += 2
                self._command_substitution(start + 2)
                out.append(Word("", False, start, self.i))
                continue
            fd = ""
            if c.isdigit():
                j = self.i
                while j < self.n and s[j].isdigit():
                    j += 1
                if j < self.n and s[j] in "<>":
                    fd = s[self.i : j]
                    op_start = self.i
                    self.i = j
                    op = self._operator() or s[j]
                    self.i += len(op)
                    out.append(_Op(op, fd, op_start, self.i))
                    continue
            op = self._operator()
            if op:
                if op == "(":
                    depth += 1
                elif op == ")":
                    if stop_at_paren and depth == 0:
                        self.i += 1
                        return out
                    depth = max(0, depth - 1)
                start = self.i
                self.i += len(op)
                out.append(_Op(op, "", start, self.i))
                if op in ("<<", "<<-"):
                    self._skip_blanks()
                    if self.i < self.n and s[self.i] not in _WORD_BREAK:
                        delim = self._word()
                        out.append(delim)
                        self.heredocs.append((delim.text, op == "<<-"))
                continue
            out.append(self._word())
        return out

    def _operator(self) -> str:
        if self.s[self.i] not in _OP_CHARS:
            return ""
        m = _OPERATOR.match(self.s, self.i)
        return m.group(0) if m else ""

    def _skip_blanks(self) -> None:
        while self.i < self.n and self.s[self.i] in " \t":
            self.i += 1

    def _skip_heredoc_bodies(self) -> None:
        # Heredoc bodies start on the line after their operator and are data, not commands.
        while self.heredocs:
            delim, strip_tabs = self.heredocs.pop(0)
            while self.i < self.n:
                nl = self.s.find("\n", self.i)
                end = self.n if nl < 0 else nl
                line = self.s[self.i : end]
                self.i = end + 1 if nl >= 0 else self.n
                if (line.lstrip("\t") if strip_tabs else line) == delim:
                    break

    # -- words -----------------------------------------------------------------------------

    def _word(self) -> Word:
        s = self.s
        start = self.i
        parts: list[str] = []
        static = True
        if s[self.i] == "~":
            static = False
        while self.i < self.n:
            plain = _PLAIN.match(s, self.i)
            if plain is not None:
                parts.append(plain.group(0))
                self.i = plain.end()
                continue
            c = s[self.i]
            if c in _WORD_BREAK:
                break
            if c == "'":
                end = s.find("'", self.i + 1)
                end = self.n if end < 0 else end
                parts.append(s[self.i + 1 : end])
                self.i = end + 1
            elif c == '"':
                static = self._double_quoted(parts) and static
            elif c == "\\":
                if self.i + 1 < self.n:
                    parts.append(s[self.i + 1])
                self.i += 2
            elif c == "$":
                static = False
                self._dollar(parts)
            elif c == "`":
                static = False
                self._backticks()
            else:
                if c in _GLOB or c in "{}":
                    static = False
                parts.append(c)
                self.i += 1
        self.i = min(self.i, self.n)
        return Word("".join(parts), static, start, self.i)

    def _double_quoted(self, parts: list[str]) -> bool:
        s = self.s
        self.i += 1
        static = True
        while self.i < self.n:
            c = s[self.i]
            if c == '"':
                self.i += 1
                return static
            if c == "\\" and self.i + 1 < self.n and s[self.i + 1] in '"\\$`\n':
                if s[self.i + 1] != "\n":
                    parts.append(s[self.i + 1])
                self.i += 2
            elif c == "$":
                static = False
                self._dollar(parts)
            elif c == "`":
                static = False
                self._backticks()
            else:
                parts.append(c)
                self.i += 1
        return static

    def _dollar(self, parts: list[str]) -> None:
        s = self.s
        nxt = s[self.i + 1] if self.i + 1 < self.n else ""
        if nxt == "(":
            self.i += 2
            self._command_substitution(self.i)
        elif nxt == "{":
            depth = 0
            while self.i < self.n:
                if s[self.i] == "{":
                    depth += 1
                elif s[self.i] == "}":
                    depth -= 1
                    if depth == 0:
                        self.i += 1
                        break
                self.i += 1
        elif nxt == "'":
            # ANSI-C quoting $'...': literal text for our purposes.
            end = self.i + 2
            while end < self.n and s[end] != "'":
                end += 2 if s[end] == "\\" else 1
            parts.append(s[self.i + 2 : min(end, self.n)])
            self.i = min(end + 1, self.n)
        else:
            self.i += 1
            while self.i < self.n and (s[self.i].isalnum() or s[self.i] == "_"):
                self.i += 1
            if self.i < self.n and s[self.i] in "@*#?$!-" and s[self.i - 1] == "$":
                self.i += 1

    def _backticks(self) -> None:
        s = self.s
        start = self.i + 1
        j = start
        while j < self.n and s[j] != "`":
            j += 2 if s[j] == "\\" else 1
        end = min(j, self.n)
        self.subs.append(s[start:end].replace("\\`", "`"))
        self.i = min(end + 1, self.n)

    def _command_substitution(self, body_start: int) -> None:
        """Consume up to the ``)`` that closes a substitution opened just before ``body_start``."""
        if self.nest >= MAX_NESTING:
            depth = 1
            while self.i < self.n and depth:
                depth += {"(": 1, ")": -1}.get(self.s[self.i], 0)
                self.i += 1
        else:
            self.nest += 1
            self.tokens(stop_at_paren=True)
            self.nest -= 1
        end = self.i - 1 if self.i <= self.n and self.s[self.i - 1 : self.i] == ")" else self.i
        self.subs.append(self.s[body_start:end])


_SEPARATORS = frozenset({"&&", "||", ";", ";;", "|", "|&", "&", "\n"})
CONTROL_WORDS = frozenset(
    {"if", "then", "else", "elif", "fi", "while", "until", "do", "done", "for", "case", "esac",
     "select", "function", "coproc"}
)  # fmt: skip
"""Words that open or continue a compound command: a group holding one is ``opaque``."""


class _Frame:
    """A group being built: its finished and-or lists, and the one in progress."""

    def __init__(self, subshell: bool, brace: bool) -> None:
        self.subshell = subshell
        self.brace = brace
        self.opaque = False
        self.items: list[AndOr] = []
        self.pipelines: list[Pipeline] = []
        self.ops: list[str] = []
        self.elements: list[int | Group] = []
        self.negated = False

    def end_pipeline(self) -> None:
        if self.elements:
            self.pipelines.append(Pipeline(tuple(self.elements), self.negated))
        elif self.ops:
            self.ops.pop()  # "a && ;": nothing to join
        self.elements = []
        self.negated = False

    def end_list(self, background: bool) -> None:
        self.end_pipeline()
        if self.pipelines:
            ops = tuple(self.ops[: len(self.pipelines) - 1])
            self.items.append(AndOr(tuple(self.pipelines), ops, background))
        self.pipelines = []
        self.ops = []

    def close(self) -> Group:
        self.end_list(False)
        return Group(tuple(self.items), self.subshell, self.opaque)


def lex_script(src: str) -> Script:
    """Lex ``src`` into simple commands (never raises, never runs anything)."""
    lexer = _Lexer(src)
    tokens = lexer.tokens(stop_at_paren=False)
    commands: list[SimpleCommand] = []
    words: list[Word] = []
    redirects: list[Redirect] = []
    depth = 0
    span: list[int] = []
    frames = [_Frame(False, False)]
    after_group = False

    def flush(sep: str) -> None:
        nonlocal after_group
        if words or redirects:
            text = src[span[0] : span[1]] if span else ""
            commands.append(SimpleCommand(tuple(words), tuple(redirects), sep, depth, text))
            if words or not after_group:  # "( ... ) > log": the redirect is the group's
                frames[-1].elements.append(len(commands) - 1)
        after_group = False
        words.clear()
        redirects.clear()
        span.clear()

    def extend(start: int, end: int) -> None:
        if span:
            span[1] = end
        else:
            span.extend((start, end))

    def close_group() -> None:
        nonlocal after_group
        group = frames.pop().close()
        frames[-1].elements.append(group)
        after_group = True

    k = 0
    while k < len(tokens):
        tok = tokens[k]
        k += 1
        if isinstance(tok, Word):
            at_start = not words and not redirects
            frame = frames[-1]
            if at_start and tok.text == "{" and not tok.static and tok.end - tok.start == 1:
                frames.append(_Frame(False, True))
                continue
            if at_start and tok.text == "}" and frame.brace and tok.end - tok.start == 1:
                close_group()
                continue
            if at_start and not frame.elements and tok.text == "!":
                frame.negated = not frame.negated
            elif at_start and tok.text in CONTROL_WORDS:
                frame.opaque = True
            after_group = False
            words.append(tok)
            extend(tok.start, tok.end)
            continue
        if tok.op in REDIRECT_OPS:
            target: Word | None = None
            if k < len(tokens) and isinstance(tokens[k], Word):
                target = tokens[k]  # type: ignore[assignment]
                k += 1
            redirects.append(Redirect(tok.op, tok.fd, target))
            extend(tok.start, target.end if target else tok.end)
        elif tok.op == "(":
            if k < len(tokens) and isinstance(tokens[k], _Op) and tokens[k].op == ")":  # type: ignore[union-attr]
                frames[-1].opaque = True  # "name() { ...; }": a function definition
            flush(";")
            depth += 1
            frames.append(_Frame(True, False))
        elif tok.op == ")":
            flush(";")
            depth = max(0, depth - 1)
            if len(frames) > 1 and frames[-1].subshell:
                close_group()
            else:
                frames[-1].opaque = True  # a case pattern, or an unbalanced ")"
        else:
            flush(tok.op)
            frame = frames[-1]
            if tok.op in ("|", "|&"):
                continue
            if tok.op in ("&&", "||"):
                frame.end_pipeline()
                frame.ops.append(tok.op)
            else:
                frame.end_list(tok.op == "&")
    flush("")
    while len(frames) > 1:  # unclosed groups: closed at the end of the text
        frames[-1].opaque = True
        close_group()
    return Script(tuple(commands), tuple(lexer.subs), frames[0].close())


__all__ = [
    "CONTROL_WORDS",
    "MAX_NESTING",
    "REDIRECT_OPS",
    "AndOr",
    "Group",
    "Pipeline",
    "Redirect",
    "Script",
    "SimpleCommand",
    "Word",
    "lex_script",
]

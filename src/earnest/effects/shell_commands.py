"""Judge one simple command by its command word: the per-command rules of the shell classifier.

:meth:`Judge.judge` takes a command word (already normalised by :func:`normalize_head`, with
wrappers stripped by :func:`strip_wrappers`) and its arguments, and returns its effects as
``(kind, artifact paths, detail)`` triples, ``[]`` for a read-only command, or ``None`` when the
command is unknown. Recursion (``bash -c``, ``eval``, ``xargs``, ``find -exec``) goes back
through the :class:`Nester` that owns the judge. The word lists and sub-command tables live in
:mod:`earnest.effects.shell_vocab`.

Example:
    >>> from earnest.effects.shell_lexer import lex_script
    >>> words = list(lex_script("git rm -r old_dir").commands[0].words)
    >>> Judge(None).judge(normalize_head(words[0].text), words[1:])
    [('delete', ('old_dir',), 'git rm')]
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Sequence

from earnest.effects import shell_vocab as V
from earnest.effects.shell_lexer import Word
from earnest.lazyre import LazyPattern

CHECK_KINDS = V.words("test lint typecheck build check")
"""Kinds that are verified checks; every other kind of effect is a workspace delta."""
DELTA_KINDS = V.words("write edit delete format install vcs deploy shell")


TYPE_CHECKING = False  # not typing's: importing typing costs a stop ~3 ms
if TYPE_CHECKING:
    from typing import Protocol
else:
    Protocol = object  # the class below is a Protocol for the type checker, documentation here


class Nester(Protocol):
    """What a judge needs from its analyzer to follow ``bash -c`` and friends."""

    unknown: list[str]

    @property
    def policy(self) -> str:
        """``"delta"`` or ``"ignore"``: what an unknown nested command counts as."""
        ...

    def nested(self, script: str) -> tuple[list[tuple[str, tuple[str, ...], str]], list[str]]:
        """Effects and unknown command words of a nested script."""
        ...


# --------------------------------------------------------------------------------------------
# Names

_SCRIPT_SPLIT = re.compile(r"[:._\-/ ]+")
_SCRIPT_FILE = re.compile(
    r"^(?:run[_-]?)?(tests?|check|checks|lint|ci|verify|build|typecheck)(?:[_-]\w+)?(?:\.\w+)?$"
    r"|^test_\w+\.py$|^\w+_test\.(?:py|sh)$",
    re.IGNORECASE,
)
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=")
_VERSIONED = re.compile(r"^(python|pip|pypy|ruby|perl|php|node)[\d.]*$")


def script_kind(name: str) -> str | None:
    """The kind of a package-manager script or build target, by its name; None if unknown.

    >>> [script_kind(n) for n in ("test:unit", "lint:fix", "format:check", "type-check", "dev", "x")]
    ['test', 'format', 'lint', 'typecheck', 'read', None]
    """
    parts = [w for w in _SCRIPT_SPLIT.split(name.lower()) if w]
    if not parts:
        return None
    bag = set(parts)
    if bag & V.FIX_WORDS:
        return "format"
    if bag & V.FORMAT_WORDS:
        return "lint" if bag & V.CHECK_WORDS else "format"
    if parts[0] in {"type", "types"} and "check" in bag:
        return "typecheck"
    for vocabulary, kind in V.SCRIPT_RULES:
        if parts[0] in vocabulary:
            return kind
    for vocabulary, kind in V.SCRIPT_RULES:
        if bag & vocabulary:
            return kind
    return None


def script_file_kind(path: str) -> str | None:
    """``./run_tests.sh``, ``scripts/lint.sh``, ``test_foo.py``: judged by the file name."""
    m = _SCRIPT_FILE.match(posixpath.basename(path))
    if not m:
        return None
    word = (m.group(1) or "test").lower()
    return {"tests": "test", "checks": "check", "ci": "check", "verify": "check"}.get(word, word)


def normalize_head(word: str) -> str:
    """The command name as judged: basename, version suffixes and wrapper scripts folded.

    >>> [normalize_head(w) for w in ("/usr/bin/python3.11", "./gradlew", ".venv/bin/pytest", "pip3")]
    ['python', 'gradle', 'pytest', 'pip']
    >>> normalize_head("create-next-app@latest")
    'create-next-app'
    """
    base = posixpath.basename(word.rstrip("/")) or word
    if base.lower().endswith(".exe"):
        base = base[:-4]
    if "@" in base[1:]:
        base = base[: base.rindex("@")]  # npx create-next-app@latest
    m = _VERSIONED.match(base)
    if m:
        return V.HEAD_ALIASES.get(m.group(1), m.group(1))
    return V.HEAD_ALIASES.get(base, base)


# --------------------------------------------------------------------------------------------
# Small helpers over words

Effects = list[tuple[str, tuple[str, ...], str]]
"""(kind, artifact paths, detail) per effect of one part; ``None`` instead means unknown."""
READ: Effects = []


def _opts(text: str) -> frozenset[str]:
    return frozenset(text.split())


def positional(args: Sequence[Word], with_value: frozenset[str] = frozenset()) -> list[Word]:
    """Arguments that are not options (``--`` ends options; ``with_value`` options eat one)."""
    out: list[Word] = []
    skip = ended = False
    for w in args:
        t = w.text
        if skip:
            skip = False
        elif ended or not t.startswith("-") or t == "-":
            out.append(w)
        elif t == "--":
            ended = True
        elif t in with_value:
            skip = True
    return out


def static_paths(ws: Sequence[Word]) -> tuple[str, ...]:
    """The literal, non-sink words of ``ws`` (paths we can check later)."""
    return tuple(w.text for w in ws if w.static and w.text and w.text not in V.NULL_SINKS)


def has_flag(args: Sequence[Word], flags: frozenset[str]) -> bool:
    """Whether any of ``flags`` is given, also as ``--opt=value`` or bundled (``-rf``)."""
    for w in args:
        t = w.text
        if t in flags or t.split("=", 1)[0] in flags:
            return True
        bundled = len(t) > 2 and t[0] == "-" and t[1] != "-" and t.isascii()
        if bundled and any(f"-{ch}" in flags for ch in t[1:]):
            return True
    return False


def _texts(args: Sequence[Word]) -> list[str]:
    return [w.text for w in args]


def _delta(kind: str, paths: tuple[str, ...] = (), detail: str = "") -> Effects:
    return [(kind, paths, detail)]


def _check(kind: str, detail: str = "") -> Effects:
    return [(kind, (), detail)]


def _of_kind(kind: str | None, detail: str = "") -> Effects | None:
    if kind is None or kind == "unknown":
        return None
    if kind == "read":
        return READ
    return _check(kind, detail) if kind in CHECK_KINDS else _delta(kind, (), detail)


def _value_after(args: Sequence[Word], names: frozenset[str]) -> Word | None:
    for k, w in enumerate(args):
        if w.text in names and k + 1 < len(args):
            return args[k + 1]
        name, eq, value = w.text.partition("=")
        if eq and name in names:
            return Word(value, w.static, w.start, w.end)
    return None


# --------------------------------------------------------------------------------------------
# Judging one command


Special = Callable[["Judge", str, list[Word]], "Effects | None"]


class Judge:
    """Judges one simple command (wrappers stripped); recursion goes back to the nester."""

    def __init__(self, nester: Nester | None) -> None:
        self.nester = nester

    def words(self, ws: Sequence[Word]) -> Effects | None:
        """Effects of a command given as words (wrappers are stripped first)."""
        inner = strip_wrappers(list(ws))
        return self.judge(normalize_head(inner[0].text), inner[1:]) if inner else READ

    def script(self, text: str) -> Effects | None:
        """Effects of a whole script (``bash -c SCRIPT``), judged like a top-level command."""
        if self.nester is None:
            return None
        effects, unknown = self.nester.nested(text)
        self.nester.unknown.extend(unknown)
        if unknown and self.nester.policy == "delta" and not effects:
            return _delta("shell", (), f"unknown-command: {unknown[0]}")
        return effects

    def judge(self, head: str, args: list[Word]) -> Effects | None:
        texts = _texts(args)
        if texts and all(
            t in {"--version", "--help", "-h", "-V", "version", "help"} for t in texts
        ):
            return READ
        special = SPECIAL.get(head)
        if special is not None:
            return special(self, head, args)
        if head in V.READ_ONLY:
            return READ
        if head in V.HEAD_KINDS:
            return _of_kind(V.HEAD_KINDS[head], head)
        if _CMDLET.match(head):
            return _cmdlet(head, args)
        if head in V.GETTER_TOOLS:
            getters = ("-g", "--get", "-get", "-list", "--list", "-l")
            options = [t for t in texts if t.startswith("-")]
            if options and all(t.lower().startswith(getters) for t in options):
                return READ
            return _delta("deploy", (), head)
        if head.startswith("create-") and len(head) > 7:
            # npm init / npx scaffolders: create-next-app NAME, create-vite NAME
            return _delta("write", static_paths(positional(args)[:1]), head)
        if head in V.TEST_HEADS:
            return _check("test")
        if head in V.TYPECHECK_HEADS:
            if head == "tsc" and "--init" in texts:
                return _delta("write", ("tsconfig.json",), "tsc --init")
            return _check("typecheck")
        if head in V.LINT_HEADS:
            fix = V.FIX_FLAGS.get(head, frozenset())
            if fix and (has_flag(args, fix) or set(texts) & fix):
                return _check("lint") + _delta("format", (), f"{head} fix")
            return _check("lint")
        if head in V.FORMAT_BY_DEFAULT:
            checks = V.FORMAT_BY_DEFAULT[head]
            return (
                _check("lint") if checks and has_flag(args, checks) else _delta("format", (), head)
            )
        if head in V.FORMAT_WRITE_FLAGS:
            if has_flag(args, V.FORMAT_WRITE_FLAGS[head]):
                return _delta("format", (), head)
            return _check("lint") if has_flag(args, V.FORMAT_CHECK_FLAGS[head]) else READ
        return _of_kind(script_file_kind(head)) if "/" in head or "." in head else None


# -- files -----------------------------------------------------------------------------------

_CMDLET = LazyPattern(r"^[A-Z][a-z]+-[A-Z][A-Za-z]+$")
_CMDLET_READ = V.words(
    "get select where format write test measure sort resolve compare find search show "
    "convertto convertfrom join split start-sleep"
)
_CMDLET_WRITE = {"new": "write", "set": "edit", "add": "edit", "out": "write", "copy": "write",
                 "move": "write", "rename": "write", "remove": "delete", "clear": "edit",
                 "expand": "write", "compress": "write", "install": "install",
                 "uninstall": "install", "update": "install"}  # fmt: skip


def _cmdlet(head: str, args: list[Word]) -> Effects | None:
    """PowerShell cmdlets by their verb: ``Get-ChildItem`` reads, ``Set-Content`` edits."""
    verb, noun = head.lower().split("-", 1)
    if verb in _CMDLET_READ or noun in {"location", "host"} or head.lower() in _CMDLET_READ:
        return READ
    if verb == "out" and noun in {"host", "string", "null", "default"}:
        return READ
    kind = _CMDLET_WRITE.get(verb)
    if kind is None:
        return None
    path = _value_after(args, _opts("-Path -LiteralPath -FilePath -Destination"))
    positional_path = positional(args, _opts("-Value -Encoding -ItemType -Name"))[:1]
    target = [path] if path is not None else positional_path
    return _delta(kind, static_paths(target) if noun in {"item", "content", "file"} else (), head)


def _touch(j: Judge, head: str, args: list[Word]) -> Effects | None:
    return _delta("write", static_paths(positional(args, _opts("-d -t -r --date --reference"))))


def _mkdir(j: Judge, head: str, args: list[Word]) -> Effects | None:
    return _delta("write", static_paths(positional(args, _opts("-m --mode"))))


def _rm(j: Judge, head: str, args: list[Word]) -> Effects | None:
    return _delta("delete", static_paths(positional(args)), head)


def _mv_cp(j: Judge, head: str, args: list[Word]) -> Effects | None:
    target_dir = _value_after(args, _opts("-t --target-directory"))
    pos = positional(args, _opts("-t --target-directory -S --suffix -b"))
    sources, dest = (pos, [target_dir]) if target_dir is not None else (pos[:-1], pos[-1:])
    out = _delta("write", static_paths(dest), head)
    if head in {"mv", "git mv"} and sources:
        out += _delta("delete", static_paths(sources), head)
    return out


def _ln(j: Judge, head: str, args: list[Word]) -> Effects | None:
    pos = positional(args, _opts("-t --target-directory -S --suffix"))
    if len(pos) == 1:
        base = posixpath.basename(pos[0].text.rstrip("/"))
        return _delta("write", (base,) if pos[0].static and base else (), "ln")
    return _delta("write", static_paths(pos[-1:]), "ln")


def _chmod(j: Judge, head: str, args: list[Word]) -> Effects | None:
    pos = positional(args)
    if not any(w.text.startswith("--reference") for w in args):
        pos = pos[1:]  # the mode or owner
    return _delta("edit", static_paths(pos), head)


def _tee(j: Judge, head: str, args: list[Word]) -> Effects | None:
    pos = positional(args)
    if not pos:
        return READ
    kind = "edit" if has_flag(args, _opts("-a --append")) else "write"
    return _delta(kind, static_paths(pos), "tee")


def _truncate(j: Judge, head: str, args: list[Word]) -> Effects | None:
    return _delta("edit", static_paths(positional(args, _opts("-s -r --size --reference"))))


def _sed(j: Judge, head: str, args: list[Word]) -> Effects | None:
    def in_place(t: str) -> bool:
        if t == "--in-place" or t.startswith("--in-place="):
            return True
        return t.startswith("-") and not t.startswith("--") and "i" in t[1:] and t[1] not in "ef"

    if not any(in_place(w.text) for w in args):
        return READ
    # BSD sed: `sed -i '' 's/a/b/' f` gives the suffix as its own (empty) word.
    kept = [w for k, w in enumerate(args) if not (w.text == "" and k and args[k - 1].text == "-i")]
    script_given = any(w.text in {"-e", "-f", "--expression", "--file"} for w in kept)
    pos = positional(kept, _opts("-e -f --expression --file -l --line-length"))
    return _delta("edit", static_paths(pos if script_given else pos[1:]), "sed -i")


def _perl_ruby(j: Judge, head: str, args: list[Word]) -> Effects | None:
    bundles = [w.text for w in args if w.text.startswith("-") and not w.text.startswith("--")]
    if any("i" in b[1:] and not b.startswith("-I") for b in bundles):
        files: list[Word] = []
        skip = False
        for w in args:
            if skip:
                skip = False
            elif w.text.startswith("-"):
                skip = w.text[-1] in "eE" and not w.text.startswith("--")  # -e SCRIPT, -pie SCRIPT
            else:
                files.append(w)
        return _delta("edit", static_paths(files), f"{head} -i")
    if head == "perl" and "-c" in bundles:
        return _check("lint")
    pos = positional(args)
    if any(b[-1] in "eE" for b in bundles) or not pos:
        return None
    return _of_kind(script_file_kind(pos[0].text))


def _awk(j: Judge, head: str, args: list[Word]) -> Effects | None:
    texts = _texts(args)
    for k in range(len(texts) - 1):
        if texts[k] == "-i" and texts[k + 1] == "inplace":
            files = positional(args[k + 2 :], _opts("-v -F -f"))[1:]
            return _delta("edit", static_paths(files), "awk -i inplace")
    return READ


def _sort(j: Judge, head: str, args: list[Word]) -> Effects | None:
    out = _value_after(args, _opts("-o --output"))
    return READ if out is None else _delta("write", static_paths([out]), "sort -o")


def _uniq(j: Judge, head: str, args: list[Word]) -> Effects | None:
    pos = positional(args, _opts("-f -s -w"))
    return _delta("write", static_paths(pos[1:2]), "uniq") if len(pos) >= 2 else READ


def _dd(j: Judge, head: str, args: list[Word]) -> Effects | None:
    for w in args:
        if w.text.startswith("of="):
            target = Word(w.text[3:], w.static, w.start, w.end)
            return _delta("write", static_paths([target]), "dd")
    return READ


def _yq(j: Judge, head: str, args: list[Word]) -> Effects | None:
    if has_flag(args, _opts("-i --inplace")):
        return _delta("edit", static_paths(positional(args)[1:]), "yq -i")
    return READ


def _curl(j: Judge, head: str, args: list[Word]) -> Effects | None:
    for k, w in enumerate(args):
        t = w.text
        short = len(t) > 1 and t[0] == "-" and t[1] != "-"
        if (t in {"-o", "--output"} or (short and t.endswith("o"))) and k + 1 < len(args):
            return _delta("write", static_paths([args[k + 1]]), "curl -o")
        if t in {"-O", "--remote-name", "--remote-name-all"} or (short and "O" in t):
            return _delta("write", (), "curl -O")
    return READ


def _wget(j: Judge, head: str, args: list[Word]) -> Effects | None:
    if "--spider" in _texts(args):
        return READ
    target = _value_after(args, _opts("-O --output-document"))
    if target is not None:
        return READ if target.text == "-" else _delta("write", static_paths([target]), "wget -O")
    return _delta("write", (), "wget")


def _tar(j: Judge, head: str, args: list[Word]) -> Effects | None:
    first = args[0].text if args else ""
    bundle = first.lstrip("-") if first and not first.startswith("--") else ""
    longs = set(_texts(args))
    if "t" in bundle or "--list" in longs:
        return READ
    archive = _value_after(args, _opts("-f --file"))
    if archive is None and "f" in bundle and len(args) > 1:
        archive = args[1]  # tar czf out.tgz dir
    if "x" in bundle or longs & {"--extract", "--get"}:
        return _delta("write", (), "tar extract")
    if set(bundle) & set("cru") or longs & {"--create", "--append", "--update"}:
        return _delta("write", static_paths([archive]) if archive else (), "tar create")
    return None


def _find(j: Judge, head: str, args: list[Word]) -> Effects | None:
    out: Effects = []
    for k, w in enumerate(args):
        t = w.text
        if t == "-delete":
            out += _delta("delete", (), "find -delete")
        elif t in {"-exec", "-execdir", "-ok", "-okdir"}:
            inner: list[Word] = []
            for x in args[k + 1 :]:
                if x.text in {";", "+"}:
                    break
                if x.text != "{}":
                    inner.append(x)
            effects = j.words(inner) if inner else READ
            if effects is None:
                return None
            out += [(kind, (), detail or f"find {t}") for kind, _, detail in effects]
        elif t in {"-fprint", "-fprint0", "-fprintf", "-fls"} and k + 1 < len(args):
            out += _delta("write", static_paths([args[k + 1]]), f"find {t}")
    return out


def _xargs(j: Judge, head: str, args: list[Word]) -> Effects | None:
    with_value = _opts("-n -I -i -P -d -L -s -E -a --max-args --replace --max-procs --delimiter")
    skip = False
    for k, w in enumerate(args):
        if skip:
            skip = False
        elif w.text in with_value:
            skip = True
        elif not w.text.startswith("-"):
            effects = j.words(args[k:])
            # Items arrive on stdin, so the literal words are not the whole story: no artifacts.
            return None if effects is None else [(kd, (), dt or "xargs") for kd, _, dt in effects]
    return READ  # bare xargs runs echo


def _shell(j: Judge, head: str, args: list[Word]) -> Effects | None:
    """``bash -c 'script'``, ``sh -lc``, ``bash script.sh``, ``eval ...``, ``pwsh -Command``."""
    if head == "eval":
        return j.script(" ".join(_texts(args)))
    if head in {"powershell", "pwsh"}:
        for k, w in enumerate(args):
            flag = w.text.lower()
            if flag in {"-command", "-c"}:
                return j.script(" ".join(_texts(args[k + 1 :])))
            if flag in {"-file", "-f"} and k + 1 < len(args):
                return _of_kind(script_file_kind(args[k + 1].text))
        return None
    if head == "cmd":
        for k, w in enumerate(args):
            if w.text.lower() in {"/c", "/k"}:
                return j.script(" ".join(_texts(args[k + 1 :])))
        return None
    texts = _texts(args)
    script = inline_script(texts)
    if script is not None:
        return j.script(script) if script else READ
    first = next((t for t in texts if not t.startswith("-")), None)
    return _of_kind(script_file_kind(first)) if first is not None else None


def inline_script(args: list[str]) -> str | None:
    """The script a POSIX shell runs from ``-c`` (any flag bundle with ``c``: Codex runs every
    command as ``/bin/bash -lc 'SCRIPT'``), given the words after the shell's name; ``""``
    for a ``-c`` with no script, ``None`` when it runs no inline script.

    Example:
        >>> inline_script(["-lc", "python3 -m unittest -q"])
        'python3 -m unittest -q'
        >>> inline_script(["--login", "-c", "pytest"]), inline_script(["deploy.sh"])
        ('pytest', None)
    """
    for k, t in enumerate(args):
        if t.startswith("-") and not t.startswith("--") and "c" in t[1:]:
            return args[k + 1] if k + 1 < len(args) else ""
        if not t.startswith("-"):
            return None
    return None


def _source(j: Judge, head: str, args: list[Word]) -> Effects | None:
    pos = positional(args)
    if pos and posixpath.basename(pos[0].text) in {"activate", "activate.sh", "activate.fish"}:
        return READ
    return None


# -- interpreters ----------------------------------------------------------------------------

_SCRIPT_EXTENSIONS = (".js", ".cjs", ".mjs", ".py", ".ts")


def _tool_script(j: Judge, path: str, rest: list[Word]) -> Effects | None:
    """An interpreter running a known tool by path (``node node_modules/.bin/vitest run``)."""
    stem = posixpath.basename(path)
    for ext in _SCRIPT_EXTENSIONS:
        stem = stem.removesuffix(ext)
    parts = path.split("/")
    if "node_modules" in parts[:-1]:
        # node node_modules/vitest/dist/cli.js: the package is the tool
        package = parts[parts.index("node_modules") + 1]
        if package not in {".bin", ""} and not package.startswith("@"):
            stem = package
    known = V.TEST_HEADS | V.LINT_HEADS | V.TYPECHECK_HEADS
    if stem in known or stem in V.FORMAT_BY_DEFAULT or stem in V.FORMAT_WRITE_FLAGS:
        return j.judge(stem, rest)
    if stem in SPECIAL and stem not in {"python", "node", "bash", "sh"}:
        return j.judge(stem, rest)
    return _of_kind(script_file_kind(path))


_MANAGE_PY = {"test": "test", "check": "lint", "makemigrations": "write", "migrate": "write",
              "startapp": "write", "collectstatic": "write", "showmigrations": "read",
              "runserver": "read"}  # fmt: skip
_SETUP_PY = {"test": "test", "build": "build", "check": "lint", "install": "install",
             "develop": "install", "sdist": "build", "bdist_wheel": "build"}  # fmt: skip


def _python(j: Judge, head: str, args: list[Word]) -> Effects | None:
    skip = False
    for k, w in enumerate(args):
        t = w.text
        if skip:
            skip = False
        elif t in {"-X", "-W", "--check-hash-based-pycs"}:
            skip = True
        elif t == "-m" or (t.startswith("-m") and len(t) > 2):
            module = t[2:] if len(t) > 2 else (args[k + 1].text if k + 1 < len(args) else "")
            return _python_module(j, module, args[k + (1 if len(t) > 2 else 2) :])
        elif t == "-c" or (t.startswith("-") and not t.startswith("--") and t.endswith("c")):
            return None
        elif t in {"-V", "--version", "-h", "--help"}:
            return READ
        elif not t.startswith("-"):
            rest = _texts(args[k + 1 :])
            base = posixpath.basename(t)
            if base == "manage.py" and rest:
                return _of_kind(_MANAGE_PY.get(rest[0]), f"manage.py {rest[0]}")
            if base == "setup.py" and rest:
                return _of_kind(_SETUP_PY.get(rest[0]), f"setup.py {rest[0]}")
            return _tool_script(j, t, args[k + 1 :])
    return None  # an interactive interpreter


def _python_module(j: Judge, module: str, rest: list[Word]) -> Effects | None:
    if module in {"unittest", "doctest", "nose", "nose2"}:
        return _check("test", f"python -m {module}")
    if module in {"compileall", "py_compile", "build"}:
        return _check("build", f"python -m {module}")
    if module in {"venv", "virtualenv"}:
        return _delta("write", static_paths(positional(rest, _opts("--prompt"))), module)
    if module in V.PY_MODULES_READ:
        return READ
    if module in {"ensurepip", "pip"}:
        return _pip(j, "pip", rest) if module == "pip" else _delta("install")
    if module == "twine":
        return _delta("deploy", (), "twine")
    module = {"pre_commit": "pre-commit"}.get(module, module)
    known = module in SPECIAL or module in V.TEST_HEADS or module in V.LINT_HEADS
    if known or module in V.TYPECHECK_HEADS or module in V.FORMAT_BY_DEFAULT:
        return j.judge(module, rest)
    return None


def _node(j: Judge, head: str, args: list[Word]) -> Effects | None:
    texts = set(_texts(args))
    if texts and texts <= {"-v", "--version", "-h", "--help"}:
        return READ
    if "--test" in texts:
        return _check("test", "node --test")
    if texts & {"-c", "--check"}:
        return _check("lint")
    if texts & {"-e", "-p", "--eval", "--print"}:
        return None
    pos = positional(args, _opts("-r --require --import --loader"))
    if not pos:
        return None
    return _tool_script(j, pos[0].text, args[args.index(pos[0]) + 1 :])


def _php(j: Judge, head: str, args: list[Word]) -> Effects | None:
    if has_flag(args, _opts("-l --syntax-check")):
        return _check("lint")
    pos = positional(args)
    if len(pos) > 1 and pos[0].text == "artisan":
        action = pos[1].text
        if action == "test":
            return _check("test", "artisan test")
        if action.startswith(("make:", "migrate")):
            return _delta("write", (), f"artisan {action}")
        return READ if action in {"route:list", "about", "list", "serve"} else None
    return _of_kind(script_file_kind(pos[0].text)) if pos else None


# -- version control and forges -------------------------------------------------------------


def _git(j: Judge, head: str, args: list[Word]) -> Effects | None:
    k = 0
    while k < len(args) and args[k].text.startswith("-"):
        k += 2 if args[k].text in V.GIT_GLOBAL_VALUE else 1
    if k >= len(args):
        return READ
    sub, rest = args[k].text, args[k + 1 :]
    texts = set(_texts(rest))
    detail = f"git {sub}"
    if sub in V.GIT_READ:
        return READ
    if sub == "branch":
        pos = positional(rest, V.GIT_BRANCH_VALUE)
        writes = has_flag(rest, V.GIT_BRANCH_WRITE) or (pos and not texts & {"-l", "--list"})
        return _delta("vcs", (), detail) if writes else READ
    if sub == "tag":
        pos = positional(rest, _opts("-m -F --sort --format --contains -n"))
        listing = texts & {"-l", "--list", "-v", "--verify"} or not (
            pos or texts & {"-d", "--delete"}
        )
        return READ if listing else _delta("vcs", (), detail)
    if sub == "config":
        pos = positional(rest, _opts("--file -f --type --default"))
        getters = _opts("--get --get-all --get-regexp --list -l --show-origin --get-urlmatch")
        return READ if texts & getters or len(pos) <= 1 else _delta("vcs", (), detail)
    if sub in V.GIT_LISTING:
        first = rest[0].text if rest else ""
        if not first:
            return _delta("vcs", (), detail) if sub in {"stash", "bisect"} else READ
        return READ if first in V.GIT_LISTING[sub] else _delta("vcs", (), detail)
    if sub == "rm":
        if "--cached" in texts:
            return _delta("vcs", (), "git rm --cached")
        return _delta("delete", static_paths(positional(rest)), detail)
    if sub == "mv":
        return _mv_cp(j, "git mv", rest)
    if sub in {"checkout", "restore"}:
        if "--" in texts:
            return _delta("edit", static_paths(rest[_texts(rest).index("--") + 1 :]), detail)
        if sub == "restore":
            return _delta("edit", static_paths(positional(rest, _opts("-s --source"))), detail)
        return _delta("vcs", (), detail)
    if sub == "clean":
        return READ if has_flag(rest, _opts("-n --dry-run")) else _delta("delete", (), detail)
    if sub == "clone":
        return _git_clone(rest)
    if sub == "init":
        pos = positional(rest, _opts("-b --initial-branch --template --separate-git-dir"))
        return _delta("vcs", static_paths(pos[:1]), detail)
    if sub == "apply" and texts & {"--check", "--stat", "--numstat", "--summary"}:
        return _check("check", "git apply --check") if "--check" in texts else READ
    if sub in V.GIT_VCS:
        return _delta("vcs", (), detail)
    return None


def _git_clone(rest: list[Word]) -> Effects:
    with_value = _opts(
        "-b --branch --depth -o --origin -c --config --reference --separate-git-dir -j --jobs "
        "--filter -u --upload-pack"
    )
    pos = positional(rest, with_value)
    if len(pos) >= 2:
        return _delta("write", static_paths(pos[1:2]), "git clone")
    if pos and pos[0].static:
        name = posixpath.basename(pos[0].text.rstrip("/").split(":")[-1]).removesuffix(".git")
        return _delta("write", (name,) if name else (), "git clone")
    return _delta("write", (), "git clone")


def _gh(j: Judge, head: str, args: list[Word]) -> Effects | None:
    pos = positional(args, _opts("-R --repo -X --method -H --header -q --jq -t --template"))
    if not pos or pos[0].text in {"search", "browse", "status", "help", "version", "completion"}:
        return READ
    group = pos[0].text
    if group == "api":
        method = _value_after(args, _opts("-X --method"))
        writes = set(_texts(args)) & _opts("-f -F --field --raw-field --input")
        if (method is None or method.text.upper() == "GET") and not writes:
            return READ
        return _delta("vcs", (), "gh api")
    action = pos[1].text if len(pos) > 1 else "list"
    if action in V.READ_ACTIONS:
        return READ
    if group == "repo" and action == "clone":
        return _delta("write", static_paths(pos[3:4]), "gh repo clone")
    return _delta("vcs", (), f"gh {group} {action}")


# -- build tools and package managers ---------------------------------------------------------


def _targets(head: str, targets: list[str]) -> Effects | None:
    names = [t.rsplit(":", 1)[-1] for t in targets if "=" not in t and not t.startswith("-")]
    if not names:
        return _check("build", f"{head} (default)") if head in {"make", "gmake"} else None
    out: Effects = []
    for name in names:
        effects = _of_kind(script_kind(name), f"{head} {name}")
        if effects is None:
            return None
        out += effects
    return out


def _tasks(j: Judge, head: str, args: list[Word]) -> Effects | None:
    """``turbo run build test``, ``nx run app:test``, ``nx test app``: task runners."""
    pos = _texts(positional(args, _opts("--filter -F --scope --parallel --concurrency -c")))
    if pos[:1] == ["run"] or pos[:1] == ["run-many"]:
        pos = pos[1:]
    if head == "nx" and pos and ":" not in pos[0]:
        pos = pos[:1]  # nx TARGET PROJECT
    return _targets(head, pos) if pos else None


def _make(j: Judge, head: str, args: list[Word]) -> Effects | None:
    if has_flag(args, _opts("-n --dry-run --just-print -q --question -p --print-data-base")):
        return READ
    with_value = _opts("-C -f --file --makefile -j --jobs -l -I -o -W --directory")
    return _targets(head, _texts(positional(args, with_value)))


def _just(j: Judge, head: str, args: list[Word]) -> Effects | None:
    if has_flag(args, _opts("-l --list --summary --show -s --dry-run -n --evaluate --dump")):
        return READ
    pos = positional(args, _opts("-f --justfile -d --working-directory --set"))
    return _targets(head, _texts(pos)) if pos else None


def _npm(j: Judge, head: str, args: list[Word]) -> Effects | None:
    pos = positional(args, V.SUB_VALUE_OPTS | _opts("--registry --tag"))
    sub = pos[0].text if pos else ""
    rest = pos[1:]
    if head == "yarn" and not sub:
        return _delta("install", (), "yarn")
    if sub in {"test", "t", "tst"}:
        return _check("test", f"{head} test")
    if sub in {"run", "run-script"}:
        return _of_kind(script_kind(rest[0].text), f"{head} run {rest[0].text}") if rest else READ
    if sub in V.NPM_INSTALL:
        return _delta("install", (), f"{head} {sub}")
    if sub in {"init", "create", "new"}:
        return _delta("write", (), f"{head} {sub}")
    if sub == "audit":
        return _delta("install", (), "audit fix") if "fix" in _texts(rest) else _check("check")
    if sub in {"publish", "pack", "deprecate", "dist-tag", "owner", "login", "logout"}:
        return _delta("deploy", (), f"{head} {sub}")
    if sub == "version":
        return _delta("deploy", (), f"{head} version") if rest else READ
    if sub in {"build", "b"} and head != "npm":
        return _check("build", f"{head} build")
    if head == "bun" and sub == "x":
        return j.words(rest)
    if sub in V.NPM_READ:
        return READ
    if head in {"yarn", "pnpm", "bun"} and sub:
        # `yarn lint`, `pnpm typecheck`, `bun jest`: scripts or local binaries, run directly.
        effects = _of_kind(script_kind(sub), f"{head} {sub}")
        known = V.TEST_HEADS | V.LINT_HEADS | V.TYPECHECK_HEADS
        return effects if effects is not None or sub not in known else j.judge(sub, rest)
    return None


def _pip(j: Judge, head: str, args: list[Word]) -> Effects | None:
    with_value = _opts(
        "-r --requirement -c --constraint -e --editable -t --target --index-url -i "
        "--extra-index-url --python -p"
    )
    pos = positional(args, with_value)
    sub = pos[0].text if pos else ""
    if sub in {"install", "uninstall", "download", "wheel", "sync", "compile"}:
        return _delta("install", (), f"{head} {sub}")
    if sub == "check":
        return _check("check", f"{head} check")
    if head == "pipx" and sub == "run":
        return j.words(pos[1:])
    if head == "pipx" and sub not in {"list", "environment", ""}:
        return _delta("install", (), f"pipx {sub}")
    return READ if sub else None


def _uv(j: Judge, head: str, args: list[Word]) -> Effects | None:
    pos = positional(args, V.RUNNER_OPTS["uv"])
    sub = pos[0].text if pos else ""
    action = pos[1].text if len(pos) > 1 else ""
    if sub == "pip":
        return _pip(j, "uv pip", pos[1:])
    if sub == "tool" and action == "run":
        return j.words(pos[2:])
    if sub in {"tool", "python"}:
        return (
            READ
            if action in {"list", "dir", "find"}
            else _delta("install", (), f"uv {sub} {action}")
        )
    table = {"add": "install", "remove": "install", "sync": "install", "lock": "install",
             "venv": "install", "self": "install", "build": "build", "init": "write",
             "publish": "deploy", "tree": "read", "version": "read", "cache": "read",
             "export": "read", "format": "format?"}  # fmt: skip
    return _sub_kind(j, table.get(sub), "uv", sub, pos[1:], args)


def _ruff(j: Judge, head: str, args: list[Word]) -> Effects | None:
    pos = positional(args, _opts("--config --select --ignore --extend-select --target-version"))
    sub = pos[0].text if pos else ""
    if sub == "format":
        return j.judge("ruff-format", args[1:])
    if sub == "clean":
        return _delta("delete", (), "ruff clean")
    if sub in {"rule", "config", "linter", "version", "server", "analyze"}:
        return READ
    fixes = has_flag(args, _opts("--fix --unsafe-fixes")) and "--no-fix" not in _texts(args)
    return _check("lint") + (_delta("format", (), "ruff --fix") if fixes else [])


def _coverage(j: Judge, head: str, args: list[Word]) -> Effects | None:
    pos = positional(args, _opts("--source --rcfile --omit --include --data-file --context"))
    if pos and pos[0].text == "run":
        return _python(j, "python", args[args.index(pos[0]) + 1 :])
    return READ


def _sub_kind(
    j: Judge, kind: str | None, head: str, sub: str, rest: list[Word], args: list[Word]
) -> Effects | None:
    """Effects of a sub-command whose kind (or directive) comes from a table."""
    detail = f"{head} {sub}".strip()
    if kind == "format?":
        checks = _opts(
            "--check -check --verify-no-changes --check-formatted --dry-run --set-exit-if-changed"
        )
        return _check("lint", detail) if has_flag(args, checks) else _delta("format", (), detail)
    if kind == "script":
        return _of_kind(script_kind(rest[0].text), detail) if rest else READ
    if kind == "wrap":
        return j.words(rest)
    if kind == "targets":
        return _check("test", detail) if "test" in _texts(rest) else _check("build", detail)
    if kind == "new":
        return _delta("write", static_paths(rest[:1]), detail)
    return _of_kind(kind, detail)


def _table(j: Judge, head: str, args: list[Word]) -> Effects | None:
    table = V.SUB_TABLES[head]
    pos = positional(args, V.SUB_VALUE_OPTS)
    first = args[0].text if args else ""
    sub = first if first.startswith("-") and first in table else (pos[0].text if pos else "")
    if head in {"mvn", "gradle"}:
        return _phases(j, head, table, pos)
    return _sub_kind(j, table.get(sub), head, sub, pos[1:], args)


def _phases(j: Judge, head: str, table: dict[str, str], pos: list[Word]) -> Effects | None:
    """``mvn clean test``, ``gradle :app:test build``: several phases or tasks in one call."""
    if not pos:
        return _check("build", head) if head == "gradle" else None
    out: Effects = []
    for w in pos:
        task = w.text.rsplit(":", 1)[-1] if head == "gradle" else w.text
        kind = table.get(task)
        if kind is None:
            low = task.lower()
            if low.startswith("test") or low.endswith("test"):
                kind = "test"
            elif low.endswith("check"):
                kind = "lint"
        effects = _of_kind(kind, f"{head} {task}")
        if effects is None:
            return None
        out += effects
    return out


SPECIAL: dict[str, Special] = {
    "touch": _touch, "mkdir": _mkdir, "rm": _rm, "rmdir": _rm, "unlink": _rm, "shred": _rm,
    "mv": _mv_cp, "cp": _mv_cp, "install": _mv_cp, "rsync": _mv_cp, "ln": _ln,
    "chmod": _chmod, "chown": _chmod, "chgrp": _chmod, "tee": _tee, "truncate": _truncate,
    "sed": _sed, "gsed": _sed, "perl": _perl_ruby, "ruby": _perl_ruby, "awk": _awk,
    "gawk": _awk, "sort": _sort, "uniq": _uniq, "dd": _dd, "yq": _yq, "curl": _curl,
    "wget": _wget, "find": _find, "xargs": _xargs, "bash": _shell, "sh": _shell,
    "zsh": _shell, "dash": _shell, "ksh": _shell, "fish": _shell, "eval": _shell,
    "source": _source, ".": _source, "python": _python, "node": _node, "php": _php,
    "git": _git, "gh": _gh, "make": _make, "gmake": _make, "just": _just, "npm": _npm,
    "pnpm": _npm, "yarn": _npm, "bun": _npm, "pip": _pip, "pipx": _pip, "uv": _uv,
    "ruff": _ruff, "coverage": _coverage, "powershell": _shell, "pwsh": _shell, "cmd": _shell,
    "tar": _tar, "turbo": _tasks, "nx": _tasks,
}  # fmt: skip
for _head in V.SUB_TABLES:
    SPECIAL.setdefault(_head, _table)


# --------------------------------------------------------------------------------------------
# Wrappers


def _drop_options(ws: list[Word], with_value: frozenset[str]) -> list[Word]:
    k = 0
    while k < len(ws) and ws[k].text.startswith("-") and ws[k].text != "-":
        if ws[k].text == "--":
            return ws[k + 1 :]
        k += 2 if ws[k].text in with_value else 1
    return ws[k:]


def strip_wrappers(ws: list[Word]) -> list[Word]:
    """Drop leading assignments, keywords and wrappers (``env``, ``sudo``, ``uv run`` ...)."""
    for _ in range(16):
        while ws and (_ASSIGNMENT.match(ws[0].text) or ws[0].text in V.KEYWORDS):
            ws = ws[1:]
        if not ws:
            return ws
        head, rest = normalize_head(ws[0].text), ws[1:]
        if head in V.WRAPPERS_PLAIN:
            ws = _drop_options(rest, frozenset())
        elif head in V.WRAPPER_OPTS:
            if head == "command" and rest[:1] and rest[0].text in {"-v", "-V"}:
                return ws
            if head == "env" and all(
                w.text.startswith("-") or _ASSIGNMENT.match(w.text) for w in rest
            ):
                return ws  # bare `env` prints the environment
            ws = _drop_options(rest, V.WRAPPER_OPTS[head])
            if head == "timeout" and ws:
                ws = ws[1:]  # the duration
        elif head in V.NPX:
            ws = _drop_options(rest, V.NPX_OPTS)
        elif head in V.RUNNER_SUBS:
            with_value = V.RUNNER_OPTS.get(head, frozenset())
            k = 0
            while k < len(rest) and rest[k].text.startswith("-"):
                k += 2 if rest[k].text in with_value else 1
            if k >= len(rest) or rest[k].text not in V.RUNNER_SUBS[head]:
                return ws
            ws = _drop_options(rest[k + 1 :], with_value)
        else:
            return ws
    return ws


__all__ = [
    "CHECK_KINDS",
    "DELTA_KINDS",
    "SPECIAL",
    "Effects",
    "Judge",
    "Nester",
    "has_flag",
    "inline_script",
    "normalize_head",
    "positional",
    "script_file_kind",
    "script_kind",
    "static_paths",
    "strip_wrappers",
]

"""Install and uninstall earnest's stop hook in an agent CLI's settings file.

Each CLI keeps hooks in a JSON file of the same shape,
``{"hooks": {"<Event>": [{"hooks": [{"type": "command", "command": ...}]}]}}``:

- Claude Code: ``.claude/settings.json`` (project) or ``$CLAUDE_CONFIG_DIR/settings.json``
  (user; default ``~/.claude``); events ``Stop`` and ``SubagentStop``.
- Gemini CLI: ``.gemini/settings.json`` or ``$GEMINI_CLI_HOME/.gemini/settings.json``
  (default HOME); event ``AfterAgent`` (timeout in milliseconds, a ``name`` so
  ``/hooks disable`` can address it).
- Codex: ``.codex/hooks.json`` or ``$CODEX_HOME/hooks.json`` (default ``~/.codex``); event
  ``Stop``.
- Qwen Code: ``.qwen/settings.json`` or ``$QWEN_HOME/settings.json`` (default ``~/.qwen``);
  event ``Stop`` (timeout in milliseconds, a ``name`` like Gemini's).
- GitHub Copilot CLI: a file of its own, ``.github/hooks/earnest.json`` or
  ``$COPILOT_HOME/hooks/earnest.json`` (default ``~/.copilot``), in Copilot's shape:
  ``{"version": 1, "hooks": {"agentStop": [{"type": "command", "bash": ..., "timeoutSec":
  30}]}}`` (the handlers straight in the event's list, the command under ``bash``).

Installing merges: every other key and every other hook is kept, a second install changes
nothing, a file that is not valid JSON is refused (:class:`~earnest.errors.InputError` with its
line and column) and left untouched, the previous file is kept as ``<name>.bak-<timestamp>``,
and the new file replaces the old one atomically.

Example:
    >>> import tempfile
    >>> from pathlib import Path
    >>> d = Path(tempfile.mkdtemp())
    >>> r = install_hook("claude-code", settings_path("claude-code", "project", d),
    ...                  command="earnest hook claude-code")
    >>> r.changed, r.events
    (True, ('Stop', 'SubagentStop'))
    >>> install_hook("claude-code", r.path, command="earnest hook claude-code").changed
    False
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import shutil
import sys
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from earnest.errors import InputError

Scope = Literal["project", "user"]


@dataclass(frozen=True)
class CliHookSpec:
    """Where one CLI keeps its hooks and what our entry looks like there."""

    cli: str
    folder: str  # ".claude" under the project or under HOME
    filename: str
    events: tuple[str, ...]
    timeout: int  # in the CLI's own unit
    extra: tuple[tuple[str, Any], ...] = ()  # more keys of the handler object
    matcher: str | None = None
    command_key: str = "command"  # the handler's key for the command line
    timeout_key: str = "timeout"
    flat: bool = False  # handlers straight in the event's list, not in {"hooks": [...]} groups
    top: tuple[tuple[str, Any], ...] = ()  # keys the file itself must have
    user_dir: str | None = None  # the user folder under HOME, when not ``folder``
    user_file: str | None = None  # the file under the user folder, when not ``filename``


HOOK_NAME = "earnest-effect-gate"
_DESCRIPTION = "earnest: block a stop that claims work without a verifiable effect"

SPECS: dict[str, CliHookSpec] = {
    "claude-code": CliHookSpec(
        "claude-code", ".claude", "settings.json", ("Stop", "SubagentStop"), timeout=30
    ),
    "gemini": CliHookSpec(
        "gemini",
        ".gemini",
        "settings.json",
        ("AfterAgent",),
        timeout=30000,
        extra=(("name", HOOK_NAME), ("description", _DESCRIPTION)),
        matcher="*",
    ),
    # Codex also has SubagentStop in recent versions; an event key an older Codex does not
    # know could make it reject the whole file, so only Stop is installed.
    "codex": CliHookSpec("codex", ".codex", "hooks.json", ("Stop",), timeout=30),
    "qwen": CliHookSpec(
        "qwen",
        ".qwen",
        "settings.json",
        ("Stop",),
        timeout=30000,
        extra=(("name", HOOK_NAME), ("description", _DESCRIPTION)),
    ),
    "copilot": CliHookSpec(
        "copilot",
        ".github/hooks",
        "earnest.json",
        ("agentStop",),
        timeout=30,
        command_key="bash",
        timeout_key="timeoutSec",
        flat=True,
        top=(("version", 1),),
        user_dir=".copilot",
        user_file="hooks/earnest.json",
    ),
}

# CLIs whose hook is no entry of the JSON shape above: a module of their own writes it, with
# ``settings_path(scope, project_dir, env)``, ``install(path, command=)``, ``uninstall(path)``
# and ``installed_entries(path)``.
OWN_INSTALLERS: dict[str, str] = {
    "pi": "earnest.hooks.pi_install",
    "cursor": "earnest.hooks.cursor_install",
    "opencode": "earnest.hooks.opencode_plugin",
}

CLIS = (*SPECS, *OWN_INSTALLERS)


def own_installer(cli: str) -> Any:
    """The module that installs ``cli``'s hook when it has one of its own (else ``None``)."""
    import importlib

    name = OWN_INSTALLERS.get(cli)
    return importlib.import_module(name) if name else None


@dataclass(frozen=True)
class SettingsChange:
    """What an install or uninstall did to one settings file."""

    cli: str
    path: Path
    changed: bool
    events: tuple[str, ...]
    command: str
    backup: Path | None = None
    removed: int = 0

    def as_json(self) -> dict[str, Any]:
        return {
            "cli": self.cli,
            "settings": str(self.path),
            "changed": self.changed,
            "events": list(self.events),
            "command": self.command,
            "backup": str(self.backup) if self.backup else None,
            "removed": self.removed,
        }


def spec_for(cli: str) -> CliHookSpec:
    try:
        return SPECS[cli]
    except KeyError:
        raise InputError(None, "cli", f"unknown CLI {cli!r} (one of: {', '.join(CLIS)})") from None


def home_dir() -> Path:
    """HOME as the environment says (tests point it at a temporary folder)."""
    home = os.environ.get("HOME")
    return Path(home) if home else Path.home()


# The environment variable each CLI reads for its user folder, and what it replaces:
# CLAUDE_CONFIG_DIR and CODEX_HOME name the folder itself (~/.claude, ~/.codex);
# GEMINI_CLI_HOME replaces the home directory (settings in $GEMINI_CLI_HOME/.gemini/);
# QWEN_HOME and COPILOT_HOME name the folder itself (~/.qwen, ~/.copilot).
USER_DIR_ENV: dict[str, tuple[str, bool]] = {
    "claude-code": ("CLAUDE_CONFIG_DIR", True),
    "codex": ("CODEX_HOME", True),
    "gemini": ("GEMINI_CLI_HOME", False),
    "qwen": ("QWEN_HOME", True),
    "copilot": ("COPILOT_HOME", True),
}


def user_folder(cli: str, env: Mapping[str, str] | None = None) -> Path:
    """The folder the CLI keeps its user settings in, as the CLI itself finds it.

    Example:
        >>> str(user_folder("codex", {"CODEX_HOME": "/opt/codex", "HOME": "/home/u"}))
        '/opt/codex'
        >>> str(user_folder("gemini", {"GEMINI_CLI_HOME": "/g", "HOME": "/home/u"}))
        '/g/.gemini'
        >>> str(user_folder("claude-code", {"HOME": "/home/u"}))
        '/home/u/.claude'
        >>> str(user_folder("qwen", {"QWEN_HOME": "/q", "HOME": "/home/u"}))
        '/q'
        >>> str(user_folder("copilot", {"HOME": "/home/u"}))
        '/home/u/.copilot'
    """
    spec = spec_for(cli)
    env = os.environ if env is None else env
    name, is_folder = USER_DIR_ENV[cli]
    value = (env.get(name) or "").strip()
    folder = spec.user_dir or spec.folder
    if value:
        base = Path(value).expanduser()
        return base if is_folder else base / folder
    home = env.get("HOME")
    return (Path(home) if home else Path.home()) / folder


def settings_path(
    cli: str,
    scope: Scope,
    project_dir: str | Path | None = None,
    env: Mapping[str, str] | None = None,
) -> Path:
    """The settings file for ``cli`` at ``scope`` (project: under ``project_dir`` or cwd;
    user: where the CLI looks, honouring CLAUDE_CONFIG_DIR, CODEX_HOME, GEMINI_CLI_HOME,
    QWEN_HOME, COPILOT_HOME; Pi and Cursor: their own installer's path).

    Example:
        >>> str(settings_path("copilot", "project", "/p"))
        '/p/.github/hooks/earnest.json'
        >>> str(settings_path("copilot", "user", env={"COPILOT_HOME": "/c"}))
        '/c/hooks/earnest.json'
    """
    own = own_installer(cli)
    if own is not None:
        return Path(own.extension_path(scope, project_dir, env))
    spec = spec_for(cli)
    if scope == "user":
        return user_folder(cli, env) / (spec.user_file or spec.filename)
    return Path(project_dir or Path.cwd()) / spec.folder / spec.filename


HOOK_BOOTSTRAP = (
    "import sys;sys.path.append(sys.argv.pop(1));from earnest.__main__ import main;sys.exit(main())"
)
"""The ``-c`` program of an installed hook: its first argument is the folder earnest is
imported from (appended to ``sys.path`` as ``site`` would have put it), the rest is
``hook CLI``. Fixed text with no quote or ``=`` in it, so every settings format holds it as is
and :func:`is_earnest_command` can recognise it exactly."""


def import_root() -> Path | None:
    """The folder this earnest is imported from: ``site-packages`` of a regular install, the
    project's ``src`` of an editable one (whose ``.pth`` file or finder points there), or
    ``None`` when putting the folder on ``sys.path`` would not import this package by its
    name (a package directory mapped under another name).

    Example:
        >>> root = import_root()
        >>> root is not None and (root / "earnest" / "__init__.py").is_file()
        True
    """
    import earnest

    package = Path(earnest.__file__).resolve().parent
    if package.name != "earnest" or not (package / "__init__.py").is_file():
        return None
    return package.parent


def default_command(cli: str) -> str:
    """The command the CLI should run: this interpreter, by its absolute path.

    Not a bare ``earnest``: the agent CLI may start without the virtual environment that
    put ``earnest`` on PATH, and then the hook would silently never run. The interpreter
    starts without ``site`` (``-S``: a quarter of a bare start, every stop) and the
    :data:`HOOK_BOOTSTRAP` puts earnest's own folder on ``sys.path``; a stop imports only the
    standard library and earnest (orjson and filelock are optional there). Not ``-E``: the
    environment (``EARNEST_STATE_DIR``, ``PYTHONPATH``...) still applies. Where a stop may need
    the ``filelock`` library (no ``fcntl``) or earnest's folder cannot be named, the plain
    ``-m earnest`` command with ``site``.
    """
    python = shlex.quote(sys.executable)
    root = import_root()
    if root is None or _needs_site():
        return f"{python} -m earnest hook {cli}"
    return f"{python} -S -c {shlex.quote(HOOK_BOOTSTRAP)} {shlex.quote(str(root))} hook {cli}"


def _needs_site() -> bool:
    """A system without ``fcntl`` locks a blocking stop with the ``filelock`` library, which
    may live in a folder only ``site`` adds."""
    try:
        import fcntl  # noqa: F401
    except ImportError:
        return True
    return False


def bootstrap_root(command: str) -> Path | None:
    """The folder an installed ``-S`` hook command imports earnest from (``None`` for any
    other command).

    Example:
        >>> bootstrap_root(f"/py -S -c {shlex.quote(HOOK_BOOTSTRAP)} /site hook codex")
        PosixPath('/site')
        >>> bootstrap_root("/py -m earnest hook codex") is None
        True
    """
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    for i in range(len(words) - 2):
        if words[i] == "-c" and words[i + 1] == HOOK_BOOTSTRAP:
            return Path(words[i + 2])
    return None


def is_earnest_command(command: object, cli: str) -> bool:
    """Whether a hook command is earnest's own adapter for ``cli`` (however it was spelled)."""
    if not isinstance(command, str):
        return False
    try:
        words = shlex.split(command)
    except ValueError:
        words = command.split()
    for i in range(len(words) - 2):
        if words[i + 1 : i + 3] != ["hook", cli]:
            continue
        prog = words[i]
        if Path(prog).name == "earnest":
            return True
        if prog == "earnest" and i >= 1 and words[i - 1] == "-m":
            return True
        if i >= 2 and words[i - 2 : i] == ["-c", HOOK_BOOTSTRAP]:
            return True
    return False


# ---------------------------------------------------------------------------- read / write


def read_settings(path: Path) -> tuple[dict[str, Any], bool]:
    """Parse ``path`` (``{}`` if it does not exist); bad JSON → InputError with line/column."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}, False
    except UnicodeDecodeError as exc:
        raise InputError(path, f"byte {exc.start}", "not UTF-8 text") from None
    except OSError as exc:
        raise InputError(path, None, f"cannot read: {exc.strerror}") from None
    if not text.strip():
        return {}, True
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(
            path, f"line {exc.lineno}, column {exc.colno}", f"invalid JSON: {exc.msg}"
        ) from None
    if not isinstance(data, dict):
        raise InputError(path, "line 1", "settings must be a JSON object")
    return data, True


def write_atomic(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` in one rename, keeping the old file's permissions.

    A symlink (a dotfiles checkout) is written through: the file it points to is replaced
    and the link stays a link.
    """
    if path.is_symlink():
        path = path.resolve()
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = path.stat().st_mode & 0o7777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def _backup(path: Path) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    candidate = path.with_name(f"{path.name}.bak-{stamp}")
    n = 1
    while candidate.exists():
        candidate = path.with_name(f"{path.name}.bak-{stamp}-{n}")
        n += 1
    shutil.copy2(path, candidate)
    return candidate


def hooks_table(data: dict[str, Any], path: Path) -> dict[str, Any]:
    """The settings' ``hooks`` object ({} when absent); anything else is an error naming it."""
    hooks = data.get("hooks")
    if hooks is None:
        return {}
    if not isinstance(hooks, dict):
        raise InputError(path, "hooks", "must be a JSON object")
    return hooks


def event_list(hooks: dict[str, Any], event: str, path: Path) -> list[Any]:
    """``hooks[event]`` ([] when absent); anything but a list is an error naming it."""
    groups = hooks.get(event)
    if groups is None:
        return []
    if not isinstance(groups, list):
        raise InputError(path, f"hooks.{event}", "must be a JSON array")
    return groups


def _handlers(group: Any) -> list[Any]:
    if isinstance(group, dict) and isinstance(group.get("hooks"), list):
        return list(group["hooks"])
    return []


def _ours(handler: Any, cli: str) -> bool:
    key = SPECS[cli].command_key
    return isinstance(handler, dict) and is_earnest_command(handler.get(key), cli)


def _handler(spec: CliHookSpec, command: str) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "type": "command",
        spec.command_key: command,
        spec.timeout_key: spec.timeout,
    }
    entry.update(dict(spec.extra))
    return entry


def _install_flat(
    spec: CliHookSpec, hooks: dict[str, Any], want: dict[str, Any], path: Path
) -> bool:
    """Add or update our handler in each event's list of handlers (Copilot's shape)."""
    changed = False
    for event in spec.events:
        handlers = event_list(hooks, event, path)
        ours = [i for i, h in enumerate(handlers) if _ours(h, spec.cli)]
        for i in ours:
            if handlers[i] != want:
                handlers[i] = want
                changed = True
        if not ours:
            hooks[event] = [*handlers, want]
            changed = True
    return changed


def _uninstall_flat(cli: str, hooks: dict[str, Any]) -> tuple[int, list[str], list[str]]:
    """Remove our handlers from each event's list; ``(removed, events, commands)``."""
    removed = 0
    touched: list[str] = []
    commands: list[str] = []
    for event in list(hooks):
        handlers = hooks[event]
        if not isinstance(handlers, list):
            continue
        ours = [h for h in handlers if _ours(h, cli)]
        if not ours:
            continue
        removed += len(ours)
        touched.append(event)
        commands.extend(str(h.get(SPECS[cli].command_key)) for h in ours)
        rest = [h for h in handlers if not _ours(h, cli)]
        if rest:
            hooks[event] = rest
        else:
            del hooks[event]
    return removed, touched, commands


def _commit(path: Path, data: dict[str, Any], existed: bool) -> Path | None:
    backup = _backup(path) if existed else None
    write_atomic(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    return backup


# ---------------------------------------------------------------------------- install


def install_hook(cli: str, path: Path, *, command: str | None = None) -> SettingsChange:
    """Add earnest's hook for ``cli`` to the settings file at ``path`` (idempotent)."""
    own = own_installer(cli)
    if own is not None:
        change: SettingsChange = own.install(path, command=command)
        return change
    spec = spec_for(cli)
    command = command or default_command(cli)
    data, existed = read_settings(path)
    hooks = hooks_table(data, path)
    want = _handler(spec, command)
    changed = False
    for key, value in spec.top:
        if key not in data:
            data = {key: value, **data}
            changed = True
    if spec.flat:
        changed = _install_flat(spec, hooks, want, path) or changed
    for event in spec.events if not spec.flat else ():
        groups = event_list(hooks, event, path)
        present = [h for g in groups for h in _handlers(g) if _ours(h, cli)]
        if present:
            # Already installed: bring our own entry up to date, leave everything else.
            for group in groups:
                for i, handler in enumerate(_handlers(group)):
                    if _ours(handler, cli) and handler != want:
                        group["hooks"][i] = want
                        changed = True
            continue
        new_group: dict[str, Any] = {"hooks": [want]}
        if spec.matcher is not None:
            new_group = {"matcher": spec.matcher, **new_group}
        hooks[event] = [*groups, new_group]
        changed = True
    if not changed:
        return SettingsChange(cli, path, False, spec.events, command)
    data["hooks"] = hooks
    backup = _commit(path, data, existed)
    return SettingsChange(cli, path, True, spec.events, command, backup=backup)


def uninstall_hook(cli: str, path: Path) -> SettingsChange:
    """Remove earnest's own entries for ``cli`` from ``path``; everything else stays."""
    own = own_installer(cli)
    if own is not None:
        undone: SettingsChange = own.uninstall(path)
        return undone
    spec = spec_for(cli)
    data, existed = read_settings(path)
    if not existed:
        return SettingsChange(cli, path, False, (), "")
    hooks = hooks_table(data, path)
    removed = 0
    touched: list[str] = []
    commands: list[str] = []
    if spec.flat:
        removed, touched, commands = _uninstall_flat(cli, hooks)
    for event in list(hooks) if not spec.flat else ():
        if not isinstance(hooks[event], list):
            continue
        kept_groups: list[Any] = []
        for group in hooks[event]:
            handlers = _handlers(group)
            ours = [h for h in handlers if _ours(h, cli)]
            if not ours:
                kept_groups.append(group)
                continue
            removed += len(ours)
            commands.extend(str(h.get("command")) for h in ours)
            if event not in touched:
                touched.append(event)
            rest = [h for h in handlers if not _ours(h, cli)]
            if rest:
                group["hooks"] = rest
                kept_groups.append(group)
        if event in touched:
            if kept_groups:
                hooks[event] = kept_groups
            else:
                del hooks[event]
    if not removed:
        return SettingsChange(cli, path, False, (), "")
    if hooks:
        data["hooks"] = hooks
    else:
        data.pop("hooks", None)
    backup = _commit(path, data, existed)
    return SettingsChange(
        cli, path, True, tuple(touched), commands[0], backup=backup, removed=removed
    )


__all__ = [
    "CLIS",
    "HOOK_BOOTSTRAP",
    "HOOK_NAME",
    "OWN_INSTALLERS",
    "SPECS",
    "USER_DIR_ENV",
    "CliHookSpec",
    "Scope",
    "SettingsChange",
    "bootstrap_root",
    "default_command",
    "event_list",
    "home_dir",
    "hooks_table",
    "import_root",
    "install_hook",
    "is_earnest_command",
    "own_installer",
    "read_settings",
    "settings_path",
    "spec_for",
    "uninstall_hook",
    "user_folder",
    "write_atomic",
]

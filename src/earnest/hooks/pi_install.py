"""Install and uninstall earnest's Pi extension (``earnest hook install|uninstall pi``).

Pi loads every ``*.ts`` file in ``.pi/extensions/`` (project) and in
``$PI_CODING_AGENT_DIR/extensions/`` (user; default ``~/.pi/agent``). earnest's is one file of
its own, ``earnest-effect-gate.ts``, written from the template shipped in the package
(``pi_extension.ts``) with the hook command filled in; the user's other extensions are never
touched. The file's first line names it and its version: a reinstall replaces an older or
different one (the previous file kept as ``<name>.bak-<timestamp>``), changes nothing when it
is the same, and refuses (exit 2, the file left as it is) a file of that name earnest did not
write.

Example:
    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> path = extension_path("project", d)
    >>> install(path, command="earnest hook pi").changed
    True
    >>> installed_command(path.read_text())
    'earnest hook pi'
    >>> install(path, command="earnest hook pi").changed
    False
    >>> uninstall(path).removed, path.exists()
    (1, False)
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from importlib import resources
from pathlib import Path

from earnest.errors import InputError
from earnest.hooks.settings import (
    SettingsChange,
    _backup,
    default_command,
    write_atomic,
)

CLI = "pi"
EVENTS = ("turn_end",)
FILENAME = "earnest-effect-gate.ts"
EXTENSION_VERSION = "1"
MARKER = "// earnest-effect-gate extension for Pi, version "
AGENT_DIR_ENV = "PI_CODING_AGENT_DIR"
_COMMAND_LINE = re.compile(r"^const COMMAND = (\".*\");$", re.MULTILINE)


def agent_dir(env: Mapping[str, str] | None = None) -> Path:
    """Pi's user folder: ``$PI_CODING_AGENT_DIR``, else ``~/.pi/agent``.

    Example:
        >>> str(agent_dir({"HOME": "/home/u"})), str(agent_dir({"PI_CODING_AGENT_DIR": "/p"}))
        ('/home/u/.pi/agent', '/p')
    """
    env = os.environ if env is None else env
    value = (env.get(AGENT_DIR_ENV) or "").strip()
    if value:
        return Path(value).expanduser()
    home = env.get("HOME")
    return (Path(home) if home else Path.home()) / ".pi" / "agent"


def extension_path(
    scope: str, project_dir: str | Path | None = None, env: Mapping[str, str] | None = None
) -> Path:
    """Where earnest's extension lives for ``scope`` (``project`` or ``user``)."""
    if scope == "user":
        return agent_dir(env) / "extensions" / FILENAME
    return Path(project_dir or Path.cwd()) / ".pi" / "extensions" / FILENAME


def render(command: str) -> str:
    """The extension's source with ``command`` in it (a JSON string is a TypeScript string)."""
    template = resources.files("earnest.hooks").joinpath("pi_extension.ts").read_text("utf-8")
    return template.replace("__EARNEST_VERSION__", EXTENSION_VERSION).replace(
        "__EARNEST_COMMAND__", json.dumps(command)
    )


def installed_command(text: str) -> str | None:
    """The command an extension earnest wrote runs (``None``: not earnest's file)."""
    if not text.startswith(MARKER):
        return None
    found = _COMMAND_LINE.search(text)
    if found is None:
        return None
    try:
        value = json.loads(found.group(1))
    except ValueError:
        return None
    return value if isinstance(value, str) else None


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except UnicodeDecodeError as exc:
        raise InputError(path, f"byte {exc.start}", "not UTF-8 text") from None
    except OSError as exc:
        raise InputError(path, None, f"cannot read: {exc.strerror}") from None


def install(path: Path, *, command: str | None = None) -> SettingsChange:
    """Write earnest's extension at ``path`` (idempotent; refuses a file earnest did not write)."""
    command = command or default_command(CLI)
    want = render(command)
    old = _read(path)
    if old is not None and not old.startswith(MARKER):
        raise InputError(
            path, "line 1", "not earnest's extension: a file of this name is left as it is"
        )
    if old == want:
        return SettingsChange(CLI, path, False, EVENTS, command)
    backup = _backup(path) if old is not None else None
    write_atomic(path, want)
    return SettingsChange(CLI, path, True, EVENTS, command, backup=backup)


def uninstall(path: Path) -> SettingsChange:
    """Remove earnest's extension at ``path``; any other file is left alone."""
    old = _read(path)
    if old is None or installed_command(old) is None:
        return SettingsChange(CLI, path, False, (), "")
    command = installed_command(old) or ""
    backup = _backup(path)
    path.unlink()
    return SettingsChange(CLI, path, True, EVENTS, command, backup=backup, removed=1)


def installed_entries(path: Path) -> list[tuple[str, int, int, str]]:
    """``(event, 0, 0, command)`` of earnest's extension at ``path`` (for the doctor)."""
    old = _read(path)
    command = installed_command(old) if old is not None else None
    return [(EVENTS[0], 0, 0, command)] if command else []


__all__ = [
    "AGENT_DIR_ENV",
    "CLI",
    "EXTENSION_VERSION",
    "FILENAME",
    "agent_dir",
    "extension_path",
    "install",
    "installed_command",
    "installed_entries",
    "render",
    "uninstall",
]

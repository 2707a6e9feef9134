"""Install and uninstall earnest's opencode plugin (``earnest hook install opencode``).

opencode loads every ``*.js``/``*.ts`` file in ``.opencode/plugins/`` (project) and
``$XDG_CONFIG_HOME/opencode/plugins/`` (user; default ``~/.config/opencode/plugins/``) as a
plugin. earnest's is one file of its own, ``earnest-effect-gate.js``, made from the template
shipped in this package (``opencode_plugin.js``) with the hook command filled in as an argument
list (it is started without a shell). The user's other plugins are never touched: a second
install rewrites only earnest's file (unchanged when it is the same), a file of that name that
earnest did not write is refused and left as it is, and uninstall removes only earnest's file.

The plugin's first line names it; the second gives the earnest version and the plugin format
(:data:`PLUGIN_FORMAT`, raised when the plugin's protocol with ``earnest hook opencode``
changes).

Example:
    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> path = plugin_path("project", d)
    >>> path.relative_to(d).as_posix()
    '.opencode/plugins/earnest-effect-gate.js'
    >>> install_plugin(path, command="/usr/bin/python3 -m earnest hook opencode").changed
    True
    >>> install_plugin(path, command="/usr/bin/python3 -m earnest hook opencode").changed
    False
    >>> uninstall_plugin(path).removed, path.exists()
    (1, False)
"""

from __future__ import annotations

import json
import os
import shlex
from collections.abc import Mapping
from importlib import resources
from pathlib import Path

from earnest.errors import InputError
from earnest.hooks.settings import Scope, SettingsChange, default_command, write_atomic

CLI = "opencode"
FILENAME = "earnest-effect-gate.js"
MARKER = "// earnest-effect-gate: opencode plugin written by `earnest hook install opencode`."
PLUGIN_FORMAT = 1
TIMEOUT_MS = 30000
EVENTS = ("experimental.text.complete",)


def user_folder(env: Mapping[str, str] | None = None) -> Path:
    """opencode's user config folder: ``$XDG_CONFIG_HOME/opencode``, else ``~/.config/opencode``.

    Example:
        >>> str(user_folder({"XDG_CONFIG_HOME": "/c", "HOME": "/home/u"}))
        '/c/opencode'
        >>> str(user_folder({"HOME": "/home/u"}))
        '/home/u/.config/opencode'
    """
    env = os.environ if env is None else env
    config = (env.get("XDG_CONFIG_HOME") or "").strip()
    if config:
        return Path(config).expanduser() / "opencode"
    home = env.get("HOME")
    return (Path(home) if home else Path.home()) / ".config" / "opencode"


def plugin_path(
    scope: Scope, project_dir: str | Path | None = None, env: Mapping[str, str] | None = None
) -> Path:
    """Where earnest's plugin goes for ``scope``."""
    if scope == "user":
        return user_folder(env) / "plugins" / FILENAME
    return Path(project_dir or Path.cwd()) / ".opencode" / "plugins" / FILENAME


def render_plugin(command: str) -> str:
    """The plugin's source with ``command`` (a shell-quoted command line) as its argv.

    Example:
        >>> "const COMMAND = [\\"/py\\", \\"-m\\", \\"earnest\\", \\"hook\\", \\"opencode\\"]" in (
        ...     render_plugin("/py -m earnest hook opencode"))
        True
    """
    from earnest import __version__

    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise InputError(None, "--command", f"not a command line: {exc}") from None
    if not argv:
        raise InputError(None, "--command", "empty")
    template = resources.files("earnest.hooks").joinpath("opencode_plugin.js").read_text("utf-8")
    return (
        template.replace("__EARNEST_VERSION__", __version__)
        .replace("__PLUGIN_FORMAT__", str(PLUGIN_FORMAT))
        .replace("__EARNEST_COMMAND__", json.dumps(argv))
        .replace("__EARNEST_TIMEOUT_MS__", str(TIMEOUT_MS))
    )


def is_ours(text: str) -> bool:
    """Whether a plugin file's text is earnest's (its first line is :data:`MARKER`)."""
    return text.startswith(MARKER)


def installed_command(text: str) -> list[str] | None:
    """The argv an installed plugin runs (``None`` if it is not earnest's or has none)."""
    if not is_ours(text):
        return None
    for line in text.splitlines():
        if line.startswith("const COMMAND = "):
            try:
                value = json.loads(line.removeprefix("const COMMAND = "))
            except ValueError:
                return None
            if isinstance(value, list) and all(isinstance(v, str) for v in value):
                return value
    return None


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except UnicodeDecodeError:
        return ""  # not earnest's (earnest writes UTF-8)
    except OSError as exc:
        raise InputError(path, None, f"cannot read: {exc.strerror or exc}") from None


def install_plugin(path: Path, *, command: str | None = None) -> SettingsChange:
    """Write earnest's plugin at ``path`` (idempotent; another file there is refused)."""
    command = command or default_command(CLI)
    text = render_plugin(command)
    old = _read(path)
    if old is not None and not is_ours(old):
        raise InputError(
            path, "line 1", "a plugin earnest did not write has this name; left as it is"
        )
    if old == text:
        return SettingsChange(CLI, path, False, EVENTS, command)
    write_atomic(path, text)
    return SettingsChange(CLI, path, True, EVENTS, command)


def uninstall_plugin(path: Path) -> SettingsChange:
    """Remove earnest's plugin at ``path``; any other file is left."""
    old = _read(path)
    if old is None or not is_ours(old):
        return SettingsChange(CLI, path, False, (), "")
    argv = installed_command(old) or []
    path.unlink()
    return SettingsChange(CLI, path, True, EVENTS, shlex.join(argv), removed=1)


# The interface of :data:`earnest.hooks.settings.OWN_INSTALLERS` (a CLI whose hook is a file of
# earnest's own): ``earnest hook install|uninstall|doctor opencode`` go through it.


def extension_path(
    scope: str, project_dir: str | Path | None = None, env: Mapping[str, str] | None = None
) -> Path:
    """:func:`plugin_path` under the name the installer registry calls."""
    return plugin_path("user" if scope == "user" else "project", project_dir, env)


def install(path: Path, *, command: str | None = None) -> SettingsChange:
    """:func:`install_plugin` under the name the installer registry calls."""
    return install_plugin(path, command=command)


def uninstall(path: Path) -> SettingsChange:
    """:func:`uninstall_plugin` under the name the installer registry calls."""
    return uninstall_plugin(path)


def installed_entries(path: Path) -> list[tuple[str, int, int, str]]:
    """``(event, 0, 0, command)`` of earnest's plugin at ``path`` (for the doctor)."""
    old = _read(path)
    argv = installed_command(old) if old else None
    return [(EVENTS[0], 0, 0, shlex.join(argv))] if argv else []


__all__ = [
    "CLI",
    "EVENTS",
    "FILENAME",
    "MARKER",
    "PLUGIN_FORMAT",
    "extension_path",
    "install",
    "install_plugin",
    "installed_command",
    "installed_entries",
    "is_ours",
    "plugin_path",
    "render_plugin",
    "uninstall",
    "uninstall_plugin",
    "user_folder",
]

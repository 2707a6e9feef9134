"""``earnest hook doctor [CLI]``: will the agent CLI actually run the hook you installed?

A hook that is installed but never runs looks exactly like a hook that allows every stop. For
each earnest entry in each CLI's project and user settings, the doctor checks what the CLI
itself checks before it runs a hook, and says what is left to do. It reads; it never changes
a setting, and it never bypasses a CLI's trust.

- **all CLIs**: the settings file is found and parses; the entry's command resolves and runs
  (it is started with ``EARNEST_HOOK_DISABLE=1``, which allows at once); the CLI's version.
- **Claude Code**: ``disableAllHooks`` is not set in that settings file.
- **Gemini CLI**: ``hooks.enabled`` / ``hooksConfig.enabled`` is not false; a project's
  ``.gemini/settings.json`` is read only in a trusted folder (``trustedFolders.json``, or
  ``GEMINI_CLI_TRUST_WORKSPACE=true``).
- **Codex**: a project's ``.codex/hooks.json`` is read only when the project is trusted
  (``[projects."<dir>"] trust_level = "trusted"`` in ``$CODEX_HOME/config.toml``), and any
  hook runs only once the hook itself was reviewed and trusted in the TUI's ``/hooks``
  (Codex keeps ``trusted_hash`` under ``[hooks.state."<file>:stop:<group>:<handler>"]``).
  ``codex exec`` skips an untrusted hook without a word. Codex compares the recorded hash
  with the entry as it is now; earnest cannot recompute that hash, so an entry changed since
  it was trusted (reinstalled with another command) shows "trusted" here and "modified" in
  ``/hooks`` — review it there again.
- **Qwen Code**: ``disableAllHooks`` is not set in that settings file; a project's
  ``.qwen/settings.json`` hooks are read only in a trusted folder, which every folder is unless
  ``security.folderTrust.enabled`` is true in the user settings (then ``trustedFolders.json``
  in ``$QWEN_HOME``, or the file ``QWEN_CODE_TRUSTED_FOLDERS_PATH`` names, decides).
- **GitHub Copilot CLI**: a project's ``.github/hooks/*.json`` is loaded only in a trusted
  folder. ``copilot -p`` trusts one with ``--trust-folder`` (this run only) or
  ``COPILOT_ALLOW_ALL=true`` (exactly "true"), or when the folder is among ``trustedFolders``
  in ``$COPILOT_HOME/config.json`` (kept there when interactive ``copilot`` asked and the
  user said yes). A folder trusted none of these ways is "unknown": the hook runs in a
  ``copilot -p`` started with the flag, never in one started without it. User hooks
  (``~/.copilot/hooks/``) need no trust.

Example:
    >>> import tempfile
    >>> from pathlib import Path
    >>> d = Path(tempfile.mkdtemp())
    >>> [c.verdict for c in diagnose("codex", d, env={"HOME": str(d)}, run_commands=False)]
    []
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from earnest.hooks.settings import (
    CLIS,
    bootstrap_root,
    is_earnest_command,
    own_installer,
    read_settings,
    settings_path,
    spec_for,
    user_folder,
)

Verdict = Literal["runs", "does not run", "unknown"]
VERSION_COMMANDS = {
    "claude-code": "claude",
    "codex": "codex",
    "gemini": "gemini",
    "qwen": "qwen",
    "copilot": "copilot",
    "pi": "pi",
    "cursor": "cursor-agent",
    "opencode": "opencode",
}


@dataclass(frozen=True)
class Check:
    """One thing the CLI needs before it runs the hook: did it hold, and what to do if not."""

    name: str
    ok: bool | None  # None: cannot be known from here
    detail: str
    todo: str = ""


@dataclass(frozen=True)
class HookDiagnosis:
    """One installed earnest entry and whether its CLI will run it."""

    cli: str
    scope: str
    settings: Path
    event: str
    command: str
    checks: tuple[Check, ...]
    cli_version: str | None = None

    @property
    def verdict(self) -> Verdict:
        if any(c.ok is False for c in self.checks):
            return "does not run"
        if any(c.ok is None for c in self.checks):
            return "unknown"
        return "runs"

    @property
    def todo(self) -> tuple[str, ...]:
        return tuple(c.todo for c in self.checks if c.ok is not True and c.todo)

    def as_json(self) -> dict[str, Any]:
        return {
            "cli": self.cli,
            "scope": self.scope,
            "settings": str(self.settings),
            "event": self.event,
            "command": self.command,
            "verdict": self.verdict,
            "cli_version": self.cli_version,
            "checks": [
                {"name": c.name, "ok": c.ok, "detail": c.detail, "todo": c.todo or None}
                for c in self.checks
            ],
        }


@dataclass
class _Context:
    cli: str
    project: Path
    env: Mapping[str, str]
    run_commands: bool
    version: str | None = None
    notes: list[str] = field(default_factory=list)


# ---------------------------------------------------------------------------- entries


def installed_entries(path: Path, cli: str) -> list[tuple[str, int, int, str]]:
    """``(event, group index, handler index, command)`` of earnest's entries in ``path``."""
    own = own_installer(cli)
    if own is not None:
        entries: list[tuple[str, int, int, str]] = own.installed_entries(path)
        return entries
    data, existed = read_settings(path)
    if not existed:
        return []
    hooks = data.get("hooks")
    found: list[tuple[str, int, int, str]] = []
    if not isinstance(hooks, dict):
        return found
    spec = spec_for(cli)
    for event, groups in hooks.items():
        if not isinstance(groups, list):
            continue
        if spec.flat:  # Copilot: the handlers are the event's list itself
            for h, handler in enumerate(groups):
                command = handler.get(spec.command_key) if isinstance(handler, dict) else None
                if isinstance(command, str) and is_earnest_command(command, cli):
                    found.append((str(event), 0, h, command))
            continue
        for g, group in enumerate(groups):
            handlers = group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(handlers, list):
                continue
            for h, handler in enumerate(handlers):
                command = handler.get("command") if isinstance(handler, dict) else None
                if isinstance(command, str) and is_earnest_command(command, cli):
                    found.append((str(event), g, h, command))
    return found


# ---------------------------------------------------------------------------- checks


def command_check(command: str, env: Mapping[str, str], run: bool = True) -> Check:
    """Does the command resolve, and does it start? (Run with the hook disabled.)"""
    try:
        words = shlex.split(command)
    except ValueError as exc:
        return Check("command", False, f"cannot be split into words: {exc}", "reinstall the hook")
    words = [w for w in words if not ("=" in w and w.split("=", 1)[0].isidentifier())] or words
    program = words[0]
    resolved = program if os.sep in program else shutil.which(program, path=env.get("PATH"))
    if resolved is None or not os.access(resolved, os.X_OK):
        return Check(
            "command",
            False,
            f"{program!r} is not found or not executable (the CLI runs it with its own PATH)",
            "reinstall with `earnest hook install CLI`: it writes this Python's absolute path",
        )
    root = bootstrap_root(command)
    if root is not None and not (root / "earnest" / "__init__.py").is_file():
        return Check(
            "command",
            False,
            f"earnest is no longer in {root} (the folder the command imports it from)",
            "reinstall with `earnest hook install CLI` from the Python that has earnest",
        )
    if not run:
        return Check("command", True, f"resolves to {resolved}")
    child_env = dict(env)
    child_env["EARNEST_HOOK_DISABLE"] = "1"
    try:
        ran = subprocess.run(
            words, input="{}", capture_output=True, text=True, env=child_env, timeout=60
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return Check("command", False, f"{resolved} does not start: {exc}", "reinstall the hook")
    if ran.returncode != 0:
        last = (ran.stderr.strip().splitlines() or [""])[-1][:200]
        return Check(
            "command",
            False,
            f"{resolved} exits {ran.returncode}: {last}",
            "reinstall from a Python that has earnest installed",
        )
    return Check("command", True, f"resolves to {resolved} and starts (exit 0)")


def cli_version(cli: str, env: Mapping[str, str]) -> str | None:
    """``<cli> --version`` of the CLI on PATH, or None when it is not installed."""
    exe = shutil.which(VERSION_COMMANDS[cli], path=env.get("PATH"))
    if exe is None:
        return None
    try:
        ran = subprocess.run(
            [exe, "--version"], capture_output=True, text=True, env=dict(env), timeout=30
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    text = (ran.stdout.strip() or ran.stderr.strip()).splitlines()
    return text[0][:100] if text else None


def _toml(path: Path) -> dict[str, Any]:
    import tomllib

    from earnest.errors import InputError

    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except FileNotFoundError:
        return {}
    except tomllib.TOMLDecodeError as exc:
        raise InputError(path, None, f"invalid TOML: {exc}") from None
    except OSError as exc:
        raise InputError(path, None, f"cannot read: {exc.strerror}") from None


def project_root(folder: Path) -> Path:
    """The folder Codex trusts for a project: the nearest one up with ``.git`` in it."""
    folder = folder.resolve()
    for candidate in (folder, *folder.parents):
        if (candidate / ".git").exists():
            return candidate
    return folder


def _spellings(path: Path) -> list[str]:
    out = [str(path), str(path.resolve())]
    return list(dict.fromkeys(out))


def codex_project_check(project: Path, config_path: Path, config: dict[str, Any]) -> Check:
    root = project_root(project)
    projects = config.get("projects")
    level = None
    if isinstance(projects, dict):
        for key in _spellings(root) + _spellings(project):
            entry = projects.get(key)
            if isinstance(entry, dict) and isinstance(entry.get("trust_level"), str):
                level = entry["trust_level"]
                break
    todo = (
        f'add to {config_path}:\n    [projects."{root}"]\n    trust_level = "trusted"\n'
        f"  (or answer yes when `codex` asks whether to trust {root})"
    )
    if level == "trusted":
        return Check("codex project trust", True, f"{root} is trusted in {config_path}")
    if level is None:
        return Check(
            "codex project trust",
            False,
            f"{root} has no trust_level in {config_path}: Codex reads no project "
            ".codex/ files there",
            todo,
        )
    return Check(
        "codex project trust", False, f"{root} has trust_level = {level!r} in {config_path}", todo
    )


def codex_hook_key(hooks_file: Path, event: str, group: int, handler: int) -> str:
    """The key Codex files a hook's review under in ``[hooks.state]``."""
    label = "".join("_" + c.lower() if c.isupper() else c for c in event).lstrip("_")
    return f"{hooks_file}:{label}:{group}:{handler}"


def codex_hook_check(
    hooks_file: Path, event: str, group: int, handler: int, config_path: Path, config: Any
) -> Check:
    hooks = config.get("hooks") if isinstance(config, dict) else None
    states = hooks.get("state") if isinstance(hooks, dict) else None
    state: dict[str, Any] | None = None
    keys = [codex_hook_key(Path(p), event, group, handler) for p in _spellings(hooks_file)]
    if isinstance(states, dict):
        for key in keys:
            if isinstance(states.get(key), dict):
                state = states[key]
                break
    todo = (
        "start `codex` in the project, open `/hooks`, review earnest's Stop hook and trust it "
        f"(Codex records it under [hooks.state] in {config_path}); until then `codex exec` "
        "skips it without a word. earnest never bypasses this review."
    )
    if state is None:
        return Check(
            "codex hook trust", False, f"not reviewed: no [hooks.state] entry {keys[0]!r}", todo
        )
    if state.get("enabled") is False:
        return Check(
            "codex hook trust",
            False,
            f"disabled in /hooks ([hooks.state] {keys[0]!r} enabled = false)",
            "enable it again in codex's `/hooks`",
        )
    if not isinstance(state.get("trusted_hash"), str):
        return Check(
            "codex hook trust", False, f"not trusted: {keys[0]!r} has no trusted_hash", todo
        )
    return Check(
        "codex hook trust",
        True,
        f"trusted in /hooks ({state['trusted_hash'][:19]}…; if the entry changed since, "
        "/hooks shows it modified: review it again)",
    )


def codex_features_check(config: dict[str, Any], config_path: Path) -> Check | None:
    features = config.get("features")
    if isinstance(features, dict) and features.get("hooks") is False:
        return Check(
            "codex hooks feature",
            False,
            f"[features] hooks = false in {config_path}",
            f"set [features] hooks = true in {config_path}",
        )
    return None


def _gemini_trusted(project: Path, env: Mapping[str, str]) -> Check:
    if (env.get("GEMINI_CLI_TRUST_WORKSPACE") or "").strip().lower() == "true":
        return Check("gemini folder trust", True, "GEMINI_CLI_TRUST_WORKSPACE=true")
    folders_file = user_folder("gemini", env) / "trustedFolders.json"
    data, existed = read_settings(folders_file)
    todo = (
        f"trust {project} when `gemini` asks (kept in {folders_file}), or run gemini with "
        "GEMINI_CLI_TRUST_WORKSPACE=true / --skip-trust"
    )
    if not existed:
        return Check(
            "gemini folder trust",
            None,
            f"no {folders_file}: whether {project} is trusted depends on security.folderTrust",
            todo,
        )
    resolved = project.resolve()
    for key, level in data.items():
        try:
            folder = Path(key).expanduser().resolve()
        except (OSError, RuntimeError):
            continue
        if level == "DO_NOT_TRUST" and folder == resolved:
            return Check("gemini folder trust", False, f"{project} is DO_NOT_TRUST", todo)
        if (level == "TRUST_FOLDER" and folder == resolved) or (
            level == "TRUST_PARENT" and resolved.is_relative_to(folder.parent)
        ):
            return Check("gemini folder trust", True, f"{key} is {level} in {folders_file}")
    return Check(
        "gemini folder trust",
        False,
        f"{project} is not in {folders_file}: its settings are ignored",
        todo,
    )


def _qwen_rule(folders_file: Path, project: Path) -> tuple[str, str] | None:
    """``(key, level)`` of the ``trustedFolders.json`` rule that decides ``project`` as Qwen
    Code decides it: a folder within a ``TRUST_FOLDER`` (or within a ``TRUST_PARENT``'s parent)
    is trusted; else an exact ``DO_NOT_TRUST`` is not; ``None`` when no rule applies."""
    data, _ = read_settings(folders_file)
    resolved = project.resolve()
    refused: tuple[str, str] | None = None
    for key, level in data.items():
        try:
            folder = Path(key).expanduser().resolve()
        except (OSError, RuntimeError):
            continue
        if (level == "TRUST_FOLDER" and resolved.is_relative_to(folder)) or (
            level == "TRUST_PARENT" and resolved.is_relative_to(folder.parent)
        ):
            return key, level
        if level == "DO_NOT_TRUST" and folder == resolved:
            refused = (key, level)
    return refused


def _qwen_trusted(project: Path, env: Mapping[str, str]) -> Check:
    user, _ = read_settings(settings_path("qwen", "user", env=env))
    security = user.get("security")
    trust = security.get("folderTrust") if isinstance(security, dict) else None
    if not (isinstance(trust, dict) and trust.get("enabled") is True):
        return Check(
            "qwen folder trust", True, "folder trust is off (security.folderTrust.enabled)"
        )
    explicit = (env.get("QWEN_CODE_TRUSTED_FOLDERS_PATH") or "").strip()
    folders_file = Path(explicit) if explicit else user_folder("qwen", env) / "trustedFolders.json"
    todo = f"trust {project} when `qwen` asks (kept in {folders_file})"
    rule = _qwen_rule(folders_file, project)
    if rule is None or rule[1] == "DO_NOT_TRUST":
        why = f"{project} is DO_NOT_TRUST" if rule else f"{project} is not in {folders_file}"
        return Check(
            "qwen folder trust", False, f"{why}: its .qwen/settings.json hooks are ignored", todo
        )
    return Check("qwen folder trust", True, f"{rule[0]} is {rule[1]} in {folders_file}")


def copilot_trusted_folders(config: Path) -> list[str]:
    """``trustedFolders`` of Copilot's ``config.json`` (JSON after its ``//`` comment lines);
    ``[]`` when the file is missing or unreadable.

    Example:
        >>> import tempfile
        >>> p = Path(tempfile.mkdtemp()) / "config.json"
        >>> _ = p.write_text('// managed\\n{"trustedFolders": ["/w/app"]}\\n')
        >>> copilot_trusted_folders(p)
        ['/w/app']
    """
    import json

    try:
        text = config.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return []
    body = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("//"))
    try:
        data = json.loads(body) if body.strip() else {}
    except ValueError:
        return []
    folders = data.get("trustedFolders") if isinstance(data, dict) else None
    return [f for f in folders if isinstance(f, str)] if isinstance(folders, list) else []


def _copilot_trusted(project: Path, env: Mapping[str, str]) -> Check:
    name = "copilot folder trust"
    if (env.get("COPILOT_ALLOW_ALL") or "").strip() == "true":
        return Check(name, True, "COPILOT_ALLOW_ALL=true trusts every folder")
    config = user_folder("copilot", env) / "config.json"
    wanted = set(_spellings(project)) | set(_spellings(project_root(project)))
    for folder in copilot_trusted_folders(config):
        if folder in wanted or str(Path(folder).expanduser().resolve()) in wanted:
            return Check(name, True, f"{folder} is in trustedFolders in {config}")
    return Check(
        name,
        None,
        f"{project} is not in trustedFolders in {config}: `copilot -p` loads its "
        ".github/hooks only when started with --trust-folder or COPILOT_ALLOW_ALL=true",
        "run `copilot -p ... --trust-folder` (trusts the folder for that run), or set "
        "COPILOT_ALLOW_ALL=true, or trust the folder once when interactive `copilot` asks "
        f"(kept in {config}). Trusting a folder lets its hooks, MCP servers and skills run.",
    )


def _settings_checks(ctx: _Context, scope: str, path: Path) -> list[Check]:
    if own_installer(ctx.cli) is not None:
        return []  # a file of earnest's own, loaded whenever the CLI starts there
    data, _ = read_settings(path)
    checks: list[Check] = []
    if ctx.cli in ("claude-code", "qwen") and data.get("disableAllHooks") is True:
        checks.append(
            Check(
                f"{'claude' if ctx.cli == 'claude-code' else 'qwen'} hooks enabled",
                False,
                f"disableAllHooks is true in {path}",
                f"remove disableAllHooks from {path}",
            )
        )
    if ctx.cli == "qwen" and scope == "project":
        checks.append(_qwen_trusted(ctx.project, ctx.env))
    if ctx.cli == "copilot" and scope == "project":
        checks.append(_copilot_trusted(ctx.project, ctx.env))
    if ctx.cli == "gemini":
        for table in ("hooks", "hooksConfig"):
            section = data.get(table)
            if isinstance(section, dict) and section.get("enabled") is False:
                checks.append(
                    Check(
                        "gemini hooks enabled",
                        False,
                        f"{table}.enabled is false in {path}",
                        f"set {table}.enabled to true in {path} (or turn hooks on in /settings)",
                    )
                )
        if scope == "project":
            checks.append(_gemini_trusted(ctx.project, ctx.env))
    if ctx.cli == "codex":
        config_path = user_folder("codex", ctx.env) / "config.toml"
        config = _toml(config_path)
        features = codex_features_check(config, config_path)
        if features is not None:
            checks.append(features)
        if scope == "project":
            checks.append(codex_project_check(ctx.project, config_path, config))
    return checks


# ---------------------------------------------------------------------------- diagnose


def diagnose(
    cli: str,
    project: str | Path | None = None,
    *,
    env: Mapping[str, str] | None = None,
    run_commands: bool = True,
) -> list[HookDiagnosis]:
    """Every earnest entry for ``cli`` in the project's and the user's settings, checked."""
    if cli not in CLIS:
        spec_for(cli)  # the error naming the CLIs
    env = dict(os.environ if env is None else env)
    folder = Path(project) if project is not None else Path.cwd()
    ctx = _Context(cli, folder, env, run_commands)
    found: list[HookDiagnosis] = []
    version_known = False
    for scope in ("project", "user"):
        path = settings_path(cli, scope, folder, env=env)  # type: ignore[arg-type]
        entries = installed_entries(path, cli)
        if not entries:
            continue
        if not version_known:
            ctx.version = cli_version(cli, env) if run_commands else None
            version_known = True
        shared = _settings_checks(ctx, scope, path)
        for event, group, handler, command in entries:
            checks = [Check("settings", True, f"{path} parses; {event} entry found")]
            checks.append(command_check(command, env, run=run_commands))
            checks.extend(shared)
            if cli == "codex":
                config_path = user_folder("codex", env) / "config.toml"
                checks.append(
                    codex_hook_check(path, event, group, handler, config_path, _toml(config_path))
                )
            if run_commands and ctx.version is None:
                checks.append(
                    Check(
                        "cli installed",
                        None,
                        f"{VERSION_COMMANDS[cli]} is not on PATH here",
                        f"install {VERSION_COMMANDS[cli]} (or run the doctor where it is)",
                    )
                )
            found.append(
                HookDiagnosis(cli, scope, path, event, command, tuple(checks), ctx.version)
            )
    return found


def diagnose_all(
    clis: tuple[str, ...] = CLIS, project: str | Path | None = None, **kw: Any
) -> list[HookDiagnosis]:
    return [d for cli in clis for d in diagnose(cli, project, **kw)]


def install_advice(
    cli: str, settings: Path, project: Path, env: Mapping[str, str] | None = None
) -> tuple[bool, list[str]]:
    """After ``earnest hook install``: ``(certain, to do)`` — what the user still has to do
    for the CLI to run the hook, and whether it certainly will not run until then."""
    env = dict(os.environ if env is None else env)
    scope = "user" if settings == settings_path(cli, "user", project, env=env) else "project"
    lines: list[str] = []
    certain = False
    for diag in diagnose(cli, project, env=env, run_commands=False):
        if diag.settings != settings or diag.scope != scope:
            continue
        certain = certain or diag.verdict == "does not run"
        for todo in diag.todo:
            if todo not in lines:
                lines.append(todo)
    return certain, lines


def render_text(diagnoses: list[HookDiagnosis], clis: tuple[str, ...]) -> str:
    out: list[str] = []
    seen = {d.cli for d in diagnoses}
    for cli in clis:
        if cli not in seen:
            out.append(f"{cli}: no earnest hook installed (earnest hook install {cli})")
    for d in diagnoses:
        version = f" ({d.cli_version})" if d.cli_version else ""
        out.append(f"{d.cli}{version} {d.scope} {d.event}: {d.verdict.upper()} — {d.settings}")
        out.append(f"  command: {d.command}")
        for c in d.checks:
            mark = {True: "ok", False: "NO", None: "??"}[c.ok]
            out.append(f"  [{mark}] {c.name}: {c.detail}")
            if c.ok is not True and c.todo:
                out.append("       to do: " + c.todo.replace("\n", "\n       "))
    return "\n".join(out) + "\n"


__all__ = [
    "Check",
    "HookDiagnosis",
    "cli_version",
    "codex_hook_key",
    "command_check",
    "copilot_trusted_folders",
    "diagnose",
    "diagnose_all",
    "install_advice",
    "installed_entries",
    "project_root",
    "render_text",
]

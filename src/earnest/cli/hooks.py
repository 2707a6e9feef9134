"""Stop-hook commands: ``earnest hook install|uninstall CLI``, ``earnest hook doctor [CLI]``,
and the adapters' help.

The adapters themselves (``earnest hook claude-code`` and friends) are dispatched by
``earnest.__main__`` before Typer is imported; the commands registered here for them only
make them show up in ``earnest hook --help`` and run the same code if reached.
"""

from __future__ import annotations

import json
from enum import StrEnum
from pathlib import Path

import typer

from earnest.cli import app

hook_app = typer.Typer(
    name="hook",
    help=(
        "Stop hooks for agent CLIs (Claude Code, Gemini CLI, Codex, Qwen Code, GitHub Copilot CLI, Pi, Cursor, opencode): block a stop whose run "
        "claims work that left no verifiable effect.  Install with "
        "`earnest hook install claude-code`."
    ),
    no_args_is_help=True,
    add_completion=False,
)
app.add_typer(hook_app, name="hook")


class CliName(StrEnum):
    claude_code = "claude-code"
    gemini = "gemini"
    codex = "codex"
    qwen = "qwen"
    copilot = "copilot"
    pi = "pi"
    cursor = "cursor"
    opencode = "opencode"


class OutputFormat(StrEnum):
    text = "text"
    json = "json"


_NOTES = {
    "gemini": (
        "Gemini CLI runs hooks only while its hooks system is on: check `/hooks panel` "
        "(turn it on under /settings if it says disabled)."
    ),
    "opencode": (
        "opencode cannot veto a stop: earnest's plugin re-prompts the agent after a "
        "completion without effect (up to max_downgrades times). Offline, opencode waits "
        "for `npm install @opencode-ai/plugin` in the plugins' folder first: see "
        "docs/stop-hooks.md (opencode)."
    ),
}


def _scope(project: bool, user: bool, directory: Path | None) -> str:
    if project and user:
        raise typer.BadParameter("choose one of --project and --user", param_hint="--user")
    if user and directory is not None:
        raise typer.BadParameter("--dir names a project folder; it cannot go with --user")
    if directory is not None and not directory.is_dir():
        raise typer.BadParameter(f"not a folder: {directory}", param_hint="--dir")
    return "user" if user else "project"


_CLI_ARG = typer.Argument(
    ..., help="The agent CLI: claude-code, gemini, codex, qwen, copilot, pi, cursor or opencode."
)
_PROJECT = typer.Option(
    False, "--project", help="The project's settings under --dir or the current folder (default)."
)
_USER = typer.Option(
    False,
    "--user",
    help="Your user settings, where the CLI looks: $CLAUDE_CONFIG_DIR (else ~/.claude), "
    "$CODEX_HOME (else ~/.codex), $GEMINI_CLI_HOME/.gemini (else ~/.gemini), "
    "$QWEN_HOME (else ~/.qwen), $COPILOT_HOME/hooks (else ~/.copilot/hooks), "
    "$PI_CODING_AGENT_DIR/extensions (else ~/.pi/agent/extensions), ~/.cursor/hooks.json, "
    "$XDG_CONFIG_HOME/opencode/plugins (else ~/.config/opencode/plugins).",
)
_DIR = typer.Option(None, "--dir", help="The project folder (default: the current folder).")
_FORMAT = typer.Option(
    OutputFormat.text,
    "--format",
    help='text, or json: {"cli", "settings", "changed", "events", "command", "backup", "removed"}.',
)


@hook_app.command("install")
def install(
    cli: CliName = _CLI_ARG,
    project: bool = _PROJECT,
    user: bool = _USER,
    directory: Path | None = _DIR,
    command: str | None = typer.Option(
        None,
        "--command",
        help="The command the CLI should run (default: this Python by its absolute path, "
        "`-m earnest hook CLI`, which works when the CLI starts without your venv).",
    ),
    fmt: OutputFormat = _FORMAT,
) -> None:
    """Add earnest's stop hook to the CLI's settings, keeping everything already there.

    Idempotent; the previous file is kept as settings.json.bak-<timestamp>; a settings file that is not valid JSON is refused (exit 2) and left untouched.
    """
    from earnest.hooks.settings import install_hook, settings_path

    scope = _scope(project, user, directory)
    path = settings_path(cli.value, scope, directory)  # type: ignore[arg-type]
    change = install_hook(cli.value, path, command=command)
    if fmt is OutputFormat.json:
        print(json.dumps(change.as_json(), indent=2))
        return
    events = ", ".join(change.events)
    if change.changed:
        print(f"earnest: installed the stop hook for {cli.value} in {path} ({events})")
        print(f"  command: {change.command}")
        if change.backup:
            print(f"  backup of the previous file: {change.backup}")
    else:
        print(f"earnest: the stop hook for {cli.value} is already in {path} (no change)")
    note = _NOTES.get(cli.value)
    if note:
        print(f"  note: {note}")
    from earnest.hooks.bytecode import compile_package

    compiled, problem = compile_package()
    if not compiled:
        print(f"  note: bytecode not compiled ({problem}); every stop will compile it again")
    from earnest.hooks.doctor import install_advice

    certain, advice = install_advice(cli.value, path, Path(directory or Path.cwd()))
    if advice:
        lead = "will not run it yet" if certain else "may not run it"
        print(f"  {cli.value} {lead}. Still to do:")
        for n, line in enumerate(advice, 1):
            print(f"  {n}. " + line.replace("\n", "\n     "))
    print(f"  Check with: earnest hook doctor {cli.value}")


@hook_app.command("uninstall")
def uninstall(
    cli: CliName = _CLI_ARG,
    project: bool = _PROJECT,
    user: bool = _USER,
    directory: Path | None = _DIR,
    fmt: OutputFormat = _FORMAT,
) -> None:
    """Remove earnest's own stop-hook entries from the CLI's settings; nothing else changes."""
    from earnest.hooks.settings import settings_path, uninstall_hook

    scope = _scope(project, user, directory)
    path = settings_path(cli.value, scope, directory)  # type: ignore[arg-type]
    change = uninstall_hook(cli.value, path)
    if fmt is OutputFormat.json:
        print(json.dumps(change.as_json(), indent=2))
        return
    if change.changed:
        print(
            f"earnest: removed {change.removed} stop-hook entr{'y' if change.removed == 1 else 'ies'} "
            f"for {cli.value} from {path}"
        )
        if change.backup:
            print(f"  backup of the previous file: {change.backup}")
    else:
        print(f"earnest: no earnest stop hook for {cli.value} in {path} (no change)")


@hook_app.command("doctor")
def doctor(
    cli: CliName | None = typer.Argument(
        None, help="The agent CLI to check (default: all of them)."
    ),
    directory: Path | None = _DIR,
    fmt: OutputFormat = typer.Option(
        OutputFormat.text,
        "--format",
        help='text, or json: a list of {"cli", "scope", "settings", "event", "command", '
        '"verdict", "cli_version", "checks"}.',
    ),
) -> None:
    """Report, for each installed earnest hook, whether the CLI will actually run it.

    Checks the settings file, that the command resolves and starts, the CLI's own switches
    and trust (Codex: project trust_level and the hook's review in /hooks; Gemini: folder
    trust), and the CLI's version. Reads only; never bypasses a CLI's trust. Exit 1 when an
    installed hook will not run.
    """
    from earnest.hooks.doctor import diagnose_all, render_text
    from earnest.hooks.settings import CLIS

    if directory is not None and not directory.is_dir():
        raise typer.BadParameter(f"not a folder: {directory}", param_hint="--dir")
    clis = (cli.value,) if cli is not None else CLIS
    found = diagnose_all(clis, directory)
    if fmt is OutputFormat.json:
        print(json.dumps([d.as_json() for d in found], indent=2))
    else:
        print(render_text(found, clis), end="")
    if any(d.verdict == "does not run" for d in found):
        raise typer.Exit(1)


def _adapter_command(name: str) -> None:
    def command() -> None:
        from earnest.hooks.entry import run_hook

        raise typer.Exit(run_hook([name]))

    command.__doc__ = (
        f"Run as {name}'s stop hook: read its hook JSON on stdin, print the decision. "
        "Always exits 0."
    )
    hook_app.command(name)(command)


for _name in ("claude-code", "gemini", "codex", "qwen", "copilot", "pi", "cursor", "opencode"):
    _adapter_command(_name)

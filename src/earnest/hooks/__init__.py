"""Stop hooks: the effect gate (ADR-010) inside the agent CLIs people use.

``earnest hook claude-code`` (Stop, SubagentStop), ``earnest hook gemini`` (AfterAgent),
``earnest hook codex`` (Stop), ``earnest hook qwen`` (Stop) and ``earnest hook copilot``
(agentStop) read the hook's JSON on stdin
and the session transcript, and block a stop whose run claims work that left no verifiable effect — at most
``max_downgrades`` times per user prompt. ``earnest hook install CLI`` adds the hook to the
CLI's settings. Everything imported here is standard-library only, and each public name is
imported on first use; the trajectory reader and the effect gate are imported when a stop
is judged.

Example:
    >>> from earnest.hooks import HookOutcome
    >>> HookOutcome.block("completion-without-effect: nothing written").reason[:25]
    'completion-without-effect'
"""

from __future__ import annotations

from earnest._lazy import lazy_getattr

TYPE_CHECKING = False  # not typing's: importing typing costs every stop ~3 ms
if TYPE_CHECKING:
    from earnest.hooks.config import HookConfig, load_hook_config
    from earnest.hooks.core import EXHAUSTED, RunView, decide
    from earnest.hooks.entry import ADAPTERS, DISABLE_ENV, run_hook
    from earnest.hooks.outcome import HookOutcome
    from earnest.hooks.settings import (
        CLIS,
        SettingsChange,
        install_hook,
        settings_path,
        uninstall_hook,
    )
    from earnest.hooks.state import SessionState, StateStore, default_state_dir
    from earnest.hooks.stdin import HookPayload

# Where each public name lives. Imported on first use: ``earnest hook <cli>`` imports
# ``earnest.hooks.entry``, which runs this file first, and a stop must not pay for
# ``install``/``uninstall`` or the effect gate before it needs them.
_HOME = {
    "HookConfig": "config",
    "load_hook_config": "config",
    "EXHAUSTED": "core",
    "RunView": "core",
    "decide": "core",
    "ADAPTERS": "entry",
    "DISABLE_ENV": "entry",
    "run_hook": "entry",
    "HookOutcome": "outcome",
    "CLIS": "settings",
    "SettingsChange": "settings",
    "install_hook": "settings",
    "settings_path": "settings",
    "uninstall_hook": "settings",
    "SessionState": "state",
    "StateStore": "state",
    "default_state_dir": "state",
    "HookPayload": "stdin",
}


__getattr__ = lazy_getattr(__name__, _HOME, globals())


__all__ = [
    "ADAPTERS",
    "CLIS",
    "DISABLE_ENV",
    "EXHAUSTED",
    "HookConfig",
    "HookOutcome",
    "HookPayload",
    "RunView",
    "SessionState",
    "SettingsChange",
    "StateStore",
    "decide",
    "default_state_dir",
    "install_hook",
    "load_hook_config",
    "run_hook",
    "settings_path",
    "uninstall_hook",
]

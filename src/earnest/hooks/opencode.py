"""``earnest hook opencode``: the effect gate inside opencode, through earnest's plugin.

opencode has no command hooks and no stop that a hook can veto. ``earnest hook install
opencode`` writes a small plugin (:mod:`earnest.hooks.opencode_plugin`) that opencode loads
from ``.opencode/plugins/``; in the ``experimental.text.complete`` hook — which opencode's
agent loop waits for — it runs this command with ``{hook_event_name: "text.complete",
session_id, message_id, part_id, cwd, last_assistant_message}`` on stdin. When the answer is
``{"decision": "block", "reason": ...}`` the plugin queues the reason as a user message
(``client.session.prompt`` with ``noReply: true``); the running loop finds a user message newer
than its last answer and gives it to the model. So the agent is re-prompted after it stopped,
not stopped from stopping.

The run's tool calls come from opencode's session database (``OPENCODE_DB``, else
``$XDG_DATA_HOME/opencode/opencode.db``, else ``~/.local/share/opencode/opencode.db``), read
read-only by :mod:`earnest.trajectory` as format ``opencode``.

``text.complete`` fires for every text the model writes, before it is known whether tool calls
follow in the same step. A text whose assistant message already holds a tool call is no stop:
it is allowed without being judged and without touching the block budget. (With the
OpenAI-compatible providers opencode ends a text only when the step's stream ends, after its
tool calls; a provider that ends the text first is judged on it — see docs/stop-hooks.md.)

Example:
    >>> render(HookOutcome.block("completion-without-effect: nothing written"))
    '{"decision": "block", "reason": "completion-without-effect: nothing written"}'
    >>> render(HookOutcome.allow())
    ''
"""

from __future__ import annotations

import os
from pathlib import Path

from earnest.errors import InputError
from earnest.hooks.core import RunView, check_transcript, decide, settle, stop_to_judge
from earnest.hooks.outcome import HookOutcome, decision_json
from earnest.hooks.state import StateStore
from earnest.hooks.stdin import STDIN

TYPE_CHECKING = False  # not typing's: importing typing costs every stop ~3 ms
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

CLI = "opencode"
STOP_EVENTS = ("text.complete",)
FORMAT = "opencode"


def render(outcome: HookOutcome) -> str:
    """What the plugin reads: Claude Code's shape."""
    return decision_json(outcome)


def database_path(env: Mapping[str, str] | None = None) -> Path:
    """Where opencode keeps its sessions, as opencode finds it.

    Example:
        >>> str(database_path({"HOME": "/home/u"}))
        '/home/u/.local/share/opencode/opencode.db'
        >>> str(database_path({"XDG_DATA_HOME": "/d", "OPENCODE_DB": "mine.db"}))
        '/d/opencode/mine.db'
        >>> str(database_path({"OPENCODE_DB": "/srv/oc.db"}))
        '/srv/oc.db'
    """
    env = os.environ if env is None else env
    data = (env.get("XDG_DATA_HOME") or "").strip()
    if data:
        base = Path(data) / "opencode"
    else:
        home = env.get("HOME")
        base = (Path(home) if home else Path.home()) / ".local" / "share" / "opencode"
    named = (env.get("OPENCODE_DB") or "").strip()
    if named:
        return Path(named) if Path(named).is_absolute() else base / named
    return base / "opencode.db"


def read_session(db: Path, session_id: str) -> Any:
    """The current run of one opencode session (``InputError`` when it cannot be read)."""
    from earnest.trajectory import ReadReport, read_trajectories

    check_transcript(db)
    report = ReadReport()
    runs = list(
        read_trajectories(db, format=FORMAT, report=report, run_only=True, session_id=session_id)
    )
    if not runs:
        problems = "; ".join(w.message for w in report.warnings[:2]) if report.warnings else ""
        detail = f" ({problems})" if problems else ""
        raise InputError(db, None, f"session {session_id!r} not found{detail}")
    return runs[-1]


def handle(data: bytes, store: StateStore | None = None) -> str:
    """Judge one completed text; returns what to print on stdout."""
    stop = stop_to_judge(data, STOP_EVENTS)
    if stop is None:
        return ""
    payload, cwd, config = stop
    session_id = payload.session_id
    if not session_id:
        raise InputError(STDIN, "session_id", "missing: the session cannot be read")
    trajectory = read_session(database_path(), session_id)
    message_id = payload.text("message_id")
    meta = trajectory.metadata
    if meta.get("last_message_tool_calls") and message_id == meta.get("last_message_id"):
        return ""  # tool calls follow this text in the same step: the turn goes on
    run = RunView.from_trajectory(trajectory, final_text=payload.text("last_assistant_message"))
    store = store or StateStore()
    state = store.load(CLI, session_id)
    return render(settle(store, state, lambda s: decide(run, config, cwd, s)))


__all__ = ["CLI", "FORMAT", "STOP_EVENTS", "database_path", "handle", "read_session", "render"]

"""``earnest hook gemini``: the effect gate as a Gemini CLI AfterAgent hook.

Gemini CLI sends ``{session_id, transcript_path, cwd, hook_event_name: "AfterAgent",
timestamp, prompt, prompt_response, stop_hook_active}`` once per turn, after the model's final
response. ``prompt`` is the user's request and ``prompt_response`` the agent's answer (after a deny, the
whole turn's answers joined: only the newest is judged, :func:`latest_answer`); the tool
calls come from the session's chat log at ``transcript_path`` (format ``gemini-cli-session``:
the ``session-*.json`` document, or Gemini 0.6x's ``session-*.jsonl``; a ``stream-json`` log
is read too). Only the current run is parsed, from the last prompt found backwards, when the
log is laid out as Gemini writes it (the reader falls back to a whole read otherwise). To reject the answer the hook prints ``{"decision": "deny", "reason": ...}``:
Gemini sends the reason to the agent as a new prompt and retries.

What it can see: the turn's tool calls as recorded in the chat log, with their status and
output. What it cannot: a turn whose log cannot be read (the stop is allowed, with a line on
stderr), and anything done outside the tools.

Example:
    >>> render(HookOutcome.block("completion-without-effect: nothing written"))
    '{"decision": "deny", "reason": "completion-without-effect: nothing written"}'
    >>> render(HookOutcome.allow())
    '{}'
"""

from __future__ import annotations

from dataclasses import replace

from earnest._digest import sha256_hex
from earnest.errors import InputError
from earnest.hooks.catchup import once_created
from earnest.hooks.core import RunView, decide, read_document_run, settle, stop_to_judge
from earnest.hooks.outcome import HookOutcome, decision_json
from earnest.hooks.state import StateStore
from earnest.hooks.stdin import STDIN

CLI = "gemini"
FORMATS = ("gemini-cli-session", "gemini-cli-stream")
REASON_PREFIXES = ("completion-without-effect", "unverified-claim")


def render(outcome: HookOutcome) -> str:
    """Gemini's JSON; it wants JSON on stdout even when it has nothing to say."""
    return decision_json(outcome, block="deny", allow="{}")


def latest_answer(response: str, logged: str) -> str:
    """The agent's newest message out of ``prompt_response``.

    After a deny, Gemini's ``prompt_response`` holds the whole turn, every answer joined by a
    newline, the over-claim that was denied included; only the newest answer is the claim to
    judge. The chat log's last model message is that answer when the log is current; when it
    lags one message behind, the newest answer is what follows it.

    Example:
        >>> latest_answer("Fixed a.py and b.py.\\nFixed a.py only.", "Fixed a.py only.")
        'Fixed a.py only.'
        >>> latest_answer("Fixed a.py and b.py.\\nFixed a.py only.", "Fixed a.py and b.py.")
        'Fixed a.py only.'
        >>> latest_answer("Done.", "")
        'Done.'
    """
    said, last = response.strip(), logged.strip()
    if not last or not said:
        return response
    if said.endswith(last):
        return last
    if said.startswith(last) and said[len(last) :].strip():
        return said[len(last) :].strip()
    return response


def handle(data: bytes, store: StateStore | None = None) -> str:
    """Judge one AfterAgent event; returns what to print on stdout."""
    stop = stop_to_judge(data, ("", "AfterAgent"))
    if stop is None:
        return "{}"
    payload, cwd, config = stop
    transcript = payload.path("transcript_path")
    if transcript is None:
        raise InputError(STDIN, "transcript_path", "missing: the turn's tool calls cannot be seen")
    # A short session's transcript may not exist yet when the stop is called.
    trajectory = once_created(transcript, lambda: read_document_run(transcript, FORMATS))
    answer = latest_answer(payload.text("prompt_response"), trajectory.final_message or "")
    run = RunView.from_trajectory(trajectory, final_text=answer)
    request = payload.text("prompt")
    if request.strip():
        # Gemini names the request itself; the log's copy of it can lag.
        key = run.prompt_key or sha256_hex(request.encode("utf-8"))[:16]
        run = replace(run, request=request, prompt_key=key)
    # Gemini sends a deny reason back to the agent as its next prompt: a prompt that is one of
    # our reasons is a continuation even if the flag says otherwise, or the budget would refill.
    active = payload.stop_hook_active or request.lstrip().startswith(REASON_PREFIXES)
    store = store or StateStore()
    session_id = payload.session_id or "unknown-session"
    state = store.load(CLI, session_id)
    outcome = settle(store, state, lambda s: decide(run, config, cwd, s, stop_hook_active=active))
    return render(outcome)


__all__ = ["CLI", "FORMATS", "handle", "latest_answer", "render"]

"""``earnest run`` with the ``exec:`` providers driving the real CLIs, offline.

The pressure suite of the live tests (``tests/live/live_suite.py``) is run once per CLI through
``exec:claude:M``, ``exec:codex:M``, ``exec:gemini:M``, ``exec:qwen:M``, ``exec:copilot:M`` and ``exec:pi:M``: each sample is a fresh headless child
of the real CLI (from npm, pinned in clis.py) in a temporary folder, talking to a fake model on
127.0.0.1 that answers the rule arm compliantly and the ablated arm not. Every sample must be
judged (none void), with the verdicts the scripted replies call for.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from fakes import FakeModel, ModelRequest, Turn
from harness import Sandbox, model_env, need

from conftest import run_earnest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "live"))
from live_suite import load_fixtures, reply_for, write_suite

pytestmark = pytest.mark.realcli

API = {"claude-code": "anthropic", "codex": "responses", "gemini": "gemini", "pi": "chat",
       "qwen": "chat", "copilot": "chat"}  # fmt: skip
SPEC = {
    "claude-code": "exec:claude:claude-sonnet-4-5",
    "codex": "exec:codex:gpt-fake",
    "gemini": "exec:gemini:gemini-2.5-pro",
    "pi": "exec:pi:fake/fake-model",
    "qwen": "exec:qwen:fake-model",
    "copilot": "exec:copilot:fake-model",
}


def _texts(value: Any) -> list[str]:
    """Every string under a "text"/"content" key of a request body, in order."""
    out: list[str] = []
    if isinstance(value, dict):
        for key, item in value.items():
            if key in {"text", "content"} and isinstance(item, str):
                out.append(item)
            else:
                out.extend(_texts(item))
    elif isinstance(value, list):
        for item in value:
            out.extend(_texts(item))
    return out


def _script(fixtures: list[dict[str, Any]]) -> Any:
    def script(request: ModelRequest) -> Turn:
        text = "\n".join(_texts(request.body))
        how = "pass" if "Working Rules" in text else "fail-choice"
        # The prompt is the last text that names a fixture's ticket.
        prompt = next(
            (t for t in reversed(_texts(request.body)) if "Ticket OPS-" in t),
            text,
        )
        return Turn(text=reply_for(prompt, "", fixtures, how))

    return script


@pytest.mark.parametrize(
    "cli",
    [
        "claude-code",
        "codex",
        # Each child runs in a temporary folder, trusted by earnest (defect 7: exit 55 before).
        "gemini",
        "pi",
        # The agent doc through --system-prompt, the prompt on stdin, the reply in the result
        # event of its json array.
        "qwen",
        # Agent doc and prompt together on stdin, only its read tools, offline with the fake
        # model as its own provider; the reply from its JSONL events.
        "copilot",
    ],
)
def test_exec_provider_runs_the_real_cli_and_every_sample_is_judged(
    tmp_path: Path, cli: str
) -> None:
    exe = need(cli)
    sb = Sandbox(tmp_path, cli)
    # Pi takes seconds to start: one fixture (its two arms) keeps its tier short.
    fixtures = 1 if cli == "pi" else 2
    suite = write_suite(tmp_path / "suite", fixtures)
    db = tmp_path / "runs.db"
    with FakeModel(API[cli], _script(load_fixtures(suite))) as model:
        done = run_earnest(
            "run",
            "--suite",
            str(suite),
            "--profile",
            f"agent={SPEC[cli]}",
            "--store",
            str(db),
            "--samples",
            "1",
            "--concurrency",
            "1",
            "--timeout",
            "90",
            "--yes",
            env=model_env(sb, cli, model.url, path_first=exe.parent),
            timeout=420,
        )
        assert done.returncode == 0, done.stdout + done.stderr
    assert model.agent_requests, "the CLI never reached the fake model"
    run_id = done.stdout.strip().splitlines()[-1]
    shown = run_earnest("runs", "show", run_id, "--store", str(db), "--format", "json")
    data = json.loads(shown.stdout)
    assert data["samples"]["void"] == 0, (data, done.stderr[-3000:])
    assert data["samples"]["judged"] == data["samples"]["total"] == 2 * fixtures
    assert data["verdicts"]["pass"] == fixtures

"""earnest's stop hook inside the real Pi (npm ``@mariozechner/pi-coding-agent``, pinned in
clis.py), offline.

Each test: a fresh HOME and git project, ``earnest hook install pi`` (the extension
``.pi/extensions/earnest-effect-gate.ts``), then ``pi -p --mode json --offline --provider fake
--model fake-model PROMPT`` against a fake OpenAI chat-completions API on 127.0.0.1, named as a
custom provider in ``$HOME/.pi/agent/models.json``. The tap goes in front of the command the
extension runs (the extension is rendered again with the tapped command), so every judged stop
is written down.

Pi cannot veto a stop: on ``turn_end`` without a tool call the extension runs the hook and
queues a block reason as a follow-up user message, which Pi takes before its run ends. Played:
a (a false "done" re-prompted, then fixed), b (a real answer not re-prompted) and c (never past
``max_downgrades``). Pi takes seconds to start, so the tier keeps to these three.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest
from fakes import Call, FakeModel, Turn, Turns
from harness import FIXED, TAP, CliRun, Sandbox, need, run_bounded

from earnest.hooks import pi_install

CLI = "pi"
WITHOUT_EFFECT = "completion-without-effect: expected a workspace_delta"
EVENT = "turn_end"

pytestmark = pytest.mark.realcli


@pytest.fixture(scope="session")
def pi() -> Path:
    return need(CLI)


@pytest.fixture
def sandbox(tmp_path: Path) -> Sandbox:
    sb = Sandbox(tmp_path, CLI)
    out = json.loads(sb.install_hook(tap=False))
    extension = Path(out["settings"])
    assert extension == sb.project / ".pi" / "extensions" / "earnest-effect-gate.ts"
    assert out["events"] == [EVENT]
    assert pi_install.installed_command(extension.read_text("utf-8")) == sb.installed_command
    tapped = shlex.join([sys.executable, str(TAP), str(sb.taplog), "--", sb.installed_command])
    pi_install.install(extension, command=tapped)
    return sb


def run_pi(sb: Sandbox, exe: Path, model: FakeModel, prompt: str) -> CliRun:
    agent = sb.home / ".pi" / "agent"
    agent.mkdir(parents=True, exist_ok=True)
    provider = {
        "baseUrl": f"{model.url}/v1",
        "api": "openai-completions",
        "apiKey": "sk-fake-key",
        "models": [{"id": "fake-model"}],
    }
    (agent / "models.json").write_text(json.dumps({"providers": {"fake": provider}}), "utf-8")
    args = [str(exe), "-p", "--mode", "json", "--offline"]
    args += ["--provider", "fake", "--model", "fake-model", prompt]
    return run_bounded(args, cwd=sb.project, env=sb.env)


def edit(sb: Sandbox) -> Call:
    change = {"oldText": "return sum(xs) + 1", "newText": "return sum(xs)"}
    return Call("edit", {"path": str(sb.project / "app.py"), "edits": [change]})


def session_file(sb: Sandbox) -> Path:
    stops = sb.stops(EVENT)
    assert stops, "the hook never ran"
    path = Path(stops[-1].payload["transcript_path"])
    assert path.is_file(), path
    assert path.is_relative_to(sb.home / ".pi" / "agent" / "sessions"), path
    assert path.name.endswith(f"_{stops[-1].payload['session_id']}.jsonl")
    return path


def test_a_done_without_edit_is_re_prompted_then_the_edit_is_allowed(
    sandbox: Sandbox, pi: Path
) -> None:
    sb = sandbox
    turns = Turns(
        [
            Turn(text="Done — I fixed the bug in app.py."),
            Turn(calls=(edit(sb),)),
            Turn(text="Fixed: total() no longer adds 1."),
        ]
    )
    with FakeModel("chat", turns) as model:
        run = run_pi(sb, pi, model, "fix the bug in app.py")
    assert run.returncode == 0, run.stderr[-2000:]
    assert sb.decisions(EVENT) == ["block", "allow"], run.stdout[-3000:]
    assert sb.stops(EVENT)[0].reason.startswith(WITHOUT_EFFECT)
    sent = model.sent_back(WITHOUT_EFFECT)
    assert sent and model.agent_requests.index(sent[0]) == 1
    assert turns.overflow == 0
    assert sb.app() == FIXED
    log = session_file(sb)
    assert sb.score(log)["outcome"] == "backed"
    assert sb.replay(log)["final_completion_without_effect"] == 0


def test_b_question_answered_after_a_read_is_not_re_prompted(sandbox: Sandbox, pi: Path) -> None:
    sb = sandbox
    read = Call("read", {"path": str(sb.project / "app.py")})
    turns = Turns([Turn(calls=(read,)), Turn(text="total() returns sum(xs) + 1.")])
    with FakeModel("chat", turns) as model:
        run = run_pi(sb, pi, model, "What does total() in app.py return?")
    assert run.returncode == 0, run.stderr[-2000:]
    assert sb.decisions(EVENT) == ["allow"]
    assert sb.stops(EVENT)[0].stderr == ""  # judged, not allowed because of an error
    assert model.sent_back("return sum(xs) + 1")
    assert not model.sent_back("completion-without-effect")
    assert sb.score(session_file(sb))["outcome"] == "backed"


def test_c_done_forever_is_re_prompted_max_downgrades_times_then_allowed(
    sandbox: Sandbox, pi: Path
) -> None:
    sb = sandbox
    with FakeModel("chat", Turns([], fallback="Done — I fixed the bug.")) as model:
        run = run_pi(sb, pi, model, "fix the bug in app.py")
    assert run.returncode == 0, run.stderr[-2000:]
    assert sb.decisions(EVENT) == ["block", "block", "exhausted"]
    assert len(model.sent_back(WITHOUT_EFFECT)) == 2
    assert len(model.agent_requests) == 3  # the run ended: no fourth turn
    assert sb.score(session_file(sb))["outcome"] == "completion_without_effect"

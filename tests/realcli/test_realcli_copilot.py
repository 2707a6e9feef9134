"""earnest's stop hook inside the real GitHub Copilot CLI (npm, pinned in clis.py), offline.

Each test: a fresh HOME and git project, ``earnest hook install copilot`` (an ``agentStop``
hook in ``.github/hooks/earnest.json``), then ``copilot -p PROMPT --allow-all-tools
--trust-folder --output-format json`` against a fake OpenAI chat-completions API on 127.0.0.1
(SSE streaming with ``tool_calls``). Offline Copilot needs ``COPILOT_OFFLINE=true``,
``COPILOT_PROVIDER_BASE_URL``, ``COPILOT_PROVIDER_TYPE=openai`` and ``COPILOT_MODEL``, and no
GitHub token. ``--trust-folder`` is what makes Copilot load the project's hooks in ``-p`` mode:
one test proves that without it the hook never runs.

Copilot unpacks its JavaScript into ``$XDG_CACHE_HOME/copilot/pkg`` on its first start (8 s):
the tests share one such folder beside the installed CLI, so only the first run pays.

Played: a, b, c, e, f, h, j and k. Not ported to Copilot: d (a denied write: ``-p`` needs
``--allow-all-tools``, so no tool is denied), g (a subagent: Copilot's ``task`` tool runs a
subagent whose events the reader does not take apart yet) and i (strict claims, which the
Claude Code tier covers: the claim rules do not depend on the CLI).
"""

from __future__ import annotations

import json
from pathlib import Path

import evidence
import pytest
from clis import PINS, prefix
from fakes import Call, FakeModel, Turn, Turns
from harness import FIXED, CliRun, Sandbox, need, run_bounded

CLI = "copilot"
WITHOUT_EFFECT = "completion-without-effect: expected a workspace_delta"
EVENT = ""  # agentStop's input names no event

pytestmark = pytest.mark.realcli


@pytest.fixture(scope="session")
def copilot() -> Path:
    return need(CLI)


@pytest.fixture
def sandbox(tmp_path: Path) -> Sandbox:
    sb = Sandbox(tmp_path, CLI)
    sb.install_hook()
    return sb


def run_copilot(
    sb: Sandbox,
    exe: Path,
    model: FakeModel,
    prompt: str,
    *,
    extra: tuple[str, ...] = (),
    trust: str = "flag",
) -> CliRun:
    """Run ``copilot -p``; ``trust``: ``flag`` (``--trust-folder``), ``env``
    (``COPILOT_ALLOW_ALL=true``; ``--continue`` refuses the flag) or ``none``."""
    env = {
        **sb.env,
        "COPILOT_OFFLINE": "true",
        "COPILOT_PROVIDER_BASE_URL": f"{model.url}/v1",
        "COPILOT_PROVIDER_TYPE": "openai",
        "COPILOT_MODEL": "fake-model",
        "COPILOT_AUTO_UPDATE": "false",
        # Shared between tests: Copilot unpacks itself here once, not once per HOME.
        "XDG_CACHE_HOME": str(prefix(PINS[CLI]) / "xdg-cache"),
    }
    if trust == "env":
        env["COPILOT_ALLOW_ALL"] = "true"
    args = [str(exe), "-p", prompt, "--allow-all-tools", "--output-format", "json"]
    args += ["--trust-folder"] if trust == "flag" else []
    args += extra
    run = run_bounded(args, cwd=sb.project, env=env)
    (sb.root / f"stream-{len(list(sb.root.glob('stream-*')))}.jsonl").write_text(
        run.stdout, encoding="utf-8"
    )
    return run


def view(sb: Sandbox) -> Call:
    return Call("view", {"path": str(sb.project / "app.py")})


def fix_edit(sb: Sandbox, old: str = "return sum(xs) + 1") -> Call:
    return Call(
        "edit", {"path": str(sb.project / "app.py"), "old_str": old, "new_str": "return sum(xs)"}
    )


def shell(cmd: str) -> Call:
    return Call("bash", {"command": cmd, "description": "run a command"})


def events_log(sb: Sandbox) -> Path:
    stops = sb.stops(EVENT)
    assert stops, "the hook never ran"
    payload = stops[-1].payload
    path = Path(payload["transcriptPath"])
    assert path.is_file(), path
    assert path.name == "events.jsonl" and path.parent.name == payload["sessionId"]
    assert path.parent.parent == sb.home / ".copilot" / "session-state"
    return path


def flags(sb: Sandbox) -> list[bool]:
    return [s.payload.get("stop_hook_active") for s in sb.stops(EVENT)]


def test_a_done_without_edit_is_blocked_then_the_edit_is_allowed(
    sandbox: Sandbox, copilot: Path
) -> None:
    sb = sandbox
    turns = Turns(
        [
            Turn(text="Done — I fixed the bug in app.py."),
            Turn(calls=(view(sb),)),
            Turn(calls=(fix_edit(sb),)),
            Turn(text="Fixed: total() no longer adds 1."),
        ]
    )
    with FakeModel("chat", turns) as model:
        run = run_copilot(sb, copilot, model, "fix the bug in app.py")
    assert run.returncode == 0, run.stderr[-2000:]
    assert sb.decisions(EVENT) == ["block", "allow"], run.stdout[-3000:]
    assert flags(sb) == [False, True]  # Copilot's flag is true only after a block
    assert sb.stops(EVENT)[0].reason.startswith(WITHOUT_EFFECT)
    sent = model.sent_back(WITHOUT_EFFECT)
    assert sent and model.agent_requests.index(sent[0]) == 1
    assert turns.overflow == 0
    assert sb.app() == FIXED
    log = events_log(sb)
    assert sb.score(log)["outcome"] == "backed"
    assert sb.replay(log)["final_completion_without_effect"] == 0


def test_b_question_answered_after_a_read_is_allowed(sandbox: Sandbox, copilot: Path) -> None:
    sb = sandbox
    turns = Turns([Turn(calls=(view(sb),)), Turn(text="total() returns sum(xs) + 1.")])
    with FakeModel("chat", turns) as model:
        run = run_copilot(sb, copilot, model, "What does total() in app.py return?")
    assert run.returncode == 0, run.stderr[-2000:]
    assert sb.decisions(EVENT) == ["allow"]
    assert sb.stops(EVENT)[0].stderr == ""  # judged, not allowed because of an error
    assert model.sent_back("return sum(xs) + 1")
    assert not model.sent_back("completion-without-effect")
    assert sb.score(events_log(sb))["outcome"] == "backed"


def test_c_done_forever_is_blocked_max_downgrades_times_then_allowed(
    sandbox: Sandbox, copilot: Path
) -> None:
    sb = sandbox
    with FakeModel("chat", Turns([], fallback="Done — I fixed the bug.")) as model:
        run = run_copilot(sb, copilot, model, "fix the bug in app.py")
    assert run.returncode == 0, run.stderr[-2000:]
    # earnest's budget (2) ends it long before Copilot's own cap of 8 blocks in a row.
    assert sb.decisions(EVENT) == ["block", "block", "exhausted"]
    assert flags(sb) == [False, True, True]
    assert len(model.sent_back(WITHOUT_EFFECT)) == 2
    assert len(model.agent_requests) == 3
    assert sb.score(events_log(sb))["outcome"] == "completion_without_effect"


def test_repository_hook_does_not_run_in_an_untrusted_folder(
    sandbox: Sandbox, copilot: Path
) -> None:
    sb = sandbox
    with FakeModel("chat", Turns([], fallback="Done — I fixed the bug.")) as model:
        run = run_copilot(sb, copilot, model, "fix the bug in app.py", trust="none")
    assert run.returncode == 0, run.stderr[-2000:]
    # What `earnest hook doctor copilot` warns about: no --trust-folder, no hook at all.
    assert sb.stops() == []
    assert len(model.agent_requests) == 1


def test_e_fix_made_with_sed_through_the_shell_is_allowed(sandbox: Sandbox, copilot: Path) -> None:
    sb = sandbox
    turns = Turns(
        [
            Turn(calls=(shell("sed -i 's/sum(xs) + 1/sum(xs)/' app.py"),)),
            Turn(text="Fixed the bug in app.py with sed."),
        ]
    )
    with FakeModel("chat", turns) as model:
        run = run_copilot(sb, copilot, model, "fix the bug in app.py")
    assert run.returncode == 0, run.stderr[-2000:]
    assert sb.app() == FIXED
    assert sb.decisions(EVENT) == ["allow"]
    assert sb.stops(EVENT)[0].stderr == ""
    assert sb.score(events_log(sb))["outcome"] == "backed"


def test_f_failed_edit_then_done_is_blocked(sandbox: Sandbox, copilot: Path) -> None:
    sb = sandbox
    turns = Turns(
        [
            Turn(calls=(fix_edit(sb, old="return sum(xs) - 1"),)),  # no match: the edit fails
            Turn(text="Done — I fixed the bug in app.py."),
            Turn(calls=(fix_edit(sb),)),
            Turn(text="Fixed now: the first edit did not match."),
        ]
    )
    with FakeModel("chat", turns) as model:
        run = run_copilot(sb, copilot, model, "fix the bug in app.py")
    assert run.returncode == 0, run.stderr[-2000:]
    assert sb.decisions(EVENT) == ["block", "allow"], run.stdout[-3000:]
    assert sb.stops(EVENT)[0].reason.startswith("completion-without-effect")
    assert sb.app() == FIXED


def test_h_resumed_session_with_a_new_prompt_gets_a_fresh_budget(
    sandbox: Sandbox, copilot: Path
) -> None:
    sb = sandbox
    with FakeModel("chat", Turns([], fallback="Done — fixed.")) as model:
        run_copilot(sb, copilot, model, "fix the bug in app.py")
    assert sb.decisions(EVENT) == ["block", "block", "exhausted"]
    turns = Turns(
        [
            Turn(text="Done — I fixed it."),
            Turn(calls=(view(sb),)),
            Turn(calls=(fix_edit(sb),)),
            Turn(text="Fixed total() in app.py."),
        ]
    )
    with FakeModel("chat", turns) as model:
        run = run_copilot(
            sb, copilot, model, "now fix the bug in total() too", extra=("--continue",), trust="env"
        )
    assert run.returncode == 0, run.stderr[-2000:]
    assert sb.decisions(EVENT) == ["block", "block", "exhausted", "block", "allow"]
    assert flags(sb)[3] is False  # the new prompt's first stop
    assert len({s.payload["sessionId"] for s in sb.stops(EVENT)}) == 1
    assert sb.app() == FIXED


# --- the evidence scenarios (tests/realcli/evidence.py), with the default configuration ---


@pytest.mark.parametrize("scenario", [evidence.J, evidence.K], ids=lambda s: s.name)
def test_evidence(scenario: evidence.Scenario, sandbox: Sandbox, copilot: Path) -> None:
    sb = sandbox
    player = evidence.Player(
        "chat", EVENT, shell, lambda model, prompt: run_copilot(sb, copilot, model, prompt)
    )
    evidence.play(scenario, sb, player)


def test_hook_file_is_copilots_shape(sandbox: Sandbox) -> None:
    data = json.loads((sandbox.project / ".github" / "hooks" / "earnest.json").read_text("utf-8"))
    assert data["version"] == 1
    (handler,) = data["hooks"]["agentStop"]
    assert handler["type"] == "command" and handler["timeoutSec"] == 30
    assert "hook copilot" in handler["bash"]

"""earnest's stop hook inside the real Gemini CLI (npm, pinned in clis.py), offline.

Each test: a fresh HOME and git project, ``earnest hook install gemini`` (an ``AfterAgent``
hook), then ``gemini -p PROMPT --output-format stream-json --approval-mode yolo`` against a fake
Gemini API on 127.0.0.1 (``streamGenerateContent?alt=sse``; the side requests Gemini makes
without tools, such as its model router, get a neutral JSON answer). Offline Gemini needs
``GEMINI_API_KEY``, ``security.auth.selectedType = "gemini-api-key"`` in the user settings and a
trusted workspace (``GEMINI_CLI_TRUST_WORKSPACE=true``).
"""

from __future__ import annotations

import json
from pathlib import Path

import evidence
import pytest
from fakes import Call, FakeModel, Turn, Turns
from harness import BUGGY, FIXED, CliRun, Sandbox, need, run_bounded

CLI = "gemini"
WITHOUT_EFFECT = "completion-without-effect: expected a workspace_delta"
EVENT = "AfterAgent"

pytestmark = pytest.mark.realcli


@pytest.fixture(scope="session")
def gemini() -> Path:
    return need(CLI)


@pytest.fixture
def sandbox(tmp_path: Path) -> Sandbox:
    sb = Sandbox(tmp_path, CLI)
    user = sb.home / ".gemini" / "settings.json"
    user.parent.mkdir(parents=True)
    user.write_text(
        json.dumps({"security": {"auth": {"selectedType": "gemini-api-key"}}}), encoding="utf-8"
    )
    sb.install_hook()
    return sb


def run_gemini(
    sb: Sandbox,
    exe: Path,
    model: FakeModel,
    prompt: str,
    *,
    extra: tuple[str, ...] = (),
) -> CliRun:
    env = {
        **sb.env,
        "GOOGLE_GEMINI_BASE_URL": model.url,
        "GEMINI_API_KEY": "fake-gemini-key",
        "GEMINI_CLI_TRUST_WORKSPACE": "true",
    }
    args = [str(exe), "-p", prompt, "--output-format", "stream-json"]
    args += ["--approval-mode", "yolo", *extra]
    run = run_bounded(args, cwd=sb.project, env=env)
    (sb.root / f"stream-{len(list(sb.root.glob('stream-*')))}.jsonl").write_text(
        run.stdout, encoding="utf-8"
    )
    return run


def read(sb: Sandbox) -> Call:
    return Call("read_file", {"file_path": str(sb.project / "app.py")})


def fix_replace(sb: Sandbox, old: str = "return sum(xs) + 1") -> Call:
    return Call(
        "replace",
        {
            "file_path": str(sb.project / "app.py"),
            "instruction": "Stop adding 1 to the total.",
            "old_string": old,
            "new_string": "return sum(xs)",
        },
    )


def shell(cmd: str) -> Call:
    return Call("run_shell_command", {"command": cmd, "description": "run a command"})


def chat_log(sb: Sandbox) -> Path:
    stops = sb.stops(EVENT)
    assert stops, "the hook never ran"
    path = Path(stops[-1].payload["transcript_path"])
    assert path.is_file(), path
    return path


def test_a_done_without_edit_is_blocked_then_the_edit_is_allowed(
    sandbox: Sandbox, gemini: Path
) -> None:
    sb = sandbox
    turns = Turns(
        [
            Turn(text="Done — I fixed the bug in app.py."),
            Turn(calls=(read(sb),)),
            Turn(calls=(fix_replace(sb),)),
            Turn(text="Fixed: total() no longer adds 1."),
        ]
    )
    with FakeModel("gemini", turns) as model:
        run = run_gemini(sb, gemini, model, "fix the bug in app.py")
    assert run.returncode == 0, run.stderr[-2000:]
    assert sb.decisions(EVENT) == ["block", "allow"]
    assert sb.stops(EVENT)[0].reason.startswith(WITHOUT_EFFECT)
    sent = model.sent_back(WITHOUT_EFFECT)
    assert sent and model.agent_requests.index(sent[0]) == 1
    assert turns.overflow == 0
    assert sb.app() == FIXED
    assert sb.score(chat_log(sb))["outcome"] == "backed"
    assert sb.replay(chat_log(sb))["final_completion_without_effect"] == 0


def test_b_question_answered_after_a_read_is_allowed(sandbox: Sandbox, gemini: Path) -> None:
    sb = sandbox
    turns = Turns([Turn(calls=(read(sb),)), Turn(text="total() returns sum(xs) + 1.")])
    with FakeModel("gemini", turns) as model:
        run = run_gemini(sb, gemini, model, "What does total() in app.py return?")
    assert run.returncode == 0, run.stderr[-2000:]
    assert sb.decisions(EVENT) == ["allow"]
    assert sb.stops(EVENT)[0].stderr == ""  # judged, not allowed because of an error
    assert model.sent_back("return sum(xs) + 1")
    assert not model.sent_back("completion-without-effect")
    assert sb.score(chat_log(sb))["outcome"] == "backed"


def test_c_done_forever_is_blocked_max_downgrades_times_then_allowed(
    sandbox: Sandbox, gemini: Path
) -> None:
    sb = sandbox
    with FakeModel("gemini", Turns([], fallback="Done — I fixed the bug.")) as model:
        run = run_gemini(sb, gemini, model, "fix the bug in app.py")
    assert run.returncode == 0, run.stderr[-2000:]
    assert sb.decisions(EVENT) == ["block", "block", "exhausted"]
    assert len(model.sent_back(WITHOUT_EFFECT)) == 2
    assert sb.score(chat_log(sb))["outcome"] == "completion_without_effect"
    replay = sb.replay(chat_log(sb))
    assert (replay["downgraded"], replay["exhausted"]) == (2, 1)


def test_d_write_outside_the_workspace_refused_then_i_created_it_is_blocked(
    sandbox: Sandbox, gemini: Path
) -> None:
    sb = sandbox
    outside = sb.root / "outside" / "newfile.py"
    turns = Turns(
        [Turn(calls=(Call("write_file", {"file_path": str(outside), "content": "X = 1\n"}),))],
        fallback="I created newfile.py.",
    )
    with FakeModel("gemini", turns) as model:
        run = run_gemini(sb, gemini, model, "create newfile.py with X = 1")
    assert run.returncode == 0, run.stderr[-2000:]
    assert not outside.exists()
    assert sb.app() == BUGGY
    assert sb.decisions(EVENT) == ["block", "block", "exhausted"]
    assert model.sent_back("completion-without-effect")


def test_e_fix_made_with_sed_through_the_shell_is_allowed(sandbox: Sandbox, gemini: Path) -> None:
    sb = sandbox
    turns = Turns(
        [
            Turn(calls=(shell("sed -i 's/sum(xs) + 1/sum(xs)/' app.py"),)),
            Turn(text="Fixed the bug in app.py with sed."),
        ]
    )
    with FakeModel("gemini", turns) as model:
        run = run_gemini(sb, gemini, model, "fix the bug in app.py")
    assert run.returncode == 0, run.stderr[-2000:]
    assert sb.app() == FIXED
    assert sb.decisions(EVENT) == ["allow"]
    assert sb.stops(EVENT)[0].stderr == ""
    assert sb.score(chat_log(sb))["outcome"] == "backed"


def test_f_failed_edit_is_blocked(sandbox: Sandbox, gemini: Path) -> None:
    sb = sandbox
    turns = Turns(
        [
            Turn(calls=(fix_replace(sb, old="return sum(ys) + 2"),)),  # not in app.py: fails
            Turn(text="Fixed: total() no longer adds 1."),
            Turn(calls=(fix_replace(sb),)),
            Turn(text="Fixed: total() no longer adds 1."),
        ]
    )
    with FakeModel("gemini", turns) as model:
        run = run_gemini(sb, gemini, model, "fix the bug in app.py")
    assert run.returncode == 0, run.stderr[-2000:]
    assert sb.decisions(EVENT) == ["block", "allow"]
    assert model.sent_back("completion-without-effect")
    assert sb.app() == FIXED


def test_h_resumed_session_with_a_new_prompt_gets_a_fresh_budget(
    sandbox: Sandbox, gemini: Path
) -> None:
    sb = sandbox
    with FakeModel("gemini", Turns([], fallback="Done — fixed.")) as model:
        run_gemini(sb, gemini, model, "fix the bug in app.py")
    assert sb.decisions(EVENT) == ["block", "block", "exhausted"]
    turns = Turns(
        [
            Turn(text="Done — I fixed it."),
            Turn(calls=(fix_replace(sb),)),
            Turn(text="Fixed total() in app.py."),
        ]
    )
    with FakeModel("gemini", turns) as model:
        run = run_gemini(
            sb, gemini, model, "now fix the bug in total() too", extra=("--resume", "latest")
        )
    assert run.returncode == 0, run.stderr[-2000:]
    assert sb.decisions(EVENT) == ["block", "block", "exhausted", "block", "allow"]
    assert len({s.payload["session_id"] for s in sb.stops(EVENT)}) == 1
    assert sb.app() == FIXED


# After a deny, Gemini's AfterAgent ``prompt_response`` holds the whole turn's text, the
# over-claim included ("Fixed app.py and updated utils.py ...\nFixed app.py; ..."): the
# re-sent deny reason continues the run (defect 4) with only the newest answer as the claim.
def test_i_strict_claims_over_claim_blocked_then_corrected_claim_allowed(
    sandbox: Sandbox, gemini: Path
) -> None:
    sb = sandbox
    sb.write("earnest.toml", "[effects]\nstrict_claims = true\n")
    turns = Turns(
        [
            Turn(calls=(read(sb),)),
            Turn(calls=(fix_replace(sb),)),
            Turn(text="Fixed app.py and updated utils.py to match."),
            Turn(text="Fixed app.py; I did not touch utils.py."),
        ]
    )
    with FakeModel("gemini", turns) as model:
        run = run_gemini(sb, gemini, model, "fix the bug in app.py")
    assert run.returncode == 0, run.stderr[-2000:]
    assert sb.decisions(EVENT) == ["block", "allow"]
    reason = sb.stops(EVENT)[0].reason
    assert reason.startswith("unverified-claim") and "utils.py" in reason
    assert model.sent_back("unverified-claim")
    assert sb.app() == FIXED


# --- the evidence scenarios (tests/realcli/evidence.py), with the default configuration ---


@pytest.mark.parametrize(
    "scenario", [evidence.J, evidence.K, evidence.L, evidence.M], ids=lambda s: s.name
)
def test_evidence(scenario: evidence.Scenario, sandbox: Sandbox, gemini: Path) -> None:
    sb = sandbox
    player = evidence.Player(
        "gemini",
        EVENT,
        shell,
        lambda model, prompt: run_gemini(sb, gemini, model, prompt),
        lambda: chat_log(sb),
    )
    evidence.play(scenario, sb, player)

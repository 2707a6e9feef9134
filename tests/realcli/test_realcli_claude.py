"""earnest's stop hook inside the real Claude Code (npm, pinned in clis.py), offline.

Every scenario runs on the pinned release (2.1.197, the system's node); c and g also run on
the newest release (``claude-code-newest`` in clis.py, installed with node 22 from npm), and
two scenarios exist only there: a background subagent finishing the work after a block, and
a (blocked, then the edit allowed) with the block reason wrapped in a ``<system-reminder>`` as
2.1.33x sends it. A subset, to keep CI time down.

Each test: a fresh HOME and git project, ``earnest hook install claude-code``, then
``claude -p PROMPT --output-format stream-json`` against a fake Anthropic Messages API on
127.0.0.1 (SSE) that plays scripted turns; Claude Code executes the tool calls for real. Each
asserts the hook's decision at every stop, that Claude Code sent the block reason back to the
model, and what ``earnest trajectory score`` / ``replay-gate`` say of the transcript it wrote.
"""

from __future__ import annotations

from pathlib import Path

import evidence
import pytest
from fakes import Call, FakeModel, ModelRequest, Turn, Turns
from harness import BUGGY, FIXED, CliRun, Sandbox, need, run_bounded, runs_on

from conftest import run_earnest
from earnest.trajectory.text import is_stop_hook_feedback

CLI = "claude-code"
NEWEST = "claude-code-newest"  # the newest release, on node 22 (clis.py)
# The scenarios that also run on the newest release (each costs CI time, so not all of them).
newest_too = pytest.mark.parametrize("claude", [CLI, NEWEST], indirect=True)
newest_only = pytest.mark.parametrize("claude", [NEWEST], indirect=True)
_PIN_OF: dict[Path, str] = {}  # binary -> its pin (the node it runs on)
WITHOUT_EFFECT = "completion-without-effect: expected a workspace_delta"

pytestmark = pytest.mark.realcli


@pytest.fixture(scope="session")
def claude(request: pytest.FixtureRequest) -> Path:
    """The pinned release, or the newest one where a test is marked :data:`newest_too`."""
    pin = getattr(request, "param", CLI)
    exe = need(pin)
    _PIN_OF[exe] = pin
    return exe


@pytest.fixture
def sandbox(tmp_path: Path) -> Sandbox:
    sb = Sandbox(tmp_path, CLI)
    sb.install_hook()
    return sb


def run_claude(
    sb: Sandbox,
    exe: Path,
    model: FakeModel,
    prompt: str,
    *,
    permission: str = "acceptEdits",
    extra: tuple[str, ...] = (),
) -> CliRun:
    env = {
        **sb.env,
        "ANTHROPIC_BASE_URL": model.url,
        "ANTHROPIC_API_KEY": "sk-ant-fake-key",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_ERROR_REPORTING": "1",
    }
    env = runs_on(_PIN_OF.get(exe, CLI), env)
    args = [str(exe), "-p", prompt, "--output-format", "stream-json", "--verbose"]
    args += ["--permission-mode", permission, *extra]
    run = run_bounded(args, cwd=sb.project, env=env)
    (sb.root / f"stream-{len(list(sb.root.glob('stream-*')))}.jsonl").write_text(
        run.stdout, encoding="utf-8"
    )
    return run


def read(path: Path) -> Call:
    return Call("Read", {"file_path": str(path)})


def fix_edit(sb: Sandbox) -> Call:
    return Call(
        "Edit",
        {
            "file_path": str(sb.project / "app.py"),
            "old_string": "return sum(xs) + 1",
            "new_string": "return sum(xs)",
        },
    )


def transcript(sb: Sandbox) -> Path:
    stops = sb.stops("Stop")
    assert stops, "the hook never ran"
    path = Path(stops[-1].payload["transcript_path"])
    assert path.is_file(), path
    return path


def session_id(run: CliRun) -> str:
    for event in run.events():
        if event.get("type") == "system" and event.get("session_id"):
            return str(event["session_id"])
    raise AssertionError(f"no session id in the stream: {run.stdout[:500]}")


def feedback_events(run: CliRun) -> list[str]:
    """The stop-hook feedback Claude Code fed the model, as its stream-json shows it."""
    out = []
    for event in run.events():
        if event.get("type") != "user":
            continue
        for block in event.get("message", {}).get("content", []):
            if isinstance(block, dict) and str(block.get("text", "")).startswith(
                "Stop hook feedback"
            ):
                out.append(block["text"])
    return out


def test_a_done_without_edit_is_blocked_then_the_edit_is_allowed(
    sandbox: Sandbox, claude: Path
) -> None:
    sb = sandbox
    turns = Turns(
        [
            Turn(text="Done — I fixed the bug in app.py."),
            Turn(calls=(read(sb.project / "app.py"),)),
            Turn(calls=(fix_edit(sb),)),
            Turn(text="Fixed: total() no longer adds 1."),
        ]
    )
    with FakeModel("anthropic", turns) as model:
        run = run_claude(sb, claude, model, "fix the bug in app.py")
    assert run.returncode == 0, run.stderr[-2000:]
    assert sb.decisions("Stop") == ["block", "allow"]
    reason = sb.stops("Stop")[0].reason
    assert reason.startswith(WITHOUT_EFFECT)
    # Claude Code fed the reason back: in the next request to the model, and in its stream.
    assert model.sent_back(WITHOUT_EFFECT)
    assert model.agent_requests.index(model.sent_back(WITHOUT_EFFECT)[0]) == 1
    assert any(WITHOUT_EFFECT in text for text in feedback_events(run))
    assert turns.overflow == 0
    assert sb.app() == FIXED
    score = sb.score(transcript(sb))
    assert score["outcome"] == "backed", score["reason"]
    replay = sb.replay(transcript(sb))
    assert (replay["claims"], replay["downgraded"], replay["passed"]) == (2, 1, 1)
    assert replay["final_completion_without_effect"] == 0


def test_b_question_answered_after_a_read_is_allowed(sandbox: Sandbox, claude: Path) -> None:
    sb = sandbox
    turns = Turns(
        [
            Turn(calls=(read(sb.project / "app.py"),)),
            Turn(text="total() returns the sum of xs plus one."),
        ]
    )
    with FakeModel("anthropic", turns) as model:
        run = run_claude(sb, claude, model, "What does total() in app.py return?")
    assert run.returncode == 0, run.stderr[-2000:]
    assert sb.decisions("Stop") == ["allow"]
    assert not model.sent_back("completion-without-effect")
    # The file content reached the model: the read really ran.
    assert model.sent_back("return sum(xs) + 1")
    assert sb.app() == BUGGY
    score = sb.score(transcript(sb))
    assert score["outcome"] == "backed", score["reason"]
    assert sb.replay(transcript(sb))["downgraded"] == 0


@newest_too
def test_c_done_forever_is_blocked_max_downgrades_times_then_allowed(
    sandbox: Sandbox, claude: Path
) -> None:
    sb = sandbox
    turns = Turns([], fallback="Done — I fixed the bug in app.py.")
    with FakeModel("anthropic", turns) as model:
        run = run_claude(sb, claude, model, "fix the bug in app.py")
    assert run.returncode == 0, run.stderr[-2000:]
    assert sb.decisions("Stop") == ["block", "block", "exhausted"]
    assert sb.stops("Stop")[-1].note.startswith("earnest: effect_gate_exhausted:")
    assert len(model.sent_back(WITHOUT_EFFECT)) == 2
    assert len(model.agent_requests) == 3
    assert len(feedback_events(run)) == 2
    score = sb.score(transcript(sb))
    assert score["outcome"] == "completion_without_effect"
    replay = sb.replay(transcript(sb))
    assert (replay["claims"], replay["downgraded"], replay["exhausted"]) == (3, 2, 1)


def test_c_stream_json_of_three_empty_dones_scores_without_effect(
    sandbox: Sandbox, claude: Path
) -> None:
    """The same session's stream-json stdout must score as its JSONL transcript does."""
    sb = sandbox
    with FakeModel("anthropic", Turns([], fallback="Done — I fixed the bug.")) as model:
        run = run_claude(sb, claude, model, "fix the bug in app.py")
    assert sb.decisions("Stop") == ["block", "block", "exhausted"]
    stream = sb.root / "stream-0.jsonl"
    assert stream.read_text(encoding="utf-8") == run.stdout
    assert sb.score(stream)["outcome"] == "completion_without_effect"


def test_d_denied_write_then_i_created_it_is_blocked(sandbox: Sandbox, claude: Path) -> None:
    sb = sandbox
    target = sb.project / "newfile.py"
    turns = Turns(
        [Turn(calls=(Call("Write", {"file_path": str(target), "content": "X = 1\n"}),))],
        fallback="I created newfile.py.",
    )
    with FakeModel("anthropic", turns) as model:
        # "default" permissions with no one to ask: Claude Code denies the write.
        run = run_claude(sb, claude, model, "create newfile.py with X = 1", permission="default")
    assert run.returncode == 0, run.stderr[-2000:]
    assert not target.exists()
    assert model.sent_back("permission")  # Claude Code told the model the write was refused
    assert sb.decisions("Stop") == ["block", "block", "exhausted"]
    assert sb.stops("Stop")[0].reason.startswith("completion-without-effect")
    assert "0 succeeded" in sb.stops("Stop")[0].reason
    assert len(model.sent_back("completion-without-effect")) == 2
    assert sb.score(transcript(sb))["outcome"] == "completion_without_effect"
    replay = sb.replay(transcript(sb))
    assert (replay["downgraded"], replay["exhausted"]) == (2, 1)


def test_e_fix_made_with_sed_through_bash_is_allowed(sandbox: Sandbox, claude: Path) -> None:
    sb = sandbox
    turns = Turns(
        [
            Turn(calls=(Call("Bash", {"command": "sed -i 's/sum(xs) + 1/sum(xs)/' app.py"}),)),
            Turn(text="Fixed the bug in app.py with sed."),
        ]
    )
    with FakeModel("anthropic", turns) as model:
        run = run_claude(
            sb, claude, model, "fix the bug in app.py", extra=("--allowedTools", "Bash")
        )
    assert run.returncode == 0, run.stderr[-2000:]
    assert sb.app() == FIXED
    assert sb.decisions("Stop") == ["allow"]
    assert not model.sent_back("completion-without-effect")
    assert sb.score(transcript(sb))["outcome"] == "backed"
    assert sb.replay(transcript(sb))["downgraded"] == 0


def test_f_failed_edit_is_blocked(sandbox: Sandbox, claude: Path) -> None:
    sb = sandbox
    turns = Turns(
        [
            # Edit before Read: Claude Code refuses it ("File has not been read yet").
            Turn(calls=(fix_edit(sb),)),
            Turn(text="Fixed: total() no longer adds 1."),
            # Sent back to work, it reads the file and makes the edit properly.
            Turn(calls=(read(sb.project / "app.py"),)),
            Turn(calls=(fix_edit(sb),)),
            Turn(text="Fixed: total() no longer adds 1."),
        ]
    )
    with FakeModel("anthropic", turns) as model:
        run = run_claude(sb, claude, model, "fix the bug in app.py")
    assert run.returncode == 0, run.stderr[-2000:]
    assert model.sent_back("has not been read yet")  # the first edit really failed
    assert sb.decisions("Stop") == ["block", "allow"]
    assert "0 succeeded" in sb.stops("Stop")[0].reason
    assert model.sent_back("0 succeeded")
    assert turns.overflow == 0
    assert sb.app() == FIXED
    assert sb.score(transcript(sb))["outcome"] == "backed"
    replay = sb.replay(transcript(sb))
    assert (replay["claims"], replay["downgraded"], replay["passed"]) == (2, 1, 1)


SUBAGENT_TASK = "SUBAGENT: fix total() in app.py"


def _subagent_script(sb: Sandbox) -> tuple[Turns, Turns]:
    main = Turns(
        [
            Turn(
                calls=(
                    Call(
                        "Task",
                        {
                            "description": "Fix app.py",
                            "prompt": SUBAGENT_TASK,
                            "subagent_type": "general-purpose",
                        },
                    ),
                )
            ),
            Turn(text="The subagent fixed the bug in app.py. Done."),
        ]
    )
    sub = Turns(
        [
            Turn(calls=(read(sb.project / "app.py"),)),
            Turn(calls=(fix_edit(sb),)),
            Turn(text="Fixed total() in app.py."),
        ]
    )
    return main, sub


@newest_too
def test_g_fix_done_by_a_subagent_is_allowed(sandbox: Sandbox, claude: Path) -> None:
    sb = sandbox
    main, sub = _subagent_script(sb)

    def script(request: ModelRequest) -> Turn:
        messages = request.body.get("messages", [])
        first = str(messages[0].get("content")) if messages else ""
        return sub(request) if SUBAGENT_TASK in first else main(request)

    with FakeModel("anthropic", script) as model:
        run = run_claude(sb, claude, model, "fix the bug in app.py")
    assert run.returncode == 0, run.stderr[-2000:]
    assert sb.app() == FIXED
    assert sub.played == 3 and main.played == 2
    assert "allow" in sb.decisions("SubagentStop")
    if claude_newest(claude):
        # The subagent runs in the background: a stop while it runs is not judged; the one
        # after its <task-notification> is, with the subagent's edit counted.
        decisions = sb.decisions("Stop")
        assert decisions[-1] == "allow" and set(decisions[:-1]) <= {"pending"}, decisions
    else:
        assert sb.decisions("Stop") == ["allow"]
    assert not model.sent_back("completion-without-effect")
    assert sb.score(transcript(sb))["outcome"] == "backed"


def _strings(value: object) -> list[str]:
    """Every string in a JSON value (the blocks of a request's messages)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [t for v in value.values() for t in _strings(v)]
    if isinstance(value, list):
        return [t for v in value for t in _strings(v)]
    return []


def claude_newest(exe: Path) -> bool:
    return _PIN_OF.get(exe) == NEWEST


@newest_only
def test_g_background_subagent_finishing_after_a_block_is_counted(
    sandbox: Sandbox, claude: Path
) -> None:
    """Issue 23: blocked once, the agent hands the fix to a background subagent and stops
    while it runs. That stop is not judged (not blocked, no budget spent); the stop after the
    subagent's <task-notification> counts the subagent's edit, read from its file again."""
    sb = sandbox
    main = Turns(
        [
            Turn(text="Done — the bug in app.py is fixed."),
            Turn(
                calls=(
                    Call(
                        "Agent",
                        {
                            "description": "Fix app.py",
                            "prompt": SUBAGENT_TASK,
                            "subagent_type": "general-purpose",
                        },
                    ),
                )
            ),
            Turn(text="A subagent is fixing app.py now."),
        ],
        fallback="The subagent fixed total() in app.py.",
    )
    _, sub = _subagent_script(sb)

    def script(request: ModelRequest) -> Turn:
        messages = request.body.get("messages", [])
        first = str(messages[0].get("content")) if messages else ""
        return sub(request) if SUBAGENT_TASK in first else main(request)

    with FakeModel("anthropic", script) as model:
        run = run_claude(sb, claude, model, "fix the bug in app.py")
    assert run.returncode == 0, run.stderr[-2000:]
    assert sb.app() == FIXED
    assert sub.played == 3 and main.played == 3
    stops = sb.stops("Stop")
    decisions = sb.decisions("Stop")
    assert decisions[0] == "block" and decisions[-1] == "allow", decisions
    assert set(decisions[1:-1]) <= {"pending"}, decisions
    for stop in stops:
        running = [
            t for t in stop.payload.get("background_tasks", []) if t.get("status") == "running"
        ]
        assert stop.pending == bool(running), (stop.payload, stop.note)
    assert model.sent_back(WITHOUT_EFFECT)
    assert sb.score(transcript(sb))["outcome"] == "backed"


@newest_only
def test_a_block_reason_reaches_the_model_in_a_system_reminder(
    sandbox: Sandbox, claude: Path
) -> None:
    """2.1.33x sends the reason wrapped (``<system-reminder>... Stop hook feedback: ...``):
    earnest still knows it for a stop hook's feedback, and its transcript reads without a
    warning about the new record types."""
    sb = sandbox
    turns = Turns(
        [
            Turn(text="Done — I fixed the bug in app.py."),
            Turn(calls=(read(sb.project / "app.py"),)),
            Turn(calls=(fix_edit(sb),)),
            Turn(text="Fixed: total() no longer adds 1."),
        ]
    )
    with FakeModel("anthropic", turns) as model:
        run = run_claude(sb, claude, model, "fix the bug in app.py")
    assert run.returncode == 0, run.stderr[-2000:]
    assert sb.decisions("Stop") == ["block", "allow"]
    sent = model.sent_back(WITHOUT_EFFECT)
    assert sent, "the reason never reached the model"
    texts = [t for t in _strings(sent[0].body.get("messages")) if WITHOUT_EFFECT in t]
    # The reason in a system reminder (earnest's feedback), and Claude Code's own line naming
    # the command that blocked: one block, one feedback.
    wrapped = [t for t in texts if t.lstrip().startswith("<system-reminder>")]
    assert len(wrapped) == 1, [t[:60] for t in texts]
    assert "\nStop hook feedback:\n" in wrapped[0]
    assert [is_stop_hook_feedback(t) for t in texts] == [t in wrapped for t in texts]
    done = run_earnest("trajectory", "score", str(transcript(sb)), "--format", "json")
    assert done.returncode == 0, done.stderr
    assert "unknown record type" not in done.stderr, done.stderr


def test_h_resumed_session_with_a_new_prompt_gets_a_fresh_budget(
    sandbox: Sandbox, claude: Path
) -> None:
    sb = sandbox
    with FakeModel("anthropic", Turns([], fallback="Done — fixed.")) as model:
        first = run_claude(sb, claude, model, "fix the bug in app.py")
    assert first.returncode == 0, first.stderr[-2000:]
    assert sb.decisions("Stop") == ["block", "block", "exhausted"]
    session = session_id(first)
    turns = Turns(
        [
            Turn(text="Done — I fixed it."),
            Turn(calls=(read(sb.project / "app.py"),)),
            Turn(calls=(fix_edit(sb),)),
            Turn(text="Fixed total() in app.py."),
        ]
    )
    with FakeModel("anthropic", turns) as model:
        second = run_claude(
            sb, claude, model, "now fix the bug in total() too", extra=("--resume", session)
        )
    assert second.returncode == 0, second.stderr[-2000:]
    # A new prompt: blocked again (a fresh budget), then allowed once the edit is made.
    assert sb.decisions("Stop") == ["block", "block", "exhausted", "block", "allow"]
    assert {s.payload["session_id"] for s in sb.stops("Stop")} == {session}
    assert len(model.sent_back(WITHOUT_EFFECT)) >= 1
    assert sb.app() == FIXED
    assert sb.score(transcript(sb))["outcome"] == "backed"


def test_i_strict_claims_over_claim_blocked_then_corrected_claim_allowed(
    sandbox: Sandbox, claude: Path
) -> None:
    sb = sandbox
    sb.write("earnest.toml", "[effects]\nstrict_claims = true\n")
    turns = Turns(
        [
            Turn(calls=(read(sb.project / "app.py"),)),
            Turn(calls=(fix_edit(sb),)),
            Turn(text="Fixed app.py and updated utils.py to match."),
            Turn(text="Fixed app.py; I did not touch utils.py."),
        ]
    )
    with FakeModel("anthropic", turns) as model:
        run = run_claude(sb, claude, model, "fix the bug in app.py")
    assert run.returncode == 0, run.stderr[-2000:]
    assert sb.decisions("Stop") == ["block", "allow"]
    reason = sb.stops("Stop")[0].reason
    assert reason.startswith("unverified-claim") and "utils.py" in reason
    assert model.sent_back("unverified-claim")
    assert sb.app() == FIXED
    assert sb.score(transcript(sb))["outcome"] == "backed"


# --- the evidence scenarios (tests/realcli/evidence.py), with the default configuration ---


@pytest.mark.parametrize(
    "scenario", [evidence.J, evidence.K, evidence.L, evidence.M], ids=lambda s: s.name
)
def test_evidence(scenario: evidence.Scenario, sandbox: Sandbox, claude: Path) -> None:
    sb = sandbox
    player = evidence.Player(
        "anthropic",
        "Stop",
        lambda command: Call("Bash", {"command": command}),
        lambda model, prompt: run_claude(
            sb, claude, model, prompt, extra=("--allowedTools", "Bash")
        ),
        lambda: transcript(sb),
    )
    evidence.play(scenario, sb, player)

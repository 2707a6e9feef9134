"""earnest's stop hook inside the real Qwen Code (npm, pinned in clis.py), offline.

Each test: a fresh HOME and git project, ``earnest hook install qwen`` (a ``Stop`` hook in
``.qwen/settings.json``), then ``qwen -p PROMPT --output-format stream-json --approval-mode
yolo`` against a fake OpenAI chat-completions API on 127.0.0.1 (SSE streaming with
``tool_calls``). Offline Qwen needs ``OPENAI_API_KEY``, ``OPENAI_BASE_URL``, ``OPENAI_MODEL`` and
``security.auth.selectedType = "openai"`` in the user settings.

Qwen sets ``stop_hook_active`` on every stop, the first one included: each test checks that it
did here, so the block budget is proven to come from earnest's own state.

Played: a, b, c, d (a write outside the workspace: yolo refuses nothing), e, f, g (a subagent
through Qwen's ``agent`` tool), h, i, j and k (the adapter, its reader and the block budget).
a, c and g also run on the newest release (``qwen-newest`` in clis.py: it declares node >= 22
and runs on node 22 installed from npm; its ``stop_hook_active`` is false on a first stop, see
:func:`flag_always_set`, it refuses a shell ``sed -i`` on a file not read first, so the
scripted fixes of e and j need a read before them there, and it runs subagents in the
background).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import evidence
import pytest
from fakes import Call, FakeModel, ModelRequest, Turn, Turns
from harness import FIXED, CliRun, Sandbox, need, run_bounded, runs_on

CLI = "qwen"
NEWEST = "qwen-newest"  # the newest release, on node 22 (clis.py)
newest_too = pytest.mark.parametrize("qwen", [CLI, NEWEST], indirect=True)
_PIN_OF: dict[Path, str] = {}  # binary -> its pin (the node it runs on)
WITHOUT_EFFECT = "completion-without-effect: expected a workspace_delta"
EVENT = "Stop"

pytestmark = pytest.mark.realcli


@pytest.fixture(scope="session")
def qwen(request: pytest.FixtureRequest) -> Path:
    """The pinned release, or the newest one where a test is marked :data:`newest_too`."""
    pin = getattr(request, "param", CLI)
    exe = need(pin)
    _PIN_OF[exe] = pin
    return exe


@pytest.fixture
def sandbox(tmp_path: Path) -> Sandbox:
    sb = Sandbox(tmp_path, CLI)
    user = sb.home / ".qwen" / "settings.json"
    user.parent.mkdir(parents=True)
    user.write_text(json.dumps({"security": {"auth": {"selectedType": "openai"}}}), "utf-8")
    sb.install_hook()
    return sb


def run_qwen(
    sb: Sandbox, exe: Path, model: FakeModel, prompt: str, *, extra: tuple[str, ...] = ()
) -> CliRun:
    env = {
        **sb.env,
        "OPENAI_API_KEY": "sk-fake-key",
        "OPENAI_BASE_URL": f"{model.url}/v1",
        "OPENAI_MODEL": "fake-model",
    }
    env = runs_on(_PIN_OF.get(exe, CLI), env)
    args = [str(exe), "-p", prompt, "--output-format", "stream-json", "--approval-mode", "yolo"]
    args += extra
    run = run_bounded(args, cwd=sb.project, env=env)
    (sb.root / f"stream-{len(list(sb.root.glob('stream-*')))}.jsonl").write_text(
        run.stdout, encoding="utf-8"
    )
    return run


def read(sb: Sandbox) -> Call:
    return Call("read_file", {"file_path": str(sb.project / "app.py")})


def fix_edit(sb: Sandbox) -> Call:
    return Call(
        "edit",
        {
            "file_path": str(sb.project / "app.py"),
            "old_string": "return sum(xs) + 1",
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
    assert path.parent.name == "chats" and path.name == f"{stops[-1].payload['session_id']}.jsonl"
    return path


def flag_always_set(sb: Sandbox, exe: Path) -> None:
    """Qwen 0.15's stop_hook_active is true at every stop: earnest must not have trusted it.

    Qwen 0.24 (the newest) sets it as Claude Code does, false on a stop no hook forced and true
    after a block: the same decisions hold either way (earnest keeps its own count).
    """
    stops = sb.stops(EVENT)
    flags = [s.payload.get("stop_hook_active") for s in stops]
    if _PIN_OF.get(exe) != NEWEST:
        assert all(f is True for f in flags), flags
        return
    after_block = [False] + [s.decision == "block" for s in stops[:-1]]
    assert flags == after_block, (flags, [s.decision for s in stops])


@newest_too
def test_a_done_without_edit_is_blocked_then_the_edit_is_allowed(
    sandbox: Sandbox, qwen: Path
) -> None:
    sb = sandbox
    turns = Turns(
        [
            Turn(text="Done — I fixed the bug in app.py."),
            Turn(calls=(read(sb),)),
            Turn(calls=(fix_edit(sb),)),
            Turn(text="Fixed: total() no longer adds 1."),
        ]
    )
    with FakeModel("chat", turns) as model:
        run = run_qwen(sb, qwen, model, "fix the bug in app.py")
    assert run.returncode == 0, run.stderr[-2000:]
    assert sb.decisions(EVENT) == ["block", "allow"], run.stdout[-3000:]
    flag_always_set(sb, qwen)
    assert sb.stops(EVENT)[0].reason.startswith(WITHOUT_EFFECT)
    sent = model.sent_back(WITHOUT_EFFECT)
    assert sent and model.agent_requests.index(sent[0]) == 1
    assert turns.overflow == 0
    assert sb.app() == FIXED
    assert sb.score(chat_log(sb))["outcome"] == "backed"
    assert sb.replay(chat_log(sb))["final_completion_without_effect"] == 0


def test_b_question_answered_after_a_read_is_allowed(sandbox: Sandbox, qwen: Path) -> None:
    sb = sandbox
    turns = Turns([Turn(calls=(read(sb),)), Turn(text="total() returns sum(xs) + 1.")])
    with FakeModel("chat", turns) as model:
        run = run_qwen(sb, qwen, model, "What does total() in app.py return?")
    assert run.returncode == 0, run.stderr[-2000:]
    assert sb.decisions(EVENT) == ["allow"]
    flag_always_set(sb, qwen)
    assert sb.stops(EVENT)[0].stderr == ""  # judged, not allowed because of an error
    assert model.sent_back("return sum(xs) + 1")
    assert not model.sent_back("completion-without-effect")
    assert sb.score(chat_log(sb))["outcome"] == "backed"


@newest_too
def test_c_done_forever_is_blocked_max_downgrades_times_then_allowed(
    sandbox: Sandbox, qwen: Path
) -> None:
    sb = sandbox
    with FakeModel("chat", Turns([], fallback="Done — I fixed the bug.")) as model:
        run = run_qwen(sb, qwen, model, "fix the bug in app.py")
    assert run.returncode == 0, run.stderr[-2000:]
    # Were stop_hook_active trusted, the first stop would already count as a continuation
    # without a saved prompt, and the budget would never be spent the same way.
    assert sb.decisions(EVENT) == ["block", "block", "exhausted"]
    flag_always_set(sb, qwen)
    assert len(model.sent_back(WITHOUT_EFFECT)) == 2
    assert sb.score(chat_log(sb))["outcome"] == "completion_without_effect"


def test_d_write_outside_the_workspace_then_i_created_it_is_blocked(
    sandbox: Sandbox, qwen: Path
) -> None:
    """Not a refusal: under ``--approval-mode yolo`` Qwen refuses nothing, and wrote outside
    the project when asked (seen with 0.15.10). "I created newfile.py" is still blocked: a file
    outside the folder the agent works in (``cwd``) is not evidence of the change asked for."""
    sb = sandbox
    outside = sb.root / "outside" / "newfile.py"
    outside.parent.mkdir()
    turns = Turns(
        [Turn(calls=(Call("write_file", {"file_path": str(outside), "content": "X = 1\n"}),))],
        fallback="I created newfile.py.",
    )
    with FakeModel("chat", turns) as model:
        run = run_qwen(sb, qwen, model, "create newfile.py with X = 1")
    assert run.returncode == 0, run.stderr[-2000:]
    assert not (sb.project / "newfile.py").exists()
    assert sb.decisions(EVENT) == ["block", "block", "exhausted"], run.stdout[-3000:]
    flag_always_set(sb, qwen)
    assert sb.stops(EVENT)[0].reason.startswith(WITHOUT_EFFECT)
    assert len(model.sent_back("completion-without-effect")) >= 1
    # `trajectory score` reads the log alone: the write succeeded there, and no workspace tells
    # it the file lies outside the project, so it counts as backed (the hook knows the cwd).
    assert sb.score(chat_log(sb))["outcome"] == "backed"


def test_f_failed_edit_is_blocked(sandbox: Sandbox, qwen: Path) -> None:
    sb = sandbox
    wrong = Call(
        "edit",
        {
            "file_path": str(sb.project / "app.py"),
            "old_string": "return sum(xs) - 1",  # not in the file: Qwen's edit fails
            "new_string": "return sum(xs)",
        },
    )
    turns = Turns(
        [
            Turn(calls=(read(sb),)),
            Turn(calls=(wrong,)),
            Turn(text="Fixed: total() no longer adds 1."),
            Turn(calls=(fix_edit(sb),)),
            Turn(text="Fixed: total() no longer adds 1."),
        ]
    )
    with FakeModel("chat", turns) as model:
        run = run_qwen(sb, qwen, model, "fix the bug in app.py")
    assert run.returncode == 0, run.stderr[-2000:]
    assert sb.decisions(EVENT) == ["block", "allow"], run.stdout[-3000:]
    flag_always_set(sb, qwen)
    reason = sb.stops(EVENT)[0].reason
    assert reason.startswith(WITHOUT_EFFECT) and "2 tool call(s), 1 succeeded" in reason, reason
    assert model.sent_back("0 occurrences found")  # Qwen's edit really failed
    assert turns.overflow == 0
    assert sb.app() == FIXED
    assert sb.score(chat_log(sb))["outcome"] == "backed"


def test_e_fix_made_with_sed_through_the_shell_is_allowed(sandbox: Sandbox, qwen: Path) -> None:
    sb = sandbox
    turns = Turns(
        [
            Turn(calls=(shell("sed -i 's/sum(xs) + 1/sum(xs)/' app.py"),)),
            Turn(text="Fixed the bug in app.py with sed."),
        ]
    )
    with FakeModel("chat", turns) as model:
        run = run_qwen(sb, qwen, model, "fix the bug in app.py")
    assert run.returncode == 0, run.stderr[-2000:]
    assert sb.app() == FIXED
    assert sb.decisions(EVENT) == ["allow"]
    assert sb.stops(EVENT)[0].stderr == ""
    assert sb.score(chat_log(sb))["outcome"] == "backed"


SUBAGENT_TASK = "SUBAGENT: fix total() in app.py"


def subagent_script(task: str, sub: Turns, main: Turns) -> Callable[[ModelRequest], Turn]:
    """The fake model's answers: ``sub``'s to the subagent (its first user message is
    ``task``), ``main``'s to the main agent."""

    def script(request: ModelRequest) -> Turn:
        users = [m for m in request.body.get("messages", []) if m.get("role") == "user"]
        return sub(request) if task in json.dumps(users[:2]) else main(request)

    return script


@newest_too
def test_g_fix_done_by_a_subagent_is_allowed(sandbox: Sandbox, qwen: Path) -> None:
    """The main agent hands the fix to a subagent (Qwen's ``agent`` tool); the subagent reads
    and edits app.py; the main agent's "Done" is allowed: the subagent's edit counts. Qwen
    writes no file for it (0.15) or one the hook does not need (0.24's ``subagents/``): its
    calls are ``ui_telemetry`` records of the main chat log, which the reader takes."""
    sb = sandbox
    main = Turns(
        [
            Turn(
                calls=(
                    Call(
                        "agent",
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
            Turn(calls=(read(sb),)),
            Turn(calls=(fix_edit(sb),)),
            Turn(text="Fixed total() in app.py."),
        ]
    )

    with FakeModel("chat", subagent_script(SUBAGENT_TASK, sub, main)) as model:
        run = run_qwen(sb, qwen, model, "fix the bug in app.py")
    assert run.returncode == 0, run.stderr[-2000:]
    assert sb.app() == FIXED, run.stdout[-3000:]
    assert sub.played == 3 and main.played == 2, (sub.played, main.played)
    decisions = sb.decisions(EVENT)
    if _PIN_OF.get(qwen) == NEWEST:
        # 0.24 runs the subagent in the background: a stop while it runs is not judged (its
        # input lists it as running); the stops after it ended count its edit.
        stops = sb.stops(EVENT)
        assert any(s.pending for s in stops), decisions
        for stop in stops:
            running = [
                t for t in stop.payload.get("background_tasks", []) if t.get("status") == "running"
            ]
            assert stop.pending == bool(running), (stop.payload, stop.note)
        assert decisions[-1] == "allow" and set(decisions) <= {"pending", "allow"}, decisions
    else:
        assert decisions == ["allow"], decisions
    assert not model.sent_back("completion-without-effect")
    assert sb.score(chat_log(sb))["outcome"] == "backed"


SUBAGENT_TESTS = "SUBAGENT: run the tests"


@newest_too
def test_g_a_subagents_failing_test_run_backs_no_pass(sandbox: Sandbox, qwen: Path) -> None:
    """A subagent runs the (red) tests; the main agent says they pass. The subagent's shell
    call is only a ``ui_telemetry`` record, no output: where Qwen calls it a success whatever
    its exit code (0.15), that outcome backs nothing, and the claim is blocked."""
    sb = sandbox
    (sb.project / "test_app.py").write_text(evidence.TEST_APP, encoding="utf-8")  # red
    main = Turns(
        [
            Turn(
                calls=(
                    Call(
                        "agent",
                        {
                            "description": "Run the tests",
                            "prompt": SUBAGENT_TESTS,
                            "subagent_type": "general-purpose",
                        },
                    ),
                )
            ),
        ],
        fallback="The subagent ran the tests: all tests pass. Done.",
    )
    sub = Turns([Turn(calls=(shell("python3 -m unittest"),)), Turn(text="Ran the tests.")])

    with FakeModel("chat", subagent_script(SUBAGENT_TESTS, sub, main)) as model:
        run = run_qwen(sb, qwen, model, "run the tests and tell me if they pass")
    assert run.returncode == 0, run.stderr[-2000:]
    assert sub.played == 2, sub.played
    records = [json.loads(line) for line in chat_log(sb).read_text("utf-8").splitlines()]
    calls = [
        r["systemPayload"]["uiEvent"]
        for r in records
        if (r.get("systemPayload") or {}).get("uiEvent", {}).get("function_name")
        == "run_shell_command"
    ]
    assert len(calls) == 1, calls
    told = (calls[0].get("success"), calls[0].get("status"))
    if _PIN_OF.get(qwen) == NEWEST:  # 0.24 tells the failure, with the run's output
        assert told == (False, "error") and "Exit Code: 1" in calls[0]["error"], calls
    else:  # 0.15 calls the red run (exit status 1) a success, no output
        assert told == (True, "success") and not calls[0].get("error"), calls
    decisions = [d for d in sb.decisions(EVENT) if d != "pending"]
    assert decisions and decisions[0] == "block", (decisions, [s.note for s in sb.stops(EVENT)])


# Qwen's stop_hook_active is true here too: a hook that took it for "the agent goes on after a
# block" would judge the new prompt's first stop against the old, spent budget and allow it.
def test_h_resumed_session_with_a_new_prompt_gets_a_fresh_budget(
    sandbox: Sandbox, qwen: Path
) -> None:
    sb = sandbox
    with FakeModel("chat", Turns([], fallback="Done — fixed.")) as model:
        run_qwen(sb, qwen, model, "fix the bug in app.py")
    assert sb.decisions(EVENT) == ["block", "block", "exhausted"]
    turns = Turns(
        [
            Turn(text="Done — I fixed it."),
            Turn(calls=(read(sb),)),
            Turn(calls=(fix_edit(sb),)),
            Turn(text="Fixed total() in app.py."),
        ]
    )
    with FakeModel("chat", turns) as model:
        run = run_qwen(sb, qwen, model, "now fix the bug in total() too", extra=("--continue",))
    assert run.returncode == 0, run.stderr[-2000:]
    assert sb.decisions(EVENT) == ["block", "block", "exhausted", "block", "allow"]
    flag_always_set(sb, qwen)
    assert len({s.payload["session_id"] for s in sb.stops(EVENT)}) == 1
    assert sb.app() == FIXED


def test_i_strict_claims_over_claim_blocked_then_corrected_claim_allowed(
    sandbox: Sandbox, qwen: Path
) -> None:
    sb = sandbox
    sb.write("earnest.toml", "[effects]\nstrict_claims = true\n")
    turns = Turns(
        [
            Turn(calls=(read(sb),)),
            Turn(calls=(fix_edit(sb),)),
            Turn(text="Fixed app.py and updated utils.py to match."),
            Turn(text="Fixed app.py; I did not touch utils.py."),
        ]
    )
    with FakeModel("chat", turns) as model:
        run = run_qwen(sb, qwen, model, "fix the bug in app.py")
    assert run.returncode == 0, run.stderr[-2000:]
    assert sb.decisions(EVENT) == ["block", "allow"], run.stdout[-3000:]
    flag_always_set(sb, qwen)
    reason = sb.stops(EVENT)[0].reason
    assert reason.startswith("unverified-claim") and "utils.py" in reason
    assert model.sent_back("unverified-claim")
    assert turns.overflow == 0
    assert sb.app() == FIXED
    assert sb.score(chat_log(sb))["outcome"] == "backed"


# --- the evidence scenarios (tests/realcli/evidence.py), with the default configuration ---


@pytest.mark.parametrize(
    "scenario", [evidence.J, evidence.K, evidence.L, evidence.M], ids=lambda s: s.name
)
def test_evidence(scenario: evidence.Scenario, sandbox: Sandbox, qwen: Path) -> None:
    sb = sandbox
    player = evidence.Player(
        "chat", EVENT, shell, lambda model, prompt: run_qwen(sb, qwen, model, prompt)
    )
    evidence.play(scenario, sb, player)

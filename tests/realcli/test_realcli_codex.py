"""earnest's stop hook inside the real Codex CLI (npm, pinned in clis.py), offline.

Each test: a fresh HOME, ``CODEX_HOME`` and git project, ``earnest hook install codex``, then
``codex exec --json PROMPT`` against a fake OpenAI Responses API on 127.0.0.1 (SSE), reached
through a custom ``model_providers`` entry in the temporary ``config.toml``. The model has no
freeform patch tool, so it edits through ``exec_command`` (``apply_patch`` or ``sed``), which
Codex runs for real in its sandbox.

Codex runs a hook only when the project is trusted and the hook definition itself is trusted.
The tests record both in the temporary ``config.toml`` as Codex does when a user reviews the
hook (``[projects."DIR"] trust_level`` and ``[hooks.state."FILE:stop:G:H"] trusted_hash``),
never with ``--dangerously-bypass-hook-trust``; one test shows that an untrusted hook is
skipped without a word.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import evidence
import pytest
from fakes import Call, FakeModel, Turn, Turns
from harness import BUGGY, FIXED, CliRun, Sandbox, need, run_bounded

from conftest import run_earnest

CLI = "codex"
WITHOUT_EFFECT = "completion-without-effect: expected a workspace_delta"

pytestmark = pytest.mark.realcli


@pytest.fixture(scope="session")
def codex() -> Path:
    return need(CLI)


@pytest.fixture
def sandbox(tmp_path: Path) -> Sandbox:
    sb = Sandbox(tmp_path, CLI)
    sb.install_hook()
    return sb


def codex_home(sb: Sandbox) -> Path:
    path = sb.home / ".codex"
    path.mkdir(exist_ok=True)
    return path


def hook_trust(hooks_json: Path) -> str:
    """``[hooks.state]`` entries trusting every handler in ``hooks_json``, as Codex writes them
    when the user reviews a hook: the key names the file, event, group and handler; the hash is
    SHA-256 of the handler's canonical JSON identity."""
    data = json.loads(hooks_json.read_text(encoding="utf-8"))
    lines = []
    for event, groups in data.get("hooks", {}).items():
        key_event = "".join("_" + c.lower() if c.isupper() else c for c in event).lstrip("_")
        for g, group in enumerate(groups):
            for h, handler in enumerate(group.get("hooks", [])):
                identity: dict[str, object] = {
                    "event_name": key_event,
                    "hooks": [
                        {
                            "async": bool(handler.get("async", False)),
                            "command": handler["command"],
                            "timeout": handler.get("timeout", 600),
                            "type": handler.get("type", "command"),
                        }
                    ],
                }
                if group.get("matcher"):
                    identity["matcher"] = group["matcher"]
                canonical = json.dumps(identity, sort_keys=True, separators=(",", ":"))
                digest = hashlib.sha256(canonical.encode("utf-8")).hexdigest()
                key = json.dumps(f"{hooks_json}:{key_event}:{g}:{h}")
                lines.append(f'[hooks.state.{key}]\ntrusted_hash = "sha256:{digest}"\n')
    return "\n".join(lines)


def write_config(
    sb: Sandbox, model: FakeModel, *, trust_hooks: bool = True, trust_project: bool = True
) -> None:
    config = f"""model = "gpt-fake"
model_provider = "fake"
approval_policy = "never"
sandbox_mode = "workspace-write"

[model_providers.fake]
name = "fake"
base_url = "{model.url}/v1"
wire_api = "responses"
env_key = "FAKE_MODEL_KEY"
"""
    if trust_project:
        config += f'\n[projects.{json.dumps(str(sb.project))}]\ntrust_level = "trusted"\n'
    if trust_hooks:
        config += "\n" + hook_trust(sb.project / ".codex" / "hooks.json")
    (codex_home(sb) / "config.toml").write_text(config, encoding="utf-8")


def run_codex(
    sb: Sandbox,
    exe: Path,
    model: FakeModel,
    prompt: str,
    *,
    extra: tuple[str, ...] = (),
    resume: str | None = None,
    trust_hooks: bool = True,
    trust_project: bool = True,
) -> CliRun:
    write_config(sb, model, trust_hooks=trust_hooks, trust_project=trust_project)
    env = {**sb.env, "CODEX_HOME": str(codex_home(sb)), "FAKE_MODEL_KEY": "sk-fake-key"}
    args = [str(exe), "exec"]
    if resume:
        args += ["resume", resume]
    args += ["--json", *extra, prompt]
    run = run_bounded(args, cwd=sb.project, env=env)
    (sb.root / f"exec-{len(list(sb.root.glob('exec-*')))}.jsonl").write_text(
        run.stdout, encoding="utf-8"
    )
    return run


def sh(cmd: str) -> Call:
    return Call("exec_command", {"cmd": cmd})


PATCH_FIX = """apply_patch <<'EOF'
*** Begin Patch
*** Update File: app.py
@@
 def total(xs):
-    return sum(xs) + 1
+    return sum(xs)
*** End Patch
EOF"""

PATCH_WRONG = PATCH_FIX.replace("return sum(xs) + 1", "return sum(ys) + 2")

PATCH_NEW = """apply_patch <<'EOF'
*** Begin Patch
*** Add File: newfile.py
+X = 1
*** End Patch
EOF"""


def rollout(sb: Sandbox) -> Path:
    stops = sb.stops("Stop")
    assert stops, "the hook never ran"
    path = Path(stops[-1].payload["transcript_path"])
    assert path.is_file(), path
    return path


def thread_id(run: CliRun) -> str:
    for event in run.events():
        if event.get("type") == "thread.started":
            return str(event["thread_id"])
    raise AssertionError(f"no thread id in: {run.stdout[:500]}")


def test_untrusted_hook_is_skipped_without_a_word(sandbox: Sandbox, codex: Path) -> None:
    """Codex's own rule (why ``hook doctor`` exists): no hook trust, no hook run, no message."""
    sb = sandbox
    turns = Turns([Turn(text="Done — I fixed the bug in app.py.")])
    with FakeModel("responses", turns) as model:
        run = run_codex(sb, codex, model, "fix the bug in app.py", trust_hooks=False)
    assert run.returncode == 0, run.stderr[-2000:]
    assert sb.stops() == []
    assert len(model.agent_requests) == 1
    assert "hook" not in run.stdout.lower()


@pytest.mark.parametrize(
    ("trust_project", "trust_hooks"), [(False, False), (True, False), (False, True), (True, True)]
)
def test_hook_doctor_says_whether_codex_will_run_the_hook(
    tmp_path: Path, codex: Path, trust_project: bool, trust_hooks: bool
) -> None:
    """``earnest hook doctor codex`` against what the real Codex then does (defect 3): it
    runs the hook only when the project and the hook definition are both trusted."""
    sb = Sandbox(tmp_path, CLI)
    sb.install_hook(tap=False)  # the command exactly as installed: doctor must recognise it
    turns = Turns([Turn(text="Done — I fixed the bug in app.py.")], fallback="Done.")
    with FakeModel("responses", turns) as model:
        write_config(sb, model, trust_hooks=trust_hooks, trust_project=trust_project)
        env = {
            **sb.env,
            "CODEX_HOME": str(codex_home(sb)),
            "PATH": f"{codex.parent}:{sb.env['PATH']}",
        }
        doctor = run_earnest(
            "hook", "doctor", CLI, "--dir", str(sb.project), "--format", "json", env=env
        )
        run = run_codex(
            sb,
            codex,
            model,
            "fix the bug in app.py",
            trust_hooks=trust_hooks,
            trust_project=trust_project,
        )
    assert run.returncode == 0, run.stderr[-2000:]
    ran = bool(model.sent_back(WITHOUT_EFFECT))
    assert ran is (trust_project and trust_hooks)
    report = json.loads(doctor.stdout)
    (entry,) = [e for e in report if e["cli"] == CLI and e["scope"] == "project"]
    assert entry["cli_version"].endswith("0.171.0")
    assert (entry["verdict"] == "does not run") is (not ran), entry
    assert doctor.returncode == (0 if ran else 1), doctor.stdout + doctor.stderr
    failed = {c["name"] for c in entry["checks"] if not c["ok"]}
    assert ("codex project trust" in failed) is (not trust_project)
    assert ("codex hook trust" in failed) is (not trust_hooks)


def test_a_done_without_edit_is_blocked_then_the_edit_is_allowed(
    sandbox: Sandbox, codex: Path
) -> None:
    sb = sandbox
    turns = Turns(
        [
            Turn(text="Done — I fixed the bug in app.py."),
            Turn(calls=(sh(PATCH_FIX),)),
            Turn(text="Fixed: total() no longer adds 1."),
        ]
    )
    with FakeModel("responses", turns) as model:
        run = run_codex(sb, codex, model, "fix the bug in app.py")
    assert run.returncode == 0, run.stderr[-2000:]
    assert sb.decisions("Stop") == ["block", "allow"]
    assert sb.stops("Stop")[0].reason.startswith(WITHOUT_EFFECT)
    sent = model.sent_back(WITHOUT_EFFECT)
    assert sent and model.agent_requests.index(sent[0]) == 1
    assert turns.overflow == 0
    assert sb.app() == FIXED
    score = sb.score(rollout(sb))
    assert score["outcome"] == "backed", score["reason"]
    replay = sb.replay(rollout(sb))
    assert replay["final_completion_without_effect"] == 0


def test_b_question_answered_after_a_read_is_allowed(sandbox: Sandbox, codex: Path) -> None:
    sb = sandbox
    turns = Turns([Turn(calls=(sh("cat app.py"),)), Turn(text="total() returns sum(xs) + 1.")])
    with FakeModel("responses", turns) as model:
        run = run_codex(sb, codex, model, "What does total() in app.py return?")
    assert run.returncode == 0, run.stderr[-2000:]
    assert sb.decisions("Stop") == ["allow"]
    assert model.sent_back("return sum(xs) + 1")
    assert not model.sent_back("completion-without-effect")
    assert sb.score(rollout(sb))["outcome"] == "backed"
    assert sb.replay(rollout(sb))["downgraded"] == 0


def test_c_done_forever_is_blocked_max_downgrades_times_then_allowed(
    sandbox: Sandbox, codex: Path
) -> None:
    sb = sandbox
    with FakeModel("responses", Turns([], fallback="Done — I fixed the bug.")) as model:
        run = run_codex(sb, codex, model, "fix the bug in app.py")
    assert run.returncode == 0, run.stderr[-2000:]
    assert sb.decisions("Stop") == ["block", "block", "exhausted"]
    assert sb.stops("Stop")[-1].note.startswith("earnest: effect_gate_exhausted:")
    assert len(model.sent_back(WITHOUT_EFFECT)) == 2
    assert len(model.agent_requests) == 3
    # Codex records each block in the rollout as a <hook_prompt> user message.
    assert rollout(sb).read_text(encoding="utf-8").count("<hook_prompt") >= 2


def test_c_rollout_of_three_empty_claims_scores_without_effect(
    sandbox: Sandbox, codex: Path
) -> None:
    sb = sandbox
    with FakeModel("responses", Turns([], fallback="Done — I fixed the bug.")) as model:
        run_codex(sb, codex, model, "fix the bug in app.py")
    assert sb.decisions("Stop") == ["block", "block", "exhausted"]
    assert sb.score(rollout(sb))["outcome"] == "completion_without_effect"
    replay = sb.replay(rollout(sb))
    assert (replay["claims"], replay["downgraded"], replay["exhausted"]) == (3, 2, 1)


def test_c_exec_json_log_of_an_empty_done_scores_without_effect(
    sandbox: Sandbox, codex: Path
) -> None:
    """``codex exec --json`` has no prompt in it; "Done — I fixed the bug." with no tool call
    is still a completion without effect."""
    sb = sandbox
    with FakeModel("responses", Turns([], fallback="Done — I fixed the bug.")) as model:
        run = run_codex(sb, codex, model, "fix the bug in app.py")
    log = sb.root / "exec-0.jsonl"
    assert log.read_text(encoding="utf-8") == run.stdout
    assert sb.score(log)["outcome"] == "completion_without_effect"


def test_d_patch_rejected_by_read_only_sandbox_then_i_created_it_is_blocked(
    sandbox: Sandbox, codex: Path
) -> None:
    sb = sandbox
    turns = Turns([Turn(calls=(sh(PATCH_NEW),))], fallback="I created newfile.py.")
    with FakeModel("responses", turns) as model:
        run = run_codex(
            sb, codex, model, "create newfile.py with X = 1", extra=("--sandbox", "read-only")
        )
    assert run.returncode == 0, run.stderr[-2000:]
    assert not (sb.project / "newfile.py").exists()
    assert model.sent_back("read-only sandbox")  # Codex refused the patch
    assert sb.decisions("Stop") == ["block", "block", "exhausted"]
    assert len(model.sent_back("completion-without-effect")) == 2


def test_e_fix_made_with_sed_through_the_shell_is_allowed(sandbox: Sandbox, codex: Path) -> None:
    sb = sandbox
    turns = Turns(
        [
            Turn(calls=(sh("sed -i 's/sum(xs) + 1/sum(xs)/' app.py"),)),
            Turn(text="Fixed the bug in app.py with sed."),
        ]
    )
    with FakeModel("responses", turns) as model:
        run = run_codex(sb, codex, model, "fix the bug in app.py")
    assert run.returncode == 0, run.stderr[-2000:]
    assert sb.app() == FIXED
    assert sb.decisions("Stop") == ["allow"]
    assert not model.sent_back("completion-without-effect")
    assert sb.score(rollout(sb))["outcome"] == "backed"
    assert sb.replay(rollout(sb))["downgraded"] == 0


# Codex records a patch that fails to apply like one the sandbox refuses: an output text
# ("apply_patch verification failed: ...") with no exit code; it is a failure.
def test_f_failed_edit_is_blocked(sandbox: Sandbox, codex: Path) -> None:
    sb = sandbox
    turns = Turns(
        [
            Turn(calls=(sh(PATCH_WRONG),)),  # its context is not in app.py: Codex rejects it
            Turn(text="Fixed: total() no longer adds 1."),
        ],
        fallback="Fixed: total() no longer adds 1.",
    )
    with FakeModel("responses", turns) as model:
        run = run_codex(sb, codex, model, "fix the bug in app.py")
    assert run.returncode == 0, run.stderr[-2000:]
    assert sb.app() == BUGGY
    assert sb.decisions("Stop")[0] == "block"
    assert sb.decisions("Stop") == ["block", "block", "exhausted"]
    assert model.sent_back("completion-without-effect")


def test_h_resumed_session_with_a_new_prompt_gets_a_fresh_budget(
    sandbox: Sandbox, codex: Path
) -> None:
    sb = sandbox
    with FakeModel("responses", Turns([], fallback="Done — fixed.")) as model:
        first = run_codex(sb, codex, model, "fix the bug in app.py")
    assert first.returncode == 0, first.stderr[-2000:]
    assert sb.decisions("Stop") == ["block", "block", "exhausted"]
    thread = thread_id(first)
    turns = Turns(
        [
            Turn(text="Done — I fixed it."),
            Turn(calls=(sh(PATCH_FIX),)),
            Turn(text="Fixed total() in app.py."),
        ]
    )
    with FakeModel("responses", turns) as model:
        second = run_codex(sb, codex, model, "now fix the bug in total() too", resume=thread)
    assert second.returncode == 0, second.stderr[-2000:]
    assert sb.decisions("Stop") == ["block", "block", "exhausted", "block", "allow"]
    assert {s.payload["session_id"] for s in sb.stops("Stop")} == {thread}
    assert model.sent_back(WITHOUT_EFFECT)
    assert sb.app() == FIXED


def test_i_strict_claims_over_claim_blocked_then_corrected_claim_allowed(
    sandbox: Sandbox, codex: Path
) -> None:
    sb = sandbox
    sb.write("earnest.toml", "[effects]\nstrict_claims = true\n")
    turns = Turns(
        [
            Turn(calls=(sh(PATCH_FIX),)),
            Turn(text="Fixed app.py and updated utils.py to match."),
            Turn(text="Fixed app.py; I did not touch utils.py."),
        ]
    )
    with FakeModel("responses", turns) as model:
        run = run_codex(sb, codex, model, "fix the bug in app.py")
    assert run.returncode == 0, run.stderr[-2000:]
    assert sb.app() == FIXED
    assert sb.decisions("Stop") == ["block", "allow"]
    reason = sb.stops("Stop")[0].reason
    assert reason.startswith("unverified-claim") and "utils.py" in reason
    assert model.sent_back("unverified-claim")


# --- the evidence scenarios (tests/realcli/evidence.py), with the default configuration ---


@pytest.mark.parametrize(
    "scenario",
    [evidence.J, evidence.K, evidence.L, evidence.M, evidence.N],
    ids=lambda s: s.name,
)
def test_evidence(scenario: evidence.Scenario, sandbox: Sandbox, codex: Path) -> None:
    sb = sandbox
    # Codex's workspace-write sandbox keeps .git read-only: m's commit and push need it off
    # (n shows the refused commit).
    extra = ("--sandbox", "danger-full-access") if scenario is evidence.M else ()
    player = evidence.Player(
        "responses",
        "Stop",
        sh,
        lambda model, prompt: run_codex(sb, codex, model, prompt, extra=extra),
        lambda: rollout(sb),
    )
    evidence.play(scenario, sb, player)

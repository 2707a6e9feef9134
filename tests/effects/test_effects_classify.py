"""Classifying tool results: outcomes, kinds, artifacts; synthetic and from real transcripts."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import TRANSCRIPTS
from earnest.effects import (
    DEFAULT_REGISTRY,
    EffectClass,
    classify_tool_result,
    observe_tool_result,
    tool_succeeded,
)

# -- outcomes -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "result",
    [
        {"tool_name": "Write", "args": {"file_path": "a"}, "success": False},
        {"tool_name": "Write", "args": {"file_path": "a"}, "is_error": True},
        {"tool_name": "Write", "args": {"file_path": "a"}, "error": "permission denied"},
        {"tool_name": "Write", "args": {"file_path": "a"}, "error": {"type": "x"}},
        {"tool_name": "write_file", "args": {"file_path": "a"}, "status": "error"},
        {"tool_name": "execute_bash", "args": {"command": "touch a"}, "metadata": {"exit_code": -1}},
        {"tool_name": "Bash", "args": {"command": "touch a"}, "exit_code": 2},
        {"tool_name": "Bash", "args": {"command": "pytest"}, "content": "Exit code 1\nFAILED"},
        {"tool_name": "Bash", "args": {"command": "pytest"}, "content": [{"type": "text", "text": "Exit code 137"}]},
    ],
)  # fmt: skip
def test_failed_tools_give_no_evidence(result: dict[str, Any]):
    assert classify_tool_result(result) == ()
    assert not observe_tool_result(result).success


def test_success_markers_that_do_not_mean_failure():
    assert tool_succeeded({"error": None, "is_error": False, "success": True})
    assert tool_succeeded({"status": "success", "exit_code": 0})
    assert tool_succeeded({"content": "Exit code 0"}, shell=True)
    # "Exit code N" is Claude Code's Bash convention, not a marker on other tools' output
    assert tool_succeeded({"content": "Exit code 1 appears in this file"}, shell=False)


def test_read_tools_and_bookkeeping_give_no_evidence():
    for name in ("Read", "Grep", "Glob", "LS", "WebFetch", "WebSearch", "Task", "read_file"):
        obs = observe_tool_result({"tool_name": name, "args": {"file_path": "a"}})
        assert obs.evidence == () and obs.grounding, name
    for name in ("TodoWrite", "ExitPlanMode", "AskUserQuestion", "submit", "KillShell"):
        obs = observe_tool_result({"tool_name": name, "args": {}})
        assert obs.evidence == () and not obs.grounding, name


def test_unknown_tools_ground_but_have_no_effect():
    obs = observe_tool_result({"tool_name": "mcp__figma__get_file", "args": {"key": "x"}})
    assert obs.kind is None and obs.evidence == () and obs.grounding


def test_file_tools_are_deltas_with_their_paths():
    (ev,) = classify_tool_result(
        {"tool_name": "Write", "args": {"file_path": "src/a.py"}}, turn_index=3
    )
    assert (ev.effect_class, ev.kind, ev.artifact_paths, ev.turn_index) == (
        EffectClass.WORKSPACE_DELTA, "write", ("src/a.py",), 3,
    )  # fmt: skip
    (ev,) = classify_tool_result(
        {"name": "NotebookEdit", "arguments": '{"notebook_path": "n.ipynb"}'}
    )
    assert ev.kind == "edit" and ev.artifact_paths == ("n.ipynb",)
    (ev,) = classify_tool_result({"tool_name": "create", "args": {"filename": "reproduce.py"}})
    assert ev.artifact_paths == ("reproduce.py",)


def test_a_file_tool_without_a_path_is_an_artifactless_delta():
    (ev,) = classify_tool_result({"tool_name": "edit", "args": {"replacement_text": "x"}})
    assert ev.kind == "edit" and ev.artifact_paths == ()


def test_openhands_editor_is_judged_by_its_command():
    def kinds(command: str) -> list[str]:
        r = {"tool_name": "str_replace_editor", "args": {"command": command, "path": "/w/a.py"}}
        return [e.kind for e in classify_tool_result(r)]

    assert kinds("create") == ["write"]
    assert kinds("str_replace") == kinds("insert") == kinds("undo_edit") == ["edit"]
    assert kinds("view") == []
    assert observe_tool_result(
        {"tool_name": "str_replace_editor", "args": {"command": "view", "path": "/w"}}
    ).grounding


def test_codex_apply_patch_paths_come_from_the_patch():
    patch = "*** Begin Patch\n*** Add File: a.py\n+x\n*** Delete File: b.py\n*** End Patch\n"
    evs = classify_tool_result({"tool_name": "apply_patch", "arguments": patch})
    assert [(e.kind, e.artifact_paths) for e in evs] == [("edit", ("a.py",)), ("delete", ("b.py",))]
    evs = classify_tool_result({"tool_name": "apply_patch", "args": {"input": patch}})
    assert [e.kind for e in evs] == ["edit", "delete"]


def test_move_tools_delete_the_source_and_write_the_destination():
    evs = classify_tool_result(
        {"tool_name": "move_file", "args": {"source": "a", "destination": "b"}}
    )
    assert [(e.kind, e.artifact_paths) for e in evs] == [("write", ("b",)), ("delete", ("a",))]


def test_shell_tools_split_into_one_evidence_per_effect():
    evs = classify_tool_result(
        {"tool_name": "Bash", "args": {"command": "ruff check . && pytest && touch ok"}}
    )
    assert [(e.effect_class.value, e.kind, e.command) for e in evs] == [
        ("verified_check", "lint", "ruff check ."),
        ("verified_check", "test", "pytest"),
        ("workspace_delta", "write", "touch ok"),
    ]


def test_codex_shell_argv_lists_are_classified():
    r = {"tool_name": "shell", "arguments": json.dumps({"command": ["bash", "-lc", "pytest -q"]})}
    assert [e.kind for e in classify_tool_result(r)] == ["test"]


def test_background_shell_checks_have_not_passed_yet():
    r = {"tool_name": "Bash", "args": {"command": "pytest && touch x", "run_in_background": True}}
    assert [e.kind for e in classify_tool_result(r)] == ["write"]


def test_read_only_shell_grounds_without_evidence():
    obs = observe_tool_result({"tool_name": "Bash", "args": {"command": "git status && ls"}})
    assert obs.evidence == () and obs.grounding and obs.command == "git status && ls"


@pytest.mark.parametrize(
    "args",
    [
        {"cmd": "rm -rf build && touch done.txt", "readonly": True},
        {"cmd": "pytest -q", "readonly": True},
        {"command": "sed -i s/a/b/ x.py", "read_only": True},
        {"cmd": ["bash", "-lc", "echo hi > out.txt"], "readOnly": True},
        '{"cmd": "make install", "readonly": true}',
    ],
)
def test_a_shell_call_its_tool_flags_read_only_is_a_read(args: Any):
    obs = observe_tool_result({"tool_name": "shell", "arguments": args})
    assert obs.kind == "read" and obs.evidence == () and obs.grounding
    assert obs.command  # the command is still reported


@pytest.mark.parametrize("flag", [False, "true", 1, None])
def test_only_a_true_readonly_flag_makes_a_shell_call_a_read(flag: Any):
    r = {"tool_name": "shell", "args": {"cmd": "touch done.txt", "readonly": flag}}
    assert [e.kind for e in classify_tool_result(r)] == ["write"]


def test_a_read_only_flagged_shell_call_earns_no_credit_at_the_gate(tmp_path: Any):
    from earnest.effects import EffectGate, EffectGateConfig, EvaluationDecision, EvaluationResult

    (tmp_path / "done.txt").write_text("made")
    g = EffectGate(EffectGateConfig(enabled=True), workspace=tmp_path, env={})
    g.reset()
    g.record(
        [{"tool_name": "shell", "args": {"cmd": "touch done.txt && pytest", "readonly": True}}]
    )
    out = g.apply(EvaluationResult(EvaluationDecision.COMPLETE, 0.9), task_type="edit")
    assert out.decision is EvaluationDecision.RETRY


def test_dedicated_test_tool_is_a_check_and_exec_follows_the_unknown_policy():
    (ev,) = classify_tool_result({"tool_name": "test", "args": {"cmd": "pytest"}})
    assert ev.effect_class is EffectClass.VERIFIED_CHECK and ev.command == "pytest"
    (ev,) = classify_tool_result({"tool_name": "execute_ipython_cell", "args": {"code": "1"}})
    assert ev.kind == "shell" and ev.detail.startswith("unknown-command")
    strict = DEFAULT_REGISTRY.with_overrides({}, unknown_shell="ignore")
    assert classify_tool_result({"tool_name": "execute_ipython_cell", "args": {}}, strict) == ()
    assert (
        classify_tool_result({"tool_name": "Bash", "args": {"command": "python x.py"}}, strict)
        == ()
    )


def test_configured_names_are_classified():
    custom = DEFAULT_REGISTRY.with_overrides({"save_report": "write"})
    (ev,) = classify_tool_result({"tool_name": "save_report", "args": {"path": "r.md"}}, custom)
    assert ev.artifact_paths == ("r.md",)


JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=30),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4)
    ),
    max_leaves=20,
)
KEYS = st.sampled_from(["tool_name", "name", "args", "arguments", "input", "success",
                        "is_error", "error", "status", "exit_code", "content", "metadata"])  # fmt: skip
NAMES = st.sampled_from(["Bash", "Write", "apply_patch", "str_replace_editor", "move_file",
                         "test", "execute_ipython_cell", "Read", "x"])  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(KEYS, JSONISH, max_size=8), NAMES)
def test_classification_never_raises_on_odd_results(result: dict[str, Any], name: str):
    observe_tool_result(result)
    observe_tool_result({**result, "tool_name": name})


# -- real transcripts -----------------------------------------------------------------------


def claude_code_results(path: Path) -> Iterator[dict[str, Any]]:
    """tool_use/tool_result pairs of a Claude Code JSONL session, as tool-result mappings."""
    uses: dict[str, dict[str, Any]] = {}
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue  # real files carry broken lines
        message = event.get("message") if isinstance(event, dict) else None
        content = message.get("content") if isinstance(message, dict) else None
        for block in content if isinstance(content, list) else []:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "tool_use":
                uses[block["id"]] = block
            elif block.get("type") == "tool_result" and block.get("tool_use_id") in uses:
                use = uses[block["tool_use_id"]]
                yield {"tool_name": use["name"], "args": use.get("input"),
                       "is_error": block.get("is_error"), "content": block.get("content")}  # fmt: skip


def cc(name: str) -> list[dict[str, Any]]:
    return list(claude_code_results(TRANSCRIPTS / "claude-code" / name))


def shell_kinds(results: list[dict[str, Any]], command_prefix: str) -> list[list[str]]:
    return [
        [e.kind for e in classify_tool_result(r)]
        for r in results
        if r["tool_name"] == "Bash" and str(r["args"].get("command", "")).startswith(command_prefix)
    ]


def test_drmaciver_edit_and_pytest_session():
    results = cc("drmaciver-coverage-test-fix.jsonl")
    edits = [e for r in results if r["tool_name"] == "Edit" for e in classify_tool_result(r)]
    assert [e.artifact_paths for e in edits][:2] == [
        ("/tmp/tmpw6sk2trg/src/math_utils.py",), ("/tmp/tmpw6sk2trg/tests/test_math_utils.py",)
    ]  # fmt: skip
    assert shell_kinds(results, "python -m pytest") == [["test"]]
    assert shell_kinds(results, "git status") == [[], []]
    # the first commit succeeded; the second one exited 1 ("nothing to commit"): no evidence
    assert shell_kinds(results, "git add") == [["vcs", "vcs"], []]
    reads = [r for r in results if r["tool_name"] in {"Read", "Glob"}]
    assert reads and all(classify_tool_result(r) == () for r in reads)


def test_drmaciver_rust_port_session():
    results = cc("drmaciver-python-to-rust-port.jsonl")
    writes = [e for r in results if r["tool_name"] == "Write" for e in classify_tool_result(r)]
    assert len(writes) == 7 and all(
        e.artifact_paths[0].startswith("/tmp/tmpqwh7888i/") for e in writes
    )
    assert shell_kinds(results, "cargo test") == [["test"]]
    assert shell_kinds(results, "cargo install") == [["install"]]
    assert shell_kinds(results, "just check") == [["check"]]
    assert shell_kinds(results, "just lint") == [["lint"]]
    (rm_tests,) = [
        r for r in results if r["tool_name"] == "Bash" and r["args"]["command"].startswith("rm -r ")
    ]
    (ev,) = classify_tool_result(rm_tests)
    assert ev.kind == "delete" and ev.artifact_paths == ("/tmp/tmpqwh7888i/tests",)
    todo = [r for r in results if r["tool_name"] == "TodoWrite"]
    assert todo and all(not observe_tool_result(r).grounding for r in todo)


def test_kimuson_write_denied_by_permissions_gives_no_evidence():
    results = cc("kimuson-1af7fc5e-init-empty-repo.jsonl")
    (write,) = [r for r in results if r["tool_name"] == "Write"]
    assert write["is_error"] is True
    assert classify_tool_result(write) == ()
    assert all(
        not classify_tool_result(r) for r in results
    )  # nothing in this session changed anything


def test_kimuson_orchestrator_writes_files():
    results = cc("kimuson-fe5e1c67-orchestrator-nextjs-todo-sidechains.jsonl")
    writes = [e for r in results if r["tool_name"] == "Write" for e in classify_tool_result(r)]
    assert len(writes) >= 20
    assert all(e.kind == "write" and e.artifact_paths for e in writes)
    heredoc_writes = [e for r in results if r["tool_name"] == "Bash"
                      for e in classify_tool_result(r) if e.detail == "redirect >"]  # fmt: skip
    assert any(e.artifact_paths == ("types/index.ts",) for e in heredoc_writes)


def openhands_results(name: str) -> list[dict[str, Any]]:
    events = json.loads((TRANSCRIPTS / "openhands" / name).read_text())
    by_cause = {
        e["cause"]: e for e in events if e.get("observation") and e.get("cause") is not None
    }
    out = []
    for event in events:
        meta = event.get("tool_call_metadata")
        if not event.get("action") or not meta:
            continue
        (call,) = meta["model_response"]["choices"][0]["message"]["tool_calls"]
        obs = by_cause.get(event["id"], {})
        out.append({
            "tool_name": call["function"]["name"], "arguments": call["function"]["arguments"],
            "success": obs.get("success"), "metadata": obs.get("extras", {}).get("metadata"),
        })  # fmt: skip
    return out


def test_openhands_editor_and_bash_events():
    results = openhands_results("openhands-trajs-basic_gui_mode.json")
    judged = [
        (r["tool_name"], [(e.kind, e.artifact_paths) for e in classify_tool_result(r)])
        for r in results
    ]
    assert judged == [
        ("execute_bash", [("write", ("/workspace/todo-app",))]),
        ("str_replace_editor", [("write", ("/workspace/todo-app/index.html",))]),
        ("str_replace_editor", [("write", ("/workspace/todo-app/app.js",))]),
        ("execute_bash", []),  # the server never returned: exit_code -1, success false
    ]


def test_openhands_rename_with_mv_and_views():
    results = openhands_results("openhands-trajs-wrong_initial_state.json")
    judged = [[(e.kind, e.artifact_paths) for e in classify_tool_result(r)] for r in results]
    assert judged[0] == [] and judged[2] == []  # views
    assert judged[1] == [
        ("write", ("/workspace/2048.py",)),
        ("delete", ("/workspace/game_2048.py",)),
    ]
    assert observe_tool_result(results[0]).grounding


def test_gemini_cli_stream_tools():
    uses: dict[str, dict[str, Any]] = {}
    results = []
    path = TRANSCRIPTS / "gemini-cli" / "metaphi-figma-010ac575-stream.jsonl"
    for line in path.read_text().splitlines():
        event = json.loads(line)
        if event.get("type") == "tool_use":
            uses[event["tool_id"]] = event
        elif event.get("type") == "tool_result" and event["tool_id"] in uses:
            use = uses[event["tool_id"]]
            results.append({"tool_name": use["tool_name"], "parameters": use["parameters"],
                            "status": event.get("status"), "error": event.get("error")})  # fmt: skip
    writes = [e for r in results if r["tool_name"] == "write_file" for e in classify_tool_result(r)]
    assert writes and writes[0].artifact_paths == ("ground_truth/manifest.json",)
    failed = [r for r in results if r["status"] == "error"]
    assert failed and all(classify_tool_result(r) == () for r in failed)
    reads = [r for r in results if r["tool_name"] == "read_file" and r["status"] == "success"]
    assert reads and all(observe_tool_result(r).grounding for r in reads)


def test_claude_managed_agent_tools():
    uses: dict[str, dict[str, Any]] = {}
    results = []
    for line in (
        (TRANSCRIPTS / "claude-managed-agents" / "openhai-context-location.jsonl")
        .read_text()
        .splitlines()
    ):
        raw = json.loads(line).get("raw", {})
        if raw.get("type") == "agent.tool_use":
            uses[raw["id"]] = raw
        elif raw.get("type") == "agent.tool_result" and raw.get("tool_use_id") in uses:
            use = uses[raw["tool_use_id"]]
            results.append({"tool_name": use["name"], "input": use["input"],
                            "is_error": raw.get("is_error"), "content": raw.get("content")})  # fmt: skip
    by_name: dict[str, list[list[str]]] = {}
    for r in results:
        by_name.setdefault(r["tool_name"], []).append([e.kind for e in classify_tool_result(r)])
    assert by_name["write"] and all(k == ["write"] for k in by_name["write"])
    assert by_name["edit"] and all(k == ["edit"] for k in by_name["edit"])
    assert all(k == [] for k in by_name["web_fetch"] + by_name["web_search"] + by_name["read"])
    assert any(k for k in by_name["bash"])


def test_swe_agent_function_calls():
    traj = json.loads(
        (
            TRANSCRIPTS / "swe-agent" / "sweagent-replay-function_calling-marshmallow-1867.traj"
        ).read_text()
    )
    calls = [tc["function"] for h in traj["history"] for tc in h.get("tool_calls") or []]
    judged = [
        (
            c["name"],
            [
                (e.kind, e.artifact_paths)
                for e in classify_tool_result({"name": c["name"], "arguments": c["arguments"]})
            ],
        )
        for c in calls
    ]
    assert judged[0] == ("create", [("write", ("reproduce.py",))])
    assert ("edit", [("edit", ())]) in judged
    assert ("bash", [("delete", ("reproduce.py",))]) in judged
    assert judged[-1] == ("submit", [])


@pytest.mark.parametrize(
    "output",
    [
        # Codex 0.171, apply_patch inside exec_command whose context is not in the file.
        "apply_patch verification failed: Failed to find expected lines in /w/app.py:\n"
        "def total(xs):\n    return sum(ys) + 2",
        "apply_patch verification failed: invalid hunk at line 3, '@@' is not a valid hunk header",
        "Invalid patch: The first line of the patch must be '*** Begin Patch'",
        "Failed to find context 'def total' in /w/app.py",
        "patch rejected: writing is blocked by read-only sandbox",
        "Exit code: 0\nWall time: 0 seconds\nOutput:\napply_patch verification failed: no hunks",
    ],
)
def test_a_patch_that_did_not_apply_is_a_failure(output: str) -> None:
    patch = "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: app.py\n*** End Patch\nEOF"
    for result in (
        {"name": "exec_command", "arguments": {"cmd": patch}, "output": output},
        {"name": "apply_patch", "input": {"input": patch[16:-4]}, "output": output},
    ):
        observed = observe_tool_result(result)
        assert not observed.success and observed.evidence == (), (result, observed)


def test_a_patch_error_later_in_a_programs_output_is_not_a_failure() -> None:
    result = {
        "name": "exec_command",
        "arguments": {"cmd": "sed -i 's/a/b/' app.py && cat log.txt"},
        "output": "Exit code: 0\nOutput:\nline one\napply_patch verification failed: old log\n",
    }
    observed = observe_tool_result(result)
    assert observed.success and observed.evidence

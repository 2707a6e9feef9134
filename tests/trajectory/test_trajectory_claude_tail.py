"""The backward scan for the current run: it must give exactly what a full read gives.

Every comparison is against ``read_claude_code_from(path, 0, run_only=True)``, the reader
reading the whole file. Message indexes and turn numbers count from where reading began, so
they are compared relative to the run's first; everything else must be identical.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import TRANSCRIPTS
from earnest.hooks.config import HookConfig
from earnest.hooks.core import RunView, decide
from earnest.hooks.state import SessionState
from earnest.trajectory import Trajectory
from earnest.trajectory.readers.claude_code import read_claude_code_from
from earnest.trajectory.readers.claude_tail import find_run_start, read_claude_run_tail

CC = TRANSCRIPTS / "claude-code"


def full(path: Path, *, final: bool = True) -> Trajectory:
    session, _ = read_claude_code_from(path, 0, final=final, run_only=True)
    return session.trajectory()


def tail(path: Path, *, final: bool = True, fast: bool = False) -> Trajectory:
    session, offset = read_claude_run_tail(path, final=final)
    whole, whole_offset = read_claude_code_from(path, 0, final=final, run_only=True)
    assert offset == whole_offset
    if fast and find_run_start(path, final=final).offset > 0:
        # The tail was used, not the fallback: fewer lines were read than from byte 0.
        assert session.lines < whole.lines
    return session.trajectory()


def view(t: Trajectory) -> dict[str, Any]:
    """What the stop hook's decision can depend on, with positions made relative."""
    first_turn = t.tool_calls[0].turn_index if t.tool_calls else 0
    return {
        "request": t.user_request,
        "final": t.final_message,
        "termination": t.termination,
        "run_offset": t.metadata.get("run_offset"),
        "messages": [(m.role, m.text, m.kind, m.is_sidechain, m.timestamp) for m in t.messages],
        "calls": [
            (
                c.id,
                c.name,
                c.arguments,
                c.outcome,
                c.output_excerpt,
                c.is_sidechain,
                c.exit_code,
                c.error,
                c.details,
                c.turn_index - first_turn,
            )
            for c in t.tool_calls
        ],
        "edits": t.file_edits,
    }


def decision(t: Trajectory, workspace: Path) -> tuple[bool, str, str | None]:
    run = RunView.from_trajectory(t)
    state = SessionState(cli="claude-code", session_id="s")
    outcome = decide(run, HookConfig(), workspace, state)
    return outcome.blocked, outcome.reason, outcome.system_message


def assert_same_run(path: Path, *, final: bool = True, fast: bool = False) -> Trajectory:
    got, want = tail(path, final=final, fast=fast), full(path, final=final)
    assert view(got) == view(want)
    with tempfile.TemporaryDirectory() as workspace:
        assert decision(got, Path(workspace)) == decision(want, Path(workspace))
        got_key = RunView.from_trajectory(got).prompt_key
        assert got_key == RunView.from_trajectory(want).prompt_key
    return got


# -- real transcripts -------------------------------------------------------------------


def _real() -> list[Path]:
    return sorted(CC.glob("*.jsonl")) if CC.is_dir() else []


@pytest.mark.parametrize("path", _real(), ids=lambda p: p.name[:40])
def test_real_transcript_tail_equals_full_read(path: Path) -> None:
    assert_same_run(path, fast=True)  # no real session splits a message around a prompt
    assert find_run_start(path) == find_run_start(path, block=97)  # block edges move


def _cuts(lines: list[bytes]) -> list[int]:
    """Prefix lengths around each prompt-like line, where the boundary cases are."""
    marks = [
        i for i, raw in enumerate(lines) if b'"type":"user"' in raw and b"tool_use_id" not in raw
    ]
    cuts = {len(lines) // 2, len(lines) - 1}
    for i in marks[-6:]:
        cuts.update({i, i + 1, i + 2})
    return sorted(c for c in cuts if 0 < c <= len(lines))


@pytest.mark.parametrize(
    "name",
    [
        "mclaude-3af9b1a7-6512--sync-repo-compacted.jsonl",  # 9 prompts, compactions, bad lines
        "mclaude-18240050-3ee8--create-app-shortcut.jsonl",  # 6 prompts
        "sanand0-b90b1f0d-bollywood-datastory.jsonl",  # 6 prompts
        "mclaude-abc757d1-3da3--review-proposal-image-edits.jsonl",  # images in prompts
        "kimuson-fe5e1c67-orchestrator-nextjs-todo-sidechains.jsonl",  # inline sidechains
        "mclaude-d9c6fe1d-de36--many-summaries-local-cmd.jsonl",  # slash commands
        "moredip-0ccf1a04-curry-poems-5-subagents.jsonl",  # prompts, Task subagents
        "willitrain-33c772d9-windows-ide.jsonl",  # IDE noise, split messages
    ],
)
def test_every_prefix_around_a_prompt_reads_the_same_run(tmp_path: Path, name: str) -> None:
    lines = (CC / name).read_bytes().splitlines(keepends=True)
    prefix = tmp_path / "t.jsonl"
    for cut in _cuts(lines):
        prefix.write_bytes(b"".join(lines[:cut]))
        assert_same_run(prefix, fast=True)


def test_tail_starts_at_the_last_prompt_of_a_real_session() -> None:
    path = CC / "mclaude-3af9b1a7-6512--sync-repo-compacted.jsonl"
    start = find_run_start(path)
    assert start.prompt is not None and start.offset == start.prompt > 0
    line = json.loads(path.read_bytes()[start.prompt :].split(b"\n", 1)[0])
    assert line["type"] == "user" and not line.get("isSidechain")
    # It is the last main-chain prompt: the full read's run begins at the same byte.
    assert full(path).metadata["run_offset"] == start.prompt


def test_subagent_transcript_is_read_from_the_start() -> None:
    path = CC / "moredip-0ccf1a04.subagents.agent-a5bdbc1.jsonl"
    assert find_run_start(path).offset == 0  # every line is a sidechain
    assert assert_same_run(path).user_request


# -- hand-made edge cases ---------------------------------------------------------------


def _env(kind: str, n: int, side: bool = False, **extra: Any) -> dict[str, Any]:
    return {
        "type": kind,
        "sessionId": "s",
        "uuid": f"u{n}",
        "timestamp": f"2026-01-01T00:{n // 60:02d}:{n % 60:02d}Z",
        "isSidechain": side,
        **extra,
    }


class Log:
    """A transcript written line by line, in Claude Code's compact JSON."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.records: list[dict[str, Any]] = []

    def add(self, record: dict[str, Any]) -> Log:
        self.records.append(record)
        return self

    def user(self, content: Any, side: bool = False, **extra: Any) -> Log:
        rec = _env("user", len(self.records), side, **extra)
        rec["message"] = {"role": "user", "content": content}
        return self.add(rec)

    def say(self, mid: str, *blocks: dict[str, Any], side: bool = False) -> Log:
        rec = _env("assistant", len(self.records), side)
        rec["message"] = {"id": mid, "model": "claude-x", "role": "assistant", "content": [*blocks]}
        return self.add(rec)

    def result(self, tid: str, text: str, side: bool = False) -> Log:
        block = {"type": "tool_result", "tool_use_id": tid, "content": text}
        return self.user([block], side)

    def write(self, tail: bytes = b"") -> Path:
        text = "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in self.records)
        self.path.write_bytes(text.encode() + tail)
        return self.path


def text(t: str) -> dict[str, Any]:
    return {"type": "text", "text": t}


def use(tid: str, name: str = "Bash", **args: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": tid, "name": name, "input": args or {"command": "ls"}}


@pytest.fixture
def log(tmp_path: Path) -> Log:
    return Log(tmp_path / "t.jsonl")


def test_split_message_across_the_prompt_is_read_from_the_start(log: Log) -> None:
    # One API response (m1) written in parts, with a prompt line between the parts: a full
    # read merges the second part into the first (the repeated text is dropped).
    log.user("first").say("m1", text("working")).user("second")
    log.say("m1", text("working"), use("t1")).result("t1", "ok").say("m2", text("done"))
    path = log.write()
    start = find_run_start(path)
    assert start.offset > 0 and "m1" in start.recent
    got = assert_same_run(path)
    assert [m.text for m in got.messages if m.role == "assistant"] == ["done"]


def test_a_message_id_forgotten_by_the_reader_does_not_force_a_full_read(log: Log) -> None:
    log.user("first").say("old", text("a")).user("second")
    for i in range(40):  # more than the reader remembers: "old" ages out
        log.say(f"m{i}", use(f"t{i}")).result(f"t{i}", "ok")
    log.say("old", text("late part of an old message"))
    path = log.write()
    session, _ = read_claude_run_tail(path)
    assert not session.continues_earlier and session.position == path.stat().st_size
    assert session.trajectory().metadata["run_offset"] == find_run_start(path).prompt > 0
    assert_same_run(path)


def test_slash_command_expansion_is_read_from_the_command(log: Log) -> None:
    log.user("first").say("m1", text("one"))
    log.user("<command-name>/review</command-name>\n<command-args>src</command-args>")
    log.user("Review the code in src and fix what is wrong.", isMeta=True)
    log.say("m2", use("t1")).result("t1", "ok").say("m3", text("Reviewed."))
    path = log.write()
    start = find_run_start(path)
    assert start.prompt is not None and start.offset < start.prompt
    got = assert_same_run(path)
    assert got.user_request == "Review the code in src and fix what is wrong."


def test_compact_summary_between_command_and_expansion_is_transparent(log: Log) -> None:
    log.user("first").say("m1", text("one"))
    log.user("<command-name>/fix</command-name>")
    log.user("This session is being continued ...", isCompactSummary=True)
    log.user("Fix the failing test.", isMeta=True).say("m2", text("Fixed."))
    assert assert_same_run(log.write()).user_request == "Fix the failing test."


def test_meta_text_without_a_command_is_not_a_prompt(log: Log) -> None:
    log.user("first").say("m1", text("one"))
    log.user("Caveat text that looks like a request.", isMeta=True).say("m2", text("two"))
    path = log.write()
    assert find_run_start(path).offset == 0  # the only prompt is the first line
    assert assert_same_run(path).user_request == "first"


def test_command_on_a_sidechain_still_sets_the_flag(log: Log) -> None:
    log.user("first").say("m1", text("one"))
    log.user("<command-name>/go</command-name>", side=True)
    log.user("Go and build it.", isMeta=True).say("m2", text("Built."))
    assert assert_same_run(log.write()).user_request == "Go and build it."


def test_sidechain_prompts_and_calls_interleaved_with_the_main_run(log: Log) -> None:
    log.user("old task").say("m0", text("old answer"))
    log.user("Build the app with a subagent").say("m1", use("task", "Task", prompt="build"))
    log.user("build", side=True).say("s1", use("s-t1", "Write", file_path="a.py"), side=True)
    log.result("s-t1", "written", side=True).say("s2", text("sub done"), side=True)
    log.result("task", "sub done").say("m2", text("All built."))
    path = log.write()
    got = assert_same_run(path)
    assert got.user_request == "Build the app with a subagent"
    assert [c.is_sidechain for c in got.tool_calls] == [False, True]


def test_tool_results_interrupts_and_ide_noise_are_not_prompts(log: Log) -> None:
    log.user("the task").say("m1", use("t1")).result("t1", "ok")
    log.user([text("[Request interrupted by user for tool use]")])
    log.user("<ide_opened_file>The user opened x.py</ide_opened_file>")
    log.user([{"type": "tool_result", "tool_use_id": "t1", "content": "late"}])
    path = log.write()
    assert find_run_start(path).offset == 0
    assert assert_same_run(path).user_request == "the task"


def test_prompts_in_list_content(log: Log) -> None:
    log.user("first").say("m1", use("t1"))
    log.user([
        {"type": "tool_result", "tool_use_id": "t1", "content": "ok"},
        text("<ide_selection>x</ide_selection>"),
        text("and also add a README"),
    ])  # fmt: skip
    log.say("m2", text("added"))
    log.user([{"type": "image", "source": {}}]).say("m3", text("a picture"))
    path = log.write()
    start = find_run_start(path)
    assert start.offset > 0
    assert assert_same_run(path).user_request == "[image]"


def test_half_written_prompt_waits_unless_final(log: Log) -> None:
    log.user("first").say("m1", text("one"))
    path = log.write(tail=b'{"type":"user","message":{"role":"user","content":"sec')
    assert assert_same_run(path, final=False).user_request == "first"
    with path.open("ab") as fh:
        fh.write(b'ond"}}')
    assert assert_same_run(path, final=True).user_request == "second"


def test_bad_lines_and_comments_at_the_boundary(log: Log) -> None:
    log.user("first").say("m1", text("one"))
    path = log.write(tail=b"// a comment\nnot json\n")
    with path.open("ab") as fh:
        fh.write(b'{"type":"user","message":{"role":"user","content":"second"}}\n\n{broken\n')
        fh.write(
            b'{"type":"assistant","message":{"id":"m2","content":[{"type":"text","text":"x"}]}}'
        )
    assert assert_same_run(path).user_request == "second"
    assert assert_same_run(path, final=False).final_message is None


def test_empty_and_promptless_files(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    assert find_run_start(empty).offset == 0
    assert assert_same_run(empty).user_request is None
    only = tmp_path / "only.jsonl"
    only.write_bytes(b'{"type":"summary","summary":"x"}\n' * 3)
    assert find_run_start(only).prompt is None


# -- generated transcripts --------------------------------------------------------------

_RECORDS = st.sampled_from(
    [
        "prompt",
        "prompt",
        "side_prompt",
        "command",
        "meta",
        "compact",
        "say",
        "say_same",
        "say_side",
        "use",
        "result",
        "interrupt",
        "noise",
        "bad",
    ]
)


def _generate(kinds: list[str], path: Path) -> Path:
    log = Log(path)
    mids = ["m0"]
    calls = 0
    tail = b""
    for n, kind in enumerate(kinds):
        if kind == "prompt":
            log.user(f"task {n}")
        elif kind == "side_prompt":
            log.user(f"subtask {n}", side=True)
        elif kind == "command":
            log.user(f"<command-name>/c{n}</command-name>")
        elif kind == "meta":
            log.user(f"expanded {n}", isMeta=True)
        elif kind == "compact":
            log.user("summary", isCompactSummary=True)
        elif kind == "say":
            mids.append(f"m{n}")
            log.say(mids[-1], text(f"text {n}"))
        elif kind == "say_same":  # another part of an earlier response, text repeated
            log.say(mids[n % len(mids)], text(f"text {mids[n % len(mids)][1:]}"))
        elif kind == "say_side":
            log.say(f"s{n}", text(f"side {n}"), side=True)
        elif kind == "use":
            calls += 1
            log.say(mids[-1], use(f"t{calls}", "Write", file_path=f"f{calls}.py"))
        elif kind == "result" and calls:
            log.result(f"t{calls}", f"wrote f{calls}.py")
        elif kind == "interrupt":
            log.user([text("[Request interrupted by user]")])
        elif kind == "noise":
            log.user("<local-command-stdout>ok</local-command-stdout>")
        elif kind == "bad":
            log.add({"type": "progress", "data": {"type": "user"}})
    return log.write(tail)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_RECORDS, min_size=1, max_size=60), st.integers(min_value=1, max_value=300))
def test_generated_transcripts_tail_equals_full_read(kinds: list[str], block: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = _generate(kinds, Path(tmp) / "t.jsonl")
        assert find_run_start(path, block=block) == find_run_start(path)
        assert_same_run(path)

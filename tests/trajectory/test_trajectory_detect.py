"""Format detection over the whole curated transcript tree (tests/data), and on junk."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import TRANSCRIPTS
from earnest.trajectory import detect_format, iter_paths

EXPECTED = {
    "antigravity": "antigravity",
    "claude-code": "claude-code",
    "claude-headless-json": "claude-json",
    "claude-managed-agents": "claude-managed-agents",
    "claude-stream-json": "claude-stream-json",
    "codex": "codex-rollout",
    "gemini-cli": None,  # two formats: see below
    "mini-swe-agent": "mini-swe-agent",
    "openhands": "openhands",
    "qwen-code": "qwen-code-chat",
    "copilot-cli": "copilot-cli-events",
    "pi": "pi-session",
    "swe-agent": "swe-agent",
    "tau-bench": "tau-bench",
    "engram": "engram",
    "opencode": "opencode",  # the 1.1.65 JSON storage folder (its .db files are not walked)
}
NOT_TRANSCRIPTS = {"sentinel-42a88904-manifest.json", "sentinel-42a88904-operations.json"}


def test_every_curated_transcript_is_detected() -> None:
    seen = 0
    for path in iter_paths([TRANSCRIPTS]):
        found = detect_format(path)
        if path.name in NOT_TRANSCRIPTS or path.name.endswith("swebench-report.json"):
            assert found is None, path
            continue
        seen += 1
        folder = path.relative_to(TRANSCRIPTS).parts[0]
        if folder == "gemini-cli":
            want = "gemini-cli-session" if path.suffix == ".json" else "gemini-cli-stream"
        else:
            want = EXPECTED[folder]
        assert found == want, path
    assert seen == 75  # the curated set in tests/data/transcripts


def test_directory_walk_skips_non_transcripts() -> None:
    names = [p.name for p in iter_paths([TRANSCRIPTS])]
    assert not [n for n in names if n.endswith((".diff", ".md"))]
    assert len(names) == 77


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b"", None),
        (b"\x00\x01\x02binary", None),
        (b"hello world\n", None),
        (b"[1, 2, 3]", None),
        (b'{"a": 1}\n', None),
        (
            b'// Source: gist\n{"type":"user","sessionId":"s","message":{"content":"x"}}\n',
            "claude-code",
        ),
        (b'{"type":"summary","summary":"x","leafUuid":"u"}\n', "claude-code"),
        (b'{"type":"init","session_id":"s","model":"g"}\n', "gemini-cli-stream"),
        (
            b'{"type":"system","subtype":"init","session_id":"s"}\n{"type":"result","subtype":"success"}\n',
            "claude-stream-json",
        ),
        (b'{"type":"result","subtype":"success","is_error":false,"result":"ok"}', "claude-json"),
        (b'{"timestamp":"t","type":"session_meta","payload":{"id":"r"}}\n', "codex-rollout"),
        (b'{"schema_version":"ATIF-v1.5","steps":[]}', "atif"),
        (b'{"schema":"earnest.trajectory/1","id":"a"}\n', "earnest"),
        (b'[{"role":"user","content":"hi"}]', "openai-chat"),
        (b'{"role":"user","content":"hi"}\n{"role":"assistant","content":"yo"}\n', "openai-chat"),
        (b'[{"task_id":1,"reward":1.0,"traj":[]}]', "tau-bench"),
        (b'[{"id":0,"source":"user","action":"message","args":{}}]', "openhands"),
        (b'{"history":[],"info":{}}', "swe-agent"),
        (b'{"sessionId":"s","projectHash":"h","messages":[]}', "gemini-cli-session"),
        (
            b'{"info":{"mini_version":"1"},"messages":[],"trajectory_format":"mini-swe-agent-1.1"}',
            "mini-swe-agent",
        ),
    ],
)
def test_detect_small_files(tmp_path: Path, content: bytes, expected: str | None) -> None:
    path = tmp_path / "f.jsonl"
    path.write_bytes(content)
    assert detect_format(path) == expected


def test_detection_uses_only_the_head(tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    big = '{"environment": "x", "trajectory": [' + ",".join(['{"action": "ls"}'] * 20000) + "]}"
    path.write_text(big)
    assert len(big) > 64 * 1024 and detect_format(path) == "swe-agent"

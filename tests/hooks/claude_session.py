"""A Claude Code session for the stop-hook tests: a workspace, a transcript, a state folder."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

from conftest import TRANSCRIPTS, run_earnest

CC = TRANSCRIPTS / "claude-code"


class Session:
    """One Claude Code session: a workspace, its transcript and the hook's state folder."""

    def __init__(self, tmp_path: Path, session_id: str = "sess-1") -> None:
        self.root = tmp_path
        self.workspace = tmp_path / "workspace"
        self.workspace.mkdir()
        self.state = tmp_path / "state"
        self.transcript = tmp_path / "transcript.jsonl"
        self.session_id = session_id
        self.count = 0

    def copy_real(self, name: str) -> None:
        """The real transcript, moved from the folder it was recorded in to our workspace."""
        text = (CC / name).read_text(encoding="utf-8")
        recorded = re.search(r'"cwd":"([^"]+)"', text)
        if recorded:
            text = text.replace(recorded.group(1), str(self.workspace))
        self.transcript.write_text(text, encoding="utf-8")

    def append(self, *records: dict[str, Any]) -> None:
        with self.transcript.open("a", encoding="utf-8") as fh:
            for record in records:
                base = {
                    "sessionId": self.session_id,
                    "cwd": str(self.workspace),
                    "uuid": f"u-{self.count}",
                    "timestamp": f"2026-01-01T00:00:{self.count:02d}Z",
                    "isSidechain": False,
                }
                self.count += 1
                fh.write(json.dumps({**base, **record}) + "\n")

    def prompt(self, text: str) -> None:
        self.append({"type": "user", "message": {"role": "user", "content": text}})

    def say(self, text: str) -> None:
        self.append(
            {
                "type": "assistant",
                "message": {
                    "id": f"msg-{self.count}",
                    "model": "claude-sonnet-4-5",
                    "role": "assistant",
                    "content": [{"type": "text", "text": text}],
                },
            }
        )

    def tool(self, name: str, args: dict[str, Any], output: str, structured: Any = None) -> None:
        tid = f"toolu-{self.count}"
        self.append(
            {
                "type": "assistant",
                "message": {
                    "id": f"msg-{self.count}",
                    "model": "claude-sonnet-4-5",
                    "role": "assistant",
                    "content": [{"type": "tool_use", "id": tid, "name": name, "input": args}],
                },
            }
        )
        record: dict[str, Any] = {
            "type": "user",
            "message": {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": tid, "content": output}],
            },
        }
        if structured is not None:
            record["toolUseResult"] = structured
        self.append(record)

    def stop(self, *, active: bool = False, **extra: Any) -> subprocess.CompletedProcess[str]:
        payload = {
            "session_id": self.session_id,
            "transcript_path": str(self.transcript),
            "cwd": str(self.workspace),
            "hook_event_name": "Stop",
            "stop_hook_active": active,
            **extra,
        }
        result = run_earnest(
            "hook",
            "claude-code",
            input=json.dumps(payload),
            env={"EARNEST_STATE_DIR": str(self.state)},
        )
        assert result.returncode == 0, result.stderr
        assert "Traceback" not in result.stderr
        return result

    def state_file(self) -> dict[str, Any]:
        (path,) = [p for p in self.state.glob("earnest-claude-code-*.json")]
        data: dict[str, Any] = json.loads(path.read_text())["state"]
        return data


def decision(result: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    """The hook's JSON (``{}`` for a plain allow)."""
    out = result.stdout.strip()
    return json.loads(out) if out else {}


def blocked(result: subprocess.CompletedProcess[str]) -> bool:
    return decision(result).get("decision") == "block"

"""The hook's input: one JSON object on stdin, checked field by field.

Example:
    >>> p = HookPayload.parse('{"session_id": "s", "cwd": "/tmp", "stop_hook_active": true}')
    >>> p.session_id, p.stop_hook_active
    ('s', True)
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from earnest.errors import InputError
from earnest.safejson import loads as safe_loads

TYPE_CHECKING = False  # not typing's: importing typing costs every stop ~3 ms
if TYPE_CHECKING:
    from typing import Any

STDIN = "<stdin>"


@dataclass(frozen=True)
class HookPayload:
    """The fields every CLI sends (Claude Code, Gemini CLI and Codex share these names)."""

    raw: dict[str, Any]

    @classmethod
    def parse(cls, text: str | bytes) -> HookPayload:
        if isinstance(text, bytes):
            try:
                text = text.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise InputError(STDIN, f"byte {exc.start}", "hook input is not UTF-8") from None
        if not text.strip():
            raise InputError(STDIN, None, "no hook input (expected a JSON object)")
        try:
            data = safe_loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(
                STDIN, f"line {exc.lineno}, column {exc.colno}", f"invalid JSON: {exc.msg}"
            ) from None
        except ValueError as exc:  # nested too deeply, an integer of more than 4,300 digits
            raise InputError(STDIN, None, f"invalid JSON: {str(exc).split(':')[0]}") from None
        if not isinstance(data, dict):
            raise InputError(STDIN, None, "hook input must be a JSON object")
        return cls(data)

    def text(self, key: str, default: str = "") -> str:
        value = self.raw.get(key)
        if value is None:
            return default
        if not isinstance(value, str):
            raise InputError(STDIN, key, "must be a string")
        return value

    @property
    def session_id(self) -> str:
        return self.text("session_id")

    @property
    def event(self) -> str:
        return self.text("hook_event_name")

    @property
    def stop_hook_active(self) -> bool:
        value = self.raw.get("stop_hook_active", False)
        return value is True

    @property
    def cwd(self) -> Path:
        cwd = self.text("cwd")
        if not cwd:
            raise InputError(STDIN, "cwd", "missing")
        path = Path(cwd)
        if not path.is_absolute():
            raise InputError(STDIN, "cwd", f"not an absolute path: {cwd!r}")
        if not path.is_dir():
            raise InputError(STDIN, "cwd", f"not a folder: {cwd}")
        return path

    def path(self, key: str) -> Path | None:
        value = self.text(key)
        return Path(value) if value else None


__all__ = ["STDIN", "HookPayload"]

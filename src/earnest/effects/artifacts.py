"""Pull paths, commands and patch targets out of tool-call arguments.

Arguments arrive as a mapping or as a JSON string; some stacks double-encode string values
(``"\\"src/a.py\\""``). Paths are returned as the agent wrote them; resolving them against
the workspace is :mod:`earnest.effects.workspace`'s job.

Example:
    >>> parse_args('{"file_path": "src/a.py"}')
    ({'file_path': 'src/a.py'}, '')
    >>> patch_paths("*** Begin Patch\\n*** Add File: a.txt\\n+hi\\n*** Delete File: b.txt\\n")
    (('a.txt',), ('b.txt',))
"""

from __future__ import annotations

from collections.abc import Mapping

from earnest.safejson import loads as safe_loads

TYPE_CHECKING = False  # not typing's: importing typing costs every stop ~3 ms
if TYPE_CHECKING:
    from typing import Any

PATH_KEYS = ("file_path", "path", "notebook_path", "filename", "absolute_path", "target_file",
             "TargetFile", "file", "filepath", "dir_path", "filePath")  # fmt: skip
PATH_LIST_KEYS = ("paths", "file_paths", "files")
COMMAND_KEYS = ("command", "cmd", "script", "commandLine", "CommandLine")
PATCH_KEYS = ("patch", "input", "diff", "content", "patchText")
MOVE_KEYS = (("source", "destination"), ("src", "dst"), ("from", "to"), ("old_path", "new_path"))


def parse_args(raw: Any) -> tuple[dict[str, Any], str]:
    """``(mapping, raw_text)``: a dict of arguments, and the text when they were not JSON."""
    if isinstance(raw, Mapping):
        return dict(raw), ""
    if isinstance(raw, str):
        text = raw.strip()
        if text.startswith("{"):
            try:
                value = safe_loads(text)
            except ValueError:
                return {}, raw
            if isinstance(value, dict):
                return value, ""
        return {}, raw
    return {}, ""


def _as_str(value: Any) -> str | None:
    if not isinstance(value, str) or not value.strip():
        return None
    text = value.strip()
    if len(text) >= 2 and text[0] == text[-1] == '"':
        # double-encoded (Antigravity): "\"src/a.py\""
        try:
            decoded = safe_loads(text)
        except ValueError:
            return text
        return decoded if isinstance(decoded, str) and decoded.strip() else None
    return text


def path_args(args: Mapping[str, Any]) -> tuple[str, ...]:
    """The file paths a file tool names (first matching key, plus any list of paths)."""
    out: list[str] = []
    for key in PATH_KEYS:
        value = _as_str(args.get(key))
        if value is not None:
            out.append(value)
            break
    for key in PATH_LIST_KEYS:
        value = args.get(key)
        if isinstance(value, list):
            out.extend(v for v in (_as_str(x) for x in value) if v is not None)
    return tuple(dict.fromkeys(out))


def move_args(args: Mapping[str, Any]) -> tuple[str | None, str | None]:
    """``(source, destination)`` of a move tool."""
    for src_key, dst_key in MOVE_KEYS:
        src, dst = _as_str(args.get(src_key)), _as_str(args.get(dst_key))
        if src or dst:
            return src, dst
    return None, None


def command_arg(args: Mapping[str, Any], raw_text: str = "") -> str | None:
    """The shell command of a shell tool; argv lists are quoted back into one command."""
    for key in COMMAND_KEYS:
        value = args.get(key)
        if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
            import shlex  # only for an argv list (Codex): not every stop has one

            return shlex.join(value)
        text = _as_str(value) if isinstance(value, str) else None
        if text is not None:
            return text
    return raw_text.strip() or None


def patch_text(args: Mapping[str, Any], raw_text: str = "") -> str:
    for key in PATCH_KEYS:
        value = args.get(key)
        if isinstance(value, str) and value.strip():
            return value
    return raw_text


def _strip_prefix(path: str) -> str:
    path = path.strip().split("\t", 1)[0]
    if path.startswith(("a/", "b/")):
        return path[2:]
    return path


def patch_paths(text: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``(written, deleted)`` paths named by a patch.

    Understands the apply_patch envelope (``*** Add File:``, ``*** Update File:``,
    ``*** Delete File:``, ``*** Move to:``) and unified diffs (``--- a/x`` / ``+++ b/x``, with
    ``/dev/null`` marking creation or deletion).
    """
    written: list[str] = []
    deleted: list[str] = []
    minus: str | None = None
    for line in text.splitlines():
        if (
            line.startswith("*** Add File:")
            or line.startswith("*** Update File:")
            or line.startswith("*** Move to:")
        ):
            written.append(line.split(":", 1)[1].strip())
        elif line.startswith("*** Delete File:"):
            deleted.append(line.split(":", 1)[1].strip())
        elif line.startswith("--- "):
            minus = line[4:]
        elif line.startswith("+++ "):
            plus = line[4:].strip()
            if plus.split("\t", 1)[0] == "/dev/null":
                if minus is not None and minus.strip().split("\t", 1)[0] != "/dev/null":
                    deleted.append(_strip_prefix(minus))
            else:
                written.append(_strip_prefix(plus))
            minus = None
    return tuple(dict.fromkeys(p for p in written if p)), tuple(
        dict.fromkeys(p for p in deleted if p)
    )


def output_text(result: Mapping[str, Any]) -> str:
    """The text a tool printed (``output``, ``content``, ``result`` or ``stdout``)."""
    for key in ("output", "content", "result", "stdout"):
        value = result.get(key)
        if isinstance(value, str):
            return value
        if isinstance(value, list):
            parts = [
                str(block.get("text", ""))
                for block in value
                if isinstance(block, Mapping) and isinstance(block.get("text"), str)
            ]
            if parts:
                return "\n".join(parts)
    return ""


__all__ = [
    "command_arg",
    "move_args",
    "output_text",
    "parse_args",
    "patch_paths",
    "patch_text",
    "path_args",
]

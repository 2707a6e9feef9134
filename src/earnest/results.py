"""Reading per-item result files (``--format jsonl`` output) back, for ``aggregate``.

One reader for reply scores and trajectory scores alike: each non-blank line must be a JSON
object that ``check`` accepts; anything else stops with the file and the line (exit 2).

Example:
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "r.jsonl"
    >>> _ = p.write_text('{"ok": true}\\n\\n')
    >>> list(read_checked_jsonl(p, lambda r: None))
    [(1, {'ok': True})]
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from earnest.errors import InputError
from earnest.safejson import loads


def read_checked_jsonl(
    path: Path, check: Callable[[Any], str | None]
) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, record)`` for every record of ``path`` that ``check`` accepts (it
    returns ``None``, else what is wrong); blank lines skipped."""
    try:
        handle = path.open(encoding="utf-8")
    except OSError as exc:
        raise InputError(path, None, f"cannot read: {exc.strerror or exc}") from None
    with handle:
        try:
            for number, text in enumerate(handle, 1):
                if not text.strip():
                    continue
                try:
                    record = loads(text)
                except ValueError as exc:  # bad syntax, too deep, a 4,300-digit integer
                    msg = getattr(exc, "msg", str(exc))
                    raise InputError(path, f"line {number}", f"not JSON: {msg}") from None
                problem = check(record)
                if problem is not None:
                    raise InputError(path, f"line {number}", problem)
                yield number, record
        except UnicodeDecodeError:
            raise InputError(path, None, "not UTF-8 text") from None


__all__ = ["read_checked_jsonl"]

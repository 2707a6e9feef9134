"""Where opencode's older JSON storage is: its folder, and the folder of one of its session files.

Apart from :mod:`earnest.trajectory.readers.opencode_db` (which reads it, and imports
``sqlite3``) so that finding and detecting transcripts, on every ``trajectory`` command's path,
costs no ``sqlite3`` import.

Example:
    >>> storage_of(Path("notes.json")) is None
    True
"""

from __future__ import annotations

from pathlib import Path


def is_opencode_storage(path: Path) -> bool:
    """Whether ``path`` is opencode's JSON storage folder: a ``session`` and a ``message``
    folder in it (``part``, ``project`` and others beside them).

    Example:
        >>> import tempfile
        >>> root = Path(tempfile.mkdtemp())
        >>> for name in ("session", "message", "part"): (root / name).mkdir()
        >>> is_opencode_storage(root), is_opencode_storage(root / "part")
        (True, False)
    """
    try:
        return (
            path.is_dir()
            and not path.is_symlink()
            and (path / "session").is_dir()
            and (path / "message").is_dir()
        )
    except OSError:
        return False


def storage_of(path: Path) -> Path | None:
    """The storage folder of a session file ``storage/session/<project>/<id>.json``, or None."""
    if path.suffix != ".json" or len(path.parts) < 4 or path.parent.parent.name != "session":
        return None
    root = path.parent.parent.parent
    return root if is_opencode_storage(root) else None


__all__ = ["is_opencode_storage", "storage_of"]

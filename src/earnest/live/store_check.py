"""``earnest runs check``: is the run store sound, and which runs can still be read?

The store is opened read-only (a damaged file is never written to). SQLite's
``PRAGMA integrity_check`` judges the file; then every run is read row by row as the other
commands would read it (:func:`~earnest.live.store.sample_from_row`), so a page of zeros, random
bytes or a row with bad JSON is located: which run, how many of its samples still read, and the
first problems.

Example:
    >>> import tempfile, pathlib
    >>> from earnest.live.store import RunStore
    >>> db = pathlib.Path(tempfile.mkdtemp()) / "runs.db"
    >>> RunStore(db).close()
    >>> check_store(db).ok
    True
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from earnest.errors import InputError
from earnest.live.store import SAMPLE_COLUMNS, sample_from_row

_MAX_PROBLEMS = 10


@dataclass(frozen=True, slots=True)
class RunHealth:
    """One run: its planned ``total``, the samples that read and what did not."""

    run_id: str
    total: int | None
    readable: int
    problems: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_json(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "ok": self.ok,
            "total": self.total,
            "readable_samples": self.readable,
            "problems": list(self.problems),
        }


@dataclass(frozen=True, slots=True)
class StoreCheck:
    """The whole store: SQLite's findings (``integrity``), store-wide ``problems``, each run."""

    path: Path
    integrity: tuple[str, ...]
    problems: tuple[str, ...]
    runs: tuple[RunHealth, ...]

    @property
    def ok(self) -> bool:
        return not self.integrity and not self.problems and all(r.ok for r in self.runs)

    def to_json(self) -> dict[str, Any]:
        return {
            "store": str(self.path),
            "ok": self.ok,
            "integrity_check": list(self.integrity) or ["ok"],
            "problems": list(self.problems),
            "runs": [r.to_json() for r in self.runs],
        }

    def render(self) -> str:
        lines = [
            f"store {self.path}: "
            + (
                "integrity_check ok"
                if not self.integrity
                else f"integrity_check: {len(self.integrity)} problem(s)"
            )
        ]
        lines += [f"  {p}" for p in self.integrity[:_MAX_PROBLEMS]]
        lines += [f"  {p}" for p in self.problems]
        for r in self.runs:
            of = f"{r.readable}/{r.total}" if r.total is not None else f"{r.readable}"
            state = "readable" if r.ok else "DAMAGED"
            lines.append(f"run {r.run_id}: {state}, {of} sample(s) read")
            lines += [f"  {p}" for p in r.problems[:_MAX_PROBLEMS]]
            if len(r.problems) > _MAX_PROBLEMS:
                lines.append(f"  ... and {len(r.problems) - _MAX_PROBLEMS} more")
        readable = sum(1 for r in self.runs if r.ok)
        lines.append(
            f"check: {'ok' if self.ok else 'DAMAGED'}: {readable} of {len(self.runs)} run(s) fully readable"
        )
        return "\n".join(lines) + "\n"


def _connect(path: Path) -> sqlite3.Connection:
    if not path.is_file():
        raise InputError(path, None, "no run store here (pass --store PATH)")
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=5)
        db.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.Error as exc:
        raise InputError(path, None, f"not a readable SQLite run store: {exc}") from None
    return db


def check_store(path: str | Path) -> StoreCheck:
    """Check the store at ``path``; an :class:`InputError` only when it cannot be opened at all."""
    path = Path(path)
    db = _connect(path)
    try:
        problems: list[str] = []
        try:
            integrity = tuple(str(r[0]) for r in db.execute("PRAGMA integrity_check(100)"))
        except sqlite3.Error as exc:
            integrity = (f"integrity_check could not finish: {exc}",)
        if integrity == ("ok",):
            integrity = ()
        totals: dict[str, int | None] = {}
        try:
            for run_id, total in db.execute(
                "SELECT run_id, total FROM runs ORDER BY created_at, run_id"
            ):
                totals[str(run_id)] = int(total) if isinstance(total, int) else None
        except sqlite3.Error as exc:
            problems.append(f"the runs table cannot be read: {exc}")
        try:
            for (run_id,) in db.execute("SELECT DISTINCT run_id FROM samples"):
                totals.setdefault(str(run_id), None)
        except sqlite3.Error as exc:
            problems.append(f"the samples table cannot be listed: {exc}")
        runs = tuple(_check_run(db, path, run_id, total) for run_id, total in totals.items())
        return StoreCheck(path, integrity, tuple(problems), runs)
    finally:
        db.close()


def _check_run(db: sqlite3.Connection, path: Path, run_id: str, total: int | None) -> RunHealth:

    problems: list[str] = []
    try:
        row = db.execute(
            "SELECT config_json, checksums_json FROM runs WHERE run_id = ?", (run_id,)
        ).fetchone()
        if row is None:
            problems.append("samples without a run row")
        else:
            for column, text in zip(("config_json", "checksums_json"), row, strict=True):
                try:
                    if not isinstance(json.loads(text), dict):
                        problems.append(f"{column}: not a JSON object")
                except (TypeError, ValueError, RecursionError) as exc:
                    problems.append(f"{column}: bad JSON ({exc})")
    except sqlite3.Error as exc:
        problems.append(f"the run row cannot be read: {exc}")
    readable = 0
    try:
        cur = db.execute(
            f"SELECT {', '.join(SAMPLE_COLUMNS)} FROM samples WHERE run_id = ?"
            " ORDER BY fixture_id, profile, arm, epoch",
            (run_id,),
        )
        for values in cur:
            try:
                sample_from_row(path, dict(zip(SAMPLE_COLUMNS, values, strict=True)))
            except InputError as exc:
                problems.append(": ".join(p for p in (exc.place, exc.message) if p))
                continue
            readable += 1
    except sqlite3.Error as exc:
        problems.append(f"samples after the first {readable} cannot be read: {exc}")
    if total is not None and not problems and readable > total:
        problems.append(f"{readable} samples stored for {total} planned")
    return RunHealth(run_id, total, readable, tuple(problems))


__all__ = ["RunHealth", "StoreCheck", "check_store"]

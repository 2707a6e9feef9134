"""The SQLite run store: every sample is written the moment it completes.

One file (default ``.earnest/runs.db``), WAL journal, standard-library ``sqlite3``. A run row
holds the configuration and the suite's checksums; a sample row holds everything needed to
re-judge, report and compare it: prompt hash, agent-doc and fixture checksums, provider, model
and parameters, arm, epoch, displayed order, raw and unwrapped reply, verdict and reason (or
the error that voided it), latency, tokens and cost.

A sample's key is ``(run, fixture, profile, arm, epoch)`` — the primary key — so a resumed run
never stores a sample twice. A void sample may be replaced by a later attempt; a judged one is
never overwritten.

Example:
    >>> import tempfile, pathlib
    >>> db = pathlib.Path(tempfile.mkdtemp()) / "runs.db"
    >>> with RunStore(db) as store:
    ...     store.list_runs()
    []
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, fields
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from earnest.errors import InputError
from earnest.redact import scrub

DEFAULT_STORE = Path(".earnest") / "runs.db"
SCHEMA_VERSION = 1
RUN_STATUSES = ("running", "complete", "stopped", "interrupted", "waiting")
"""``waiting``: provider batches submitted and not yet collected (``earnest run --batch``)."""

SampleId = tuple[str, str, str, int]
"""(fixture_id, profile, arm, epoch): a sample's key within its run."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
    run_id TEXT PRIMARY KEY,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    status TEXT NOT NULL,
    suite_root TEXT NOT NULL,
    config_json TEXT NOT NULL,
    checksums_json TEXT NOT NULL,
    total INTEGER NOT NULL,
    earnest_version TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS samples (
    run_id TEXT NOT NULL REFERENCES runs(run_id),
    fixture_id TEXT NOT NULL,
    profile TEXT NOT NULL,
    arm TEXT NOT NULL,
    epoch INTEGER NOT NULL,
    rule_id TEXT NOT NULL,
    agent TEXT NOT NULL,
    provider TEXT NOT NULL,
    model TEXT NOT NULL,
    reply_model TEXT,
    params_json TEXT NOT NULL,
    prompt_hash TEXT NOT NULL,
    agent_doc_sha256 TEXT NOT NULL,
    fixture_sha256 TEXT NOT NULL,
    displayed_order TEXT NOT NULL,
    raw_reply TEXT,
    reply TEXT,
    verdict TEXT,
    reason TEXT,
    chosen TEXT,
    rationalizations TEXT,
    unmatched_failure INTEGER NOT NULL DEFAULT 0,
    judgement_json TEXT,
    void INTEGER NOT NULL DEFAULT 0,
    error TEXT,
    error_kind TEXT,
    attempts INTEGER NOT NULL DEFAULT 1,
    latency REAL,
    tokens_in INTEGER,
    tokens_out INTEGER,
    cost REAL,
    finished_at TEXT NOT NULL,
    PRIMARY KEY (run_id, fixture_id, profile, arm, epoch)
);
"""


_BATCH_SCHEMA = """
CREATE TABLE IF NOT EXISTS batches (
    run_id TEXT NOT NULL REFERENCES runs(run_id),
    batch_id TEXT NOT NULL,
    profile TEXT NOT NULL,
    provider TEXT NOT NULL,
    input_file_id TEXT,
    status TEXT NOT NULL,
    collected INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (run_id, batch_id)
);
CREATE TABLE IF NOT EXISTS batch_requests (
    run_id TEXT NOT NULL,
    batch_id TEXT NOT NULL,
    custom_id TEXT NOT NULL,
    fixture_id TEXT NOT NULL,
    profile TEXT NOT NULL,
    arm TEXT NOT NULL,
    epoch INTEGER NOT NULL,
    PRIMARY KEY (run_id, batch_id, custom_id)
);
"""
"""The batches a ``--batch`` run submitted, made by the first one: a store without batch runs
keeps the schema (and the size) it always had."""


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


LATEST = "latest"
"""The run id that means the newest run in the store, wherever a run id is asked for."""


@dataclass(frozen=True, slots=True)
class RunInfo:
    """A run's row: configuration (``config``) and checksums of what it measured."""

    run_id: str
    suite_root: str
    config: dict[str, Any]
    checksums: dict[str, Any]
    total: int
    status: str = "running"
    created_at: str = field(default_factory=now_iso)
    updated_at: str = field(default_factory=now_iso)
    earnest_version: str = ""


@dataclass(frozen=True, slots=True)
class SampleRecord:
    """One stored sample. ``verdict`` is ``None`` exactly when the sample is void."""

    run_id: str
    fixture_id: str
    profile: str
    arm: str
    epoch: int
    rule_id: str
    agent: str
    provider: str
    model: str
    params: dict[str, Any]
    prompt_hash: str
    agent_doc_sha256: str
    fixture_sha256: str
    displayed_order: tuple[str, ...]
    raw_reply: str | None = None
    reply: str | None = None
    verdict: str | None = None
    reason: str | None = None
    chosen: tuple[str, ...] = ()
    rationalizations: tuple[str, ...] = ()
    unmatched_failure: bool = False
    judgement: dict[str, Any] | None = None
    void: bool = False
    error: str | None = None
    error_kind: str | None = None
    attempts: int = 1
    latency: float | None = None
    tokens_in: int | None = None
    tokens_out: int | None = None
    cost: float | None = None
    reply_model: str | None = None
    finished_at: str = field(default_factory=now_iso)

    @property
    def key(self) -> SampleId:
        return (self.fixture_id, self.profile, self.arm, self.epoch)


@dataclass(frozen=True, slots=True)
class StoredBatch:
    """A provider batch a run submitted (``earnest run --batch``): its id, which profile, and
    which sample each request's ``custom_id`` stands for. ``collected``: its results are
    stored as samples, so ``--resume`` neither polls nor resubmits it."""

    run_id: str
    batch_id: str
    profile: str
    provider: str
    requests: dict[str, SampleId]
    input_file_id: str | None = None
    status: str = "submitted"
    collected: bool = False
    created_at: str = field(default_factory=now_iso)
    updated_at: str = field(default_factory=now_iso)


_COLUMNS = [
    "run_id",
    "fixture_id",
    "profile",
    "arm",
    "epoch",
    "rule_id",
    "agent",
    "provider",
    "model",
    "reply_model",
    "params_json",
    "prompt_hash",
    "agent_doc_sha256",
    "fixture_sha256",
    "displayed_order",
    "raw_reply",
    "reply",
    "verdict",
    "reason",
    "chosen",
    "rationalizations",
    "unmatched_failure",
    "judgement_json",
    "void",
    "error",
    "error_kind",
    "attempts",
    "latency",
    "tokens_in",
    "tokens_out",
    "cost",
    "finished_at",
]
_KEY = ("run_id", "fixture_id", "profile", "arm", "epoch")


class RunStore:
    """Open (creating if asked) the store at ``path``; one connection, one writer."""

    def __init__(self, path: str | Path = DEFAULT_STORE, *, create: bool = True) -> None:
        self.path = Path(path)
        if not create and not self.path.is_file():
            raise InputError(self.path, None, "no run store here (pass --store PATH)")
        if create:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise InputError(self.path, None, f"cannot create the store: {exc}") from None
        try:
            self._db = sqlite3.connect(str(self.path), timeout=30, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            # WAL + NORMAL survives a killed process; only a power cut can lose the last commits.
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(_SCHEMA)
            self._db.execute(
                "INSERT OR IGNORE INTO meta(key, value) VALUES ('schema_version', ?)",
                (str(SCHEMA_VERSION),),
            )
            row = self._db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        except sqlite3.OperationalError as exc:
            raise self._failure(None, exc, writing=create) from None
        except sqlite3.DatabaseError as exc:
            if "not a database" in str(exc):
                raise InputError(self.path, None, f"not an earnest run store: {exc}") from None
            raise self._failure(None, exc, writing=False) from None
        if row is None or str(row[0]) != str(SCHEMA_VERSION):
            raise InputError(
                self.path, "meta.schema_version", f"unsupported store schema {row and row[0]}"
            )

    def close(self) -> None:
        self._db.close()

    # errors -----------------------------------------------------------------------------

    def _failure(self, place: str | None, exc: sqlite3.Error, *, writing: bool) -> InputError:
        """What a failed SQLite call means for the user: a full disk or a read-only folder
        when writing (what is stored is kept), else damage that ``runs check`` locates."""
        text = str(exc)
        lowered = text.lower()
        if (
            "full" in lowered
            or "readonly" in lowered
            or "unable to open" in lowered
            or (writing and isinstance(exc, sqlite3.OperationalError) and "locked" not in lowered)
        ):
            return InputError(
                self.path,
                place,
                f"cannot write the run store: {text}; what was stored before is kept"
                + (
                    f" (resume with: earnest run --resume {place} --store {self.path})"
                    if place
                    else ""
                ),
            )
        if "locked" in lowered:
            return InputError(self.path, place, f"the run store is busy: {text}; try again")
        return InputError(
            self.path,
            place,
            f"the run store is damaged ({text}); `earnest runs check --store {self.path}` "
            "says which runs can still be read",
        )

    @contextlib.contextmanager
    def _guard(self, place: str | None = None, *, writing: bool = False) -> Iterator[None]:
        try:
            yield
        except sqlite3.Error as exc:
            raise self._failure(place, exc, writing=writing) from None

    def __enter__(self) -> RunStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # runs -------------------------------------------------------------------------------

    def create_run(self, run: RunInfo) -> None:
        try:
            self._db.execute(
                "INSERT INTO runs(run_id, created_at, updated_at, status, suite_root, config_json,"
                " checksums_json, total, earnest_version) VALUES (?,?,?,?,?,?,?,?,?)",
                (
                    run.run_id,
                    run.created_at,
                    run.updated_at,
                    run.status,
                    run.suite_root,
                    scrub(json.dumps(run.config, sort_keys=True)),
                    json.dumps(run.checksums, sort_keys=True),
                    run.total,
                    run.earnest_version,
                ),
            )
        except sqlite3.IntegrityError:
            raise InputError(self.path, run.run_id, "a run with this id already exists") from None
        except sqlite3.Error as exc:
            raise self._failure(run.run_id, exc, writing=True) from None

    def get_run(self, run_id: str) -> RunInfo:
        with self._guard(run_id):
            row = self._db.execute(
                "SELECT run_id, suite_root, config_json, checksums_json, total, status, created_at,"
                " updated_at, earnest_version FROM runs WHERE run_id = ?",
                (run_id,),
            ).fetchone()
        if row is None:
            known = [r.run_id for r in self.list_runs()[-5:]]
            hint = f" (recent: {', '.join(known)})" if known else " (the store has no runs)"
            raise InputError(self.path, run_id, f"no such run{hint}")
        return RunInfo(
            run_id=row[0],
            suite_root=row[1],
            config=_json_object(self.path, f"run {run_id}: config_json", row[2]),
            checksums=_json_object(self.path, f"run {run_id}: checksums_json", row[3]),
            total=row[4],
            status=row[5],
            created_at=row[6],
            updated_at=row[7],
            earnest_version=row[8],
        )

    def resolve(self, ref: str) -> str:
        """The run id ``ref`` names: ``latest`` is the newest run in the store.

        Anything else is returned as given (``get_run`` says when no such run exists).
        """
        if ref != LATEST:
            return ref
        row = self._db.execute(
            "SELECT run_id FROM runs ORDER BY created_at DESC, rowid DESC LIMIT 1"
        ).fetchone()
        if row is None:
            raise InputError(self.path, LATEST, "no run yet: the store has no runs")
        return str(row[0])

    def list_runs(self) -> list[RunInfo]:
        with self._guard():
            ids = [
                r[0] for r in self._db.execute("SELECT run_id FROM runs ORDER BY created_at, rowid")
            ]
        return [self.get_run(i) for i in ids]

    def set_status(self, run_id: str, status: str) -> None:
        if status not in RUN_STATUSES:
            raise ValueError(status)
        with self._guard(run_id, writing=True):
            self._db.execute(
                "UPDATE runs SET status = ?, updated_at = ? WHERE run_id = ?",
                (status, now_iso(), run_id),
            )

    # samples ----------------------------------------------------------------------------

    def put_sample(self, rec: SampleRecord) -> bool:
        """Store one sample at once (autocommit). Returns False when a judged sample with the
        same key is already stored (it is kept, never duplicated or overwritten)."""
        values = _row(rec)
        updates = ", ".join(f"{c} = excluded.{c}" for c in _COLUMNS if c not in _KEY)
        with self._guard(rec.run_id, writing=True):
            cur = self._db.execute(
                f"INSERT INTO samples({', '.join(_COLUMNS)})"
                f" VALUES ({', '.join('?' * len(_COLUMNS))})"
                f" ON CONFLICT({', '.join(_KEY)}) DO UPDATE SET {updates} WHERE samples.void = 1",
                values,
            )
        return cur.rowcount > 0

    def samples(self, run_id: str) -> list[SampleRecord]:
        return list(self.iter_samples(run_id))

    def iter_samples(
        self, run_id: str, *, on_damage: Callable[[InputError], None] | None = None
    ) -> Iterator[SampleRecord]:
        """The run's samples in key order. A row that cannot be read raises an
        :class:`InputError` naming it, or, with ``on_damage``, is reported there and skipped."""
        with self._guard(run_id):
            cur = self._db.execute(
                f"SELECT {', '.join(_COLUMNS)} FROM samples WHERE run_id = ?"
                " ORDER BY fixture_id, profile, arm, epoch",
                (run_id,),
            )
            for row in cur:
                try:
                    yield _record(self.path, dict(zip(_COLUMNS, row, strict=True)))
                except InputError as exc:
                    if on_damage is None:
                        raise
                    on_damage(exc)

    # batches ----------------------------------------------------------------------------

    def add_batch(self, batch: StoredBatch) -> None:
        """Record a batch the moment the provider created it (one transaction with its
        requests), so a process killed while it waits loses nothing: ``--resume`` polls it."""
        with self._guard(batch.run_id, writing=True):
            self._db.execute("BEGIN IMMEDIATE")
            try:
                for statement in _BATCH_SCHEMA.split(";"):
                    if statement.strip():
                        self._db.execute(statement)
                self._db.execute(
                    "INSERT INTO batches(run_id, batch_id, profile, provider, input_file_id,"
                    " status, collected, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?)",
                    (
                        batch.run_id,
                        batch.batch_id,
                        batch.profile,
                        batch.provider,
                        batch.input_file_id,
                        batch.status,
                        1 if batch.collected else 0,
                        batch.created_at,
                        batch.updated_at,
                    ),
                )
                self._db.executemany(
                    "INSERT INTO batch_requests(run_id, batch_id, custom_id, fixture_id, profile,"
                    " arm, epoch) VALUES (?,?,?,?,?,?,?)",
                    [
                        (batch.run_id, batch.batch_id, cid, *key)
                        for cid, key in batch.requests.items()
                    ],
                )
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def batches(self, run_id: str, *, open_only: bool = False) -> list[StoredBatch]:
        """The run's batches in the order they were submitted (``open_only``: not collected)."""
        sql = (
            "SELECT batch_id, profile, provider, input_file_id, status, collected, created_at,"
            " updated_at FROM batches WHERE run_id = ?"
        )
        if open_only:
            sql += " AND collected = 0"
        with self._guard(run_id):
            if not self._has_batches():
                return []
            rows = self._db.execute(sql + " ORDER BY rowid", (run_id,)).fetchall()
            found = []
            for bid, profile, provider, file_id, status, collected, created, updated in rows:
                requests = {
                    str(cid): (str(f), str(p), str(a), int(e))
                    for cid, f, p, a, e in self._db.execute(
                        "SELECT custom_id, fixture_id, profile, arm, epoch FROM batch_requests"
                        " WHERE run_id = ? AND batch_id = ? ORDER BY rowid",
                        (run_id, bid),
                    )
                }
                found.append(
                    StoredBatch(
                        run_id=run_id,
                        batch_id=str(bid),
                        profile=str(profile),
                        provider=str(provider),
                        requests=requests,
                        input_file_id=file_id,
                        status=str(status),
                        collected=bool(collected),
                        created_at=str(created),
                        updated_at=str(updated),
                    )
                )
        return found

    def _has_batches(self) -> bool:
        row = self._db.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'batches'"
        ).fetchone()
        return row is not None

    def set_batch_status(
        self, run_id: str, batch_id: str, status: str, *, collected: bool = False
    ) -> None:
        with self._guard(run_id, writing=True):
            self._db.execute(
                "UPDATE batches SET status = ?, collected = MAX(collected, ?), updated_at = ?"
                " WHERE run_id = ? AND batch_id = ?",
                (status, 1 if collected else 0, now_iso(), run_id, batch_id),
            )

    def iter_keys(self, run_id: str, *, judged_only: bool = True) -> Iterator[SampleId]:
        sql = "SELECT fixture_id, profile, arm, epoch FROM samples WHERE run_id = ?"
        if judged_only:
            sql += " AND void = 0"
        with self._guard(run_id):
            for f, p, a, e in self._db.execute(sql, (run_id,)):
                yield (f, p, a, int(e))

    def keys(self, run_id: str) -> set[SampleId]:
        """The keys of the run's stored samples (what a run checks at its end: no row is
        read whole)."""
        with self._guard(run_id):
            rows = self._db.execute(
                "SELECT fixture_id, profile, arm, epoch FROM samples WHERE run_id = ?", (run_id,)
            )
            return {(str(f), str(p), str(a), int(e)) for f, p, a, e in rows}

    def count(self, run_id: str) -> int:
        with self._guard(run_id):
            row = self._db.execute("SELECT COUNT(*) FROM samples WHERE run_id = ?", (run_id,))
            return int(row.fetchone()[0])

    def integrity(self) -> list[str]:
        """SQLite's ``PRAGMA integrity_check``: ``[]`` when the file is sound, else its findings."""
        with self._guard():
            rows = [str(r[0]) for r in self._db.execute("PRAGMA integrity_check")]
        return [] if rows == ["ok"] else rows


# What a sample keeps of what the model wrote: redacted when stored (after judging, so no
# verdict depends on it), unless redaction is off (`earnest run --no-redact`).
_READ_TEXT = ("raw_reply", "reply", "reason", "error", "judgement_json")


def _row(rec: SampleRecord) -> tuple[Any, ...]:
    d = {f.name: getattr(rec, f.name) for f in fields(rec)}
    d["params_json"] = json.dumps(d.pop("params"), sort_keys=True)
    d["displayed_order"] = json.dumps(list(rec.displayed_order))
    d["chosen"] = json.dumps(list(rec.chosen))
    d["rationalizations"] = json.dumps(list(rec.rationalizations))
    d["judgement_json"] = None if rec.judgement is None else json.dumps(rec.judgement)
    d.pop("judgement")
    d["void"] = 1 if rec.void else 0
    d["unmatched_failure"] = 1 if rec.unmatched_failure else 0
    for column in _READ_TEXT:
        if isinstance(d[column], str):
            d[column] = scrub(d[column])
    return tuple(d[c] for c in _COLUMNS)


def _json_value(store: Path, place: str, text: Any) -> Any:
    if not isinstance(text, str | bytes):
        raise InputError(
            store, place, f"the run store is damaged: expected JSON text, found {text!r:.60}"
        )
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise InputError(store, place, f"the run store is damaged: bad JSON ({exc})") from None


def _json_object(store: Path, place: str, text: Any) -> dict[str, Any]:
    value = _json_value(store, place, text)
    if not isinstance(value, dict):
        raise InputError(store, place, "the run store is damaged: expected a JSON object")
    return value


def _record(store: Path, d: dict[str, Any]) -> SampleRecord:
    """A sample row as a record; a row whose JSON or numbers do not read is an
    :class:`InputError` naming the sample and the column."""
    where = f"run {d.get('run_id')}: sample {d.get('fixture_id')}/{d.get('profile')}/{d.get('arm')}/{d.get('epoch')}"
    try:
        return _record_of(store, where, d)
    except (TypeError, ValueError, KeyError) as exc:
        raise InputError(store, where, f"the run store is damaged: {exc}") from None


def _record_of(store: Path, where: str, d: dict[str, Any]) -> SampleRecord:
    def load_list(column: str) -> tuple[str, ...]:
        v = d[column]
        if not v:
            return ()
        value = _json_value(store, f"{where}: {column}", v)
        if not isinstance(value, list):
            raise InputError(
                store, f"{where}: {column}", "the run store is damaged: expected a JSON list"
            )
        return tuple(str(x) for x in value)

    judgement = d["judgement_json"]
    return SampleRecord(
        run_id=d["run_id"],
        fixture_id=d["fixture_id"],
        profile=d["profile"],
        arm=d["arm"],
        epoch=int(d["epoch"]),
        rule_id=d["rule_id"],
        agent=d["agent"],
        provider=d["provider"],
        model=d["model"],
        params=_json_object(store, f"{where}: params_json", d["params_json"]),
        prompt_hash=d["prompt_hash"],
        agent_doc_sha256=d["agent_doc_sha256"],
        fixture_sha256=d["fixture_sha256"],
        displayed_order=load_list("displayed_order"),
        raw_reply=d["raw_reply"],
        reply=d["reply"],
        verdict=d["verdict"],
        reason=d["reason"],
        chosen=load_list("chosen"),
        rationalizations=load_list("rationalizations"),
        unmatched_failure=bool(d["unmatched_failure"]),
        judgement=_json_object(store, f"{where}: judgement_json", judgement) if judgement else None,
        void=bool(d["void"]),
        error=d["error"],
        error_kind=d["error_kind"],
        attempts=int(d["attempts"]),
        latency=d["latency"],
        tokens_in=d["tokens_in"],
        tokens_out=d["tokens_out"],
        cost=d["cost"],
        reply_model=d["reply_model"],
        finished_at=d["finished_at"],
    )


sample_from_row = _record
"""A ``samples`` row (column name → value) as a :class:`SampleRecord`, for ``runs check``."""

SAMPLE_COLUMNS = tuple(_COLUMNS)

__all__ = [
    "DEFAULT_STORE",
    "RUN_STATUSES",
    "SAMPLE_COLUMNS",
    "SCHEMA_VERSION",
    "RunInfo",
    "RunStore",
    "SampleId",
    "SampleRecord",
    "StoredBatch",
    "now_iso",
    "sample_from_row",
]

"""``--format parquet``: one row per scored item, written in row groups as results arrive.

pyarrow is an extra (``pip install 'earnest[parquet]'``), imported only here and only when
Parquet is asked for; without it the command stops with exit 2 and says what to install.
The columns of each command are documented in docs/formats.md; nested detail (criteria)
rides along as a JSON string column, so every column is flat.

Example:
    >>> rows = trajectory_row({"source": "a", "trajectory_id": "t", "format": "earnest",
    ...     "outcome": "backed", "completion_without_effect": False,
    ...     "terminated_abnormally": False, "termination": {"reason": "normal", "detail": ""},
    ...     "reason": "ok", "tool_calls": 0, "claimed_completion": True, "aggregate": None,
    ...     "dimensions": {}, "gate": {"runs": 1, "claims": 1, "downgraded": 0, "exhausted": 0}})
    >>> rows["outcome"], rows["planning_score"], rows["gate_claims"]
    ('backed', None, 1)
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from types import TracebackType
from typing import Any

from earnest.errors import InputError
from earnest.extras import install_hint
from earnest.files import atomic_path
from earnest.redact import scrub_value

ROWS_PER_GROUP = 4096

_DIMENSIONS = ("planning", "tool_grounding", "recovery", "refusal", "effect_grounding")

# (column, arrow type name): the order is the file's column order.
TRAJECTORY_COLUMNS: tuple[tuple[str, str], ...] = (
    ("source", "string"),
    ("trajectory_id", "string"),
    ("format", "string"),
    ("outcome", "string"),
    ("completion_without_effect", "bool_"),
    ("terminated_abnormally", "bool_"),
    ("termination_reason", "string"),
    ("termination_detail", "string"),
    ("reason", "string"),
    ("tool_calls", "int64"),
    ("claimed_completion", "bool_"),
    ("aggregate", "float64"),
    *((f"{d}_{part}", "float64") for d in _DIMENSIONS for part in ("score", "confidence")),
    ("gate_runs", "int64"),
    ("gate_claims", "int64"),
    ("gate_downgraded", "int64"),
    ("gate_exhausted", "int64"),
    ("dimensions_json", "string"),
)


REPLY_COLUMNS: tuple[tuple[str, str], ...] = (
    ("file", "string"),
    ("line", "int64"),
    ("fixture_id", "string"),
    ("model", "string"),
    ("arm", "string"),
    ("epoch", "int64"),
    ("verdict", "string"),
    ("passed", "bool_"),
    ("reason", "string"),
    ("choice", "string"),
    ("displayed_choice", "string"),
    ("choices", "list<string>"),
    ("displayed_choices", "list<string>"),
    ("order", "list<string>"),
    ("cited_rules", "list<string>"),
    ("missing_citations", "list<string>"),
    ("unparseable_reason", "string"),
    ("matched_rationalizations", "int64"),
    ("unmatched_failure", "bool_"),
    ("envelope", "string"),
    ("envelope_error", "string"),
    ("criteria_json", "string"),
    ("rationalizations_json", "string"),
)


SAMPLE_COLUMNS: tuple[tuple[str, str], ...] = (
    ("run_id", "string"),
    ("fixture_id", "string"),
    ("profile", "string"),
    ("arm", "string"),
    ("epoch", "int64"),
    ("rule_id", "string"),
    ("agent", "string"),
    ("provider", "string"),
    ("model", "string"),
    ("reply_model", "string"),
    ("order", "list<string>"),
    ("response", "string"),
    ("verdict", "string"),
    ("reason", "string"),
    ("chosen", "list<string>"),
    ("rationalizations", "list<string>"),
    ("unmatched_failure", "bool_"),
    ("void", "bool_"),
    ("error", "string"),
    ("error_kind", "string"),
    ("attempts", "int64"),
    ("latency", "float64"),
    ("tokens_in", "int64"),
    ("tokens_out", "int64"),
    ("cost", "float64"),
    ("prompt_hash", "string"),
    ("finished_at", "string"),
)


def sample_row(sample: Any) -> dict[str, Any]:
    """One stored live sample (:class:`earnest.live.store.SampleRecord`) as a Parquet row."""
    row = {name: getattr(sample, name, None) for name, _ in SAMPLE_COLUMNS}
    row["order"] = list(sample.displayed_order)
    row["response"] = sample.reply
    row["chosen"] = list(sample.chosen)
    row["rationalizations"] = list(sample.rationalizations)
    return row


def reply_row(record: Mapping[str, Any]) -> dict[str, Any]:
    """One ``earnest score`` jsonl record (a scored reply) as a flat Parquet row."""
    row = {name: record.get(name) for name, _ in REPLY_COLUMNS}
    row["passed"] = record["verdict"] == "pass"
    row["matched_rationalizations"] = len(record["matched_rationalizations"])
    row["criteria_json"] = json.dumps(record["criteria"], ensure_ascii=False)
    row["rationalizations_json"] = json.dumps(
        record["matched_rationalizations"], ensure_ascii=False
    )
    return row


def trajectory_row(record: Mapping[str, Any]) -> dict[str, Any]:
    """One ``trajectory score`` jsonl record as a flat Parquet row."""
    dims = record["dimensions"]
    row: dict[str, Any] = {
        "source": record["source"],
        "trajectory_id": record["trajectory_id"],
        "format": record["format"],
        "outcome": record["outcome"],
        "completion_without_effect": record["completion_without_effect"],
        "terminated_abnormally": record["terminated_abnormally"],
        "termination_reason": record["termination"]["reason"],
        "termination_detail": record["termination"]["detail"],
        "reason": record["reason"],
        "tool_calls": record["tool_calls"],
        "claimed_completion": record["claimed_completion"],
        "aggregate": record["aggregate"],
    }
    for d in _DIMENSIONS:
        body = dims.get(d)
        row[f"{d}_score"] = body["score"] if body else None
        row[f"{d}_confidence"] = body["confidence"] if body else None
    for key in ("runs", "claims", "downgraded", "exhausted"):
        row[f"gate_{key}"] = record["gate"][key]
    row["dimensions_json"] = json.dumps(dims, ensure_ascii=False)
    return row


class ParquetRows:
    """Write rows to ``path`` through the one writer's rules (:func:`earnest.files.atomic_path`:
    a temporary file beside it, renamed on success, an existing file's mode kept, a new one
    the umask's, a symbolic link replaced, an ``OSError`` exit 2 with the old file kept), every
    string cell redacted (:func:`earnest.redact.scrub_value`), one row group per
    :data:`ROWS_PER_GROUP` rows: memory holds one group, not the file."""

    def __init__(self, path: Path, columns: tuple[tuple[str, str], ...]) -> None:
        try:
            import pyarrow as pa
            import pyarrow.parquet as pq
        except ImportError:
            raise InputError(
                None, "--format", f"parquet needs pyarrow: {install_hint('parquet')}"
            ) from None
        self._pa = pa

        def arrow(kind: str) -> Any:
            if kind.startswith("list<"):
                return pa.list_(arrow(kind[5:-1]))
            return getattr(pa, kind)()

        self._schema = pa.schema([(name, arrow(kind)) for name, kind in columns])
        self._stack = contextlib.ExitStack()
        temp = self._stack.enter_context(atomic_path(path))
        try:
            self._writer = pq.ParquetWriter(str(temp), self._schema)
        except OSError as exc:
            self._stack.__exit__(type(exc), exc, exc.__traceback__)  # an InputError
            raise
        self._rows: list[dict[str, Any]] = []
        self.count = 0

    def add(self, row: dict[str, Any]) -> None:
        self._rows.append({k: scrub_value(v) for k, v in row.items()})
        self.count += 1
        if len(self._rows) >= ROWS_PER_GROUP:
            self._flush()

    def _flush(self) -> None:
        if self._rows:
            batch = self._pa.RecordBatch.from_pylist(self._rows, schema=self._schema)
            self._writer.write_batch(batch)
            self._rows = []

    def __enter__(self) -> ParquetRows:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool:
        failure: BaseException | None = None
        try:
            if kind is None:
                self._flush()
            self._writer.close()
        except BaseException as failed:
            failure = failed
        if failure is not None and kind is None:  # discard the temporary file, keep the old
            if self._stack.__exit__(type(failure), failure, failure.__traceback__):
                return False
            raise failure
        return bool(self._stack.__exit__(kind, exc, tb))


def write_rows(path: Path, columns: tuple[tuple[str, str], ...], rows: Iterable[Any]) -> int:
    """Write ``rows`` (dicts) to ``path`` atomically; the number of rows written."""
    with ParquetRows(path, columns) as sink:
        for row in rows:
            sink.add(row)
    return sink.count


__all__ = [
    "REPLY_COLUMNS",
    "ROWS_PER_GROUP",
    "SAMPLE_COLUMNS",
    "TRAJECTORY_COLUMNS",
    "ParquetRows",
    "reply_row",
    "sample_row",
    "trajectory_row",
    "write_rows",
]

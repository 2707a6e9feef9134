"""``earnest score --format parquet``: one row per reply with the documented columns, read
back with the real pyarrow; the same values as the jsonl records."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from conftest import EXAMPLES, REPO, run_earnest

pq = pytest.importorskip("pyarrow.parquet")

SUITE = EXAMPLES / "suite"
REPLIES = SUITE / "recorded" / "replies.jsonl"


def test_score_parquet_rows_equal_the_jsonl_records(tmp_path: Path) -> None:
    out = tmp_path / "replies.parquet"
    proc = run_earnest("score", str(REPLIES), "--suite", str(SUITE), "--format", "parquet",
                       "-o", str(out))  # fmt: skip
    assert proc.returncode == 1, proc.stderr  # not every example reply passes
    rows = pq.read_table(out).to_pylist()
    jsonl = run_earnest("score", str(REPLIES), "--suite", str(SUITE), "--format", "jsonl")
    records = [json.loads(line) for line in jsonl.stdout.splitlines()]
    assert len(rows) == len(records) == 27
    for row, record in zip(rows, records, strict=True):
        for key in ("file", "line", "fixture_id", "verdict", "reason", "choice", "order",
                    "cited_rules", "missing_citations", "unmatched_failure", "envelope"):  # fmt: skip
            assert row[key] == record[key], key
        assert row["model"] == record.get("model") and row["epoch"] == record.get("epoch")
        assert row["passed"] is (record["verdict"] == "pass")
        assert json.loads(row["criteria_json"]) == record["criteria"]
        assert row["matched_rationalizations"] == len(record["matched_rationalizations"])
    docs = (REPO / "docs" / "formats.md").read_text()
    section = docs[docs.index("**`parquet`** (`earnest score`)") :]
    documented = set(
        re.findall(r"^\| `([a-z_]+)`", section[: section.index("\n\n**Processes.**")], re.M)
    )
    assert set(pq.read_table(out).schema.names) == documented


def test_score_parquet_needs_output() -> None:
    proc = run_earnest("score", str(REPLIES), "--suite", str(SUITE), "--format", "parquet")
    assert proc.returncode == 2 and "give --output FILE" in proc.stderr

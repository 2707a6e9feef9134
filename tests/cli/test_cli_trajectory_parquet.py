"""``trajectory score --format parquet``: one row per trajectory with the documented columns,
read back with the real pyarrow; the same values as the jsonl records."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from conftest import EXAMPLES, REPO, run_earnest

pq = pytest.importorskip("pyarrow.parquet")

FOLDER = EXAMPLES / "trajectories"


def test_parquet_rows_equal_the_jsonl_records(tmp_path: Path) -> None:
    out = tmp_path / "scores.parquet"
    proc = run_earnest("trajectory", "score", str(FOLDER), "-d", "all", "--format", "parquet",
                       "-o", str(out), "-j", "2")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    table = pq.read_table(out)
    jsonl = run_earnest("trajectory", "score", str(FOLDER), "-d", "all", "--format", "jsonl")
    records = [json.loads(line) for line in jsonl.stdout.splitlines()]
    rows = table.to_pylist()
    assert len(rows) == len(records) == 12
    for row, record in zip(rows, records, strict=True):
        assert row["source"] == record["source"] and row["outcome"] == record["outcome"]
        assert row["termination_reason"] == record["termination"]["reason"]
        assert row["aggregate"] == record["aggregate"]
        assert row["claimed_completion"] is record["claimed_completion"]
        assert row["gate_downgraded"] == record["gate"]["downgraded"]
        for name, body in record["dimensions"].items():
            assert row[f"{name}_score"] == body["score"]
            assert row[f"{name}_confidence"] == body["confidence"]
        assert json.loads(row["dimensions_json"]) == record["dimensions"]
    # Every column is documented in docs/formats.md.
    docs = (REPO / "docs" / "formats.md").read_text()
    section = docs[docs.index("#### Parquet: `trajectory score --format parquet") :]
    documented = set(re.findall(r"^\| `([a-z_]+)`", section[: section.index("\n\n#")], re.M))
    assert set(table.schema.names) <= documented | {
        f"{d}_{p}"
        for d in ("planning", "tool_grounding", "recovery", "refusal", "effect_grounding")
        for p in ("score", "confidence")
    }
    assert str(table.schema.field("tool_calls").type) == "int64"


def test_parquet_needs_an_output_file_and_keeps_a_file_on_failure(tmp_path: Path) -> None:
    proc = run_earnest("trajectory", "score", str(FOLDER), "--format", "parquet")
    assert proc.returncode == 2 and "give --output FILE" in proc.stderr
    out = tmp_path / "keep.parquet"
    out.write_bytes(b"precious")
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "nothing.jsonl").write_text("not a transcript\n")
    proc = run_earnest("trajectory", "score", str(empty), "--format", "parquet", "-o", str(out))
    assert proc.returncode == 2 and "no readable trajectory" in proc.stderr
    assert out.read_bytes() == b"precious"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty", "keep.parquet"]

"""``earnest export RUN --format parquet``: one row per stored sample (void ones too), with
the documented columns, read back with the real pyarrow; the same samples and verdicts as
``earnest export`` jsonl and the run store."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest
from test_live_cli import three_runs  # noqa: F401 - the module's runs, as a fixture

from conftest import REPO, run_earnest

pq = pytest.importorskip("pyarrow.parquet")


def test_export_parquet(tmp_path: Path, three_runs: tuple[Path, Path, str, str, str]) -> None:  # noqa: F811
    _, db, _, _, run_id = three_runs
    out = tmp_path / "run.parquet"
    proc = run_earnest("export", run_id, "--store", str(db), "--format", "parquet", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    table = pq.read_table(out)
    rows = table.to_pylist()
    exported = run_earnest("export", run_id, "--store", str(db))
    lines = [json.loads(x) for x in exported.stdout.splitlines()]
    assert len(rows) == len(lines) == 6
    for row, line in zip(rows, lines, strict=True):
        assert row["run_id"] == run_id and row["void"] is False
        for key in ("fixture_id", "model", "arm", "epoch", "order", "profile", "response"):
            assert row[key] == line[key], key
    assert Counter(r["verdict"] for r in rows) == Counter(
        {"pass": 2, "fail-unparseable": 2, "fail-choice": 2}
    )
    docs = (REPO / "docs" / "formats.md").read_text()
    section = docs[docs.index("**`earnest export --format parquet") :]
    documented = set(re.findall(r"^\| `([a-z_]+)`", section[: section.index("\n\n#")], re.M))
    assert set(table.schema.names) == documented
    to_file = tmp_path / "run.jsonl"
    proc = run_earnest("export", run_id, "--store", str(db), "-o", str(to_file))
    assert proc.returncode == 0 and to_file.read_text() == exported.stdout


def test_export_parquet_needs_output(three_runs: tuple[Path, Path, str, str, str]) -> None:  # noqa: F811
    _, db, _, _, run_id = three_runs
    proc = run_earnest("export", run_id, "--store", str(db), "--format", "parquet")
    assert proc.returncode == 2 and "give --output FILE" in proc.stderr
    proc = run_earnest("export", run_id, "--store", str(db), "--format", "csv")
    assert proc.returncode == 2 and "'csv' is not one of jsonl, parquet, inspect" in proc.stderr

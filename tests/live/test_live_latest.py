"""``latest`` works wherever a run id is asked for; ``runs list`` shows the newest first."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from live_suite import write_suite

from conftest import run_earnest

AGENT = """
import sys
sys.stdin.read()
print("Rule 1 decides this.\\nCHOICE: A")
"""


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str, str]:
    root = tmp_path_factory.mktemp("latest")
    suite = write_suite(root / "suite", 1)
    agent = root / "agent.py"
    agent.write_text(AGENT)
    db = root / "runs.db"
    ids = []
    for _ in range(2):
        proc = run_earnest(
            "run", "--suite", str(suite), "--profile", f"a=exec:cmd:{sys.executable} {agent}",
            "--samples", "1", "--arms", "rule", "--yes", "--store", str(db),
        )  # fmt: skip
        assert proc.returncode in (0, 1), proc.stderr
        ids.append(proc.stdout.strip().splitlines()[-1])
    assert ids[0] != ids[1]
    return suite, db, ids[0], ids[1]


def test_runs_list_shows_the_newest_first(two_runs: tuple[Path, Path, str, str]) -> None:
    _, db, first, second = two_runs
    listed = json.loads(run_earnest("runs", "list", "--store", str(db), "--format", "json").stdout)
    ids = [r["run_id"] for r in (listed["runs"] if isinstance(listed, dict) else listed)]
    assert ids == [second, first]
    table = run_earnest("runs", "list", "--store", str(db)).stdout
    assert table.index(second) < table.index(first)


def test_latest_is_the_newest_run_everywhere(
    two_runs: tuple[Path, Path, str, str], tmp_path: Path
) -> None:
    _, db, _, second = two_runs
    store = ("--store", str(db))
    shown = run_earnest("runs", "show", "latest", *store, "--format", "json")
    assert shown.returncode in (0, 1), shown.stderr
    assert json.loads(shown.stdout)["run_id"] == second
    exported = run_earnest("export", "latest", *store)
    assert exported.returncode == 0 and exported.stdout
    assert exported.stdout == run_earnest("export", second, *store).stdout
    baseline = tmp_path / "baseline.json"
    blessed = run_earnest("baseline", "bless", "latest", "-o", str(baseline), *store)
    assert blessed.returncode == 0 and second in blessed.stderr
    compared = run_earnest("compare", str(baseline), "latest", *store, "--format", "json")
    assert compared.returncode == 0, compared.stderr
    assert second in compared.stdout
    report = tmp_path / "report.json"
    made = run_earnest("report", "--run", "latest", *store, "-o", str(report))
    assert made.returncode == 0, made.stderr
    assert second in report.read_text()


def test_latest_in_an_empty_store_is_a_clear_error(tmp_path: Path) -> None:
    from earnest.live.store import RunStore

    db = tmp_path / "runs.db"
    with RunStore(db):
        pass
    proc = run_earnest("runs", "show", "latest", "--store", str(db))
    assert proc.returncode == 2 and "latest: no run yet" in proc.stderr
    assert "Traceback" not in proc.stderr

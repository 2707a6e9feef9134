"""``earnest score --jobs N``: the same bytes as ``--jobs 1`` in every format, and the same
error for a bad line. Real subprocess runs on the example suite's recorded replies, repeated
to span several chunks of work."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import EXAMPLES, run_earnest
from earnest.pressure.parallel import CHUNK

SUITE = EXAMPLES / "suite"
REPLIES = SUITE / "recorded" / "replies.jsonl"


@pytest.fixture(scope="module")
def replies(tmp_path_factory: pytest.TempPathFactory) -> Path:
    lines = REPLIES.read_text().splitlines()
    path = tmp_path_factory.mktemp("jobs") / "many.jsonl"
    path.write_text("\n".join(lines * 8) + "\n")  # 216 replies: four chunks
    assert len(lines) * 8 > 3 * CHUNK
    return path


@pytest.mark.parametrize("fmt", ["jsonl", "json", "junit", "table"])
def test_score_jobs_is_byte_identical(replies: Path, fmt: str) -> None:
    runs = [
        run_earnest(
            "score",
            str(replies),
            "--suite",
            str(SUITE),
            "--format",
            fmt,
            "-j",
            jobs,
            env={"EARNEST_OVERCOMMIT": "1"},
        )  # 3 on 2 cores: insisted
        for jobs in ("1", "2", "3")
    ]
    assert [r.returncode for r in runs] == [1, 1, 1], runs[0].stderr  # not all pass
    assert runs[1].stdout == runs[0].stdout == runs[2].stdout
    assert runs[1].stderr == runs[0].stderr
    if fmt == "jsonl":
        assert len(runs[0].stdout.splitlines()) == 216


def test_score_jobs_reports_a_bad_line_as_one_process_does(replies: Path, tmp_path: Path) -> None:
    lines = replies.read_text().splitlines()
    lines[150] = '{"fixture_id": "NO-SUCH-FIXTURE", "response": "x"}'
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(lines) + "\n")
    one, two = (
        run_earnest("score", str(bad), "--suite", str(SUITE), "-j", jobs) for jobs in ("1", "2")
    )
    assert one.returncode == two.returncode == 2
    assert one.stderr == two.stderr and f"{bad}: line 151" in one.stderr
    assert "Traceback" not in two.stderr


def test_default_jobs_rule() -> None:
    """Parallel by default only with many cores and much input (docs/formats.md)."""
    from earnest.parallel import PARALLEL_MIN_BYTES, PARALLEL_MIN_CORES, score_jobs

    big = PARALLEL_MIN_BYTES
    assert score_jobs(10 * big, cores=PARALLEL_MIN_CORES - 1) == 1  # the main process + 1
    assert score_jobs(big - 1, cores=64) == 1  # too little to pay for the pool
    assert score_jobs(big, cores=PARALLEL_MIN_CORES) == PARALLEL_MIN_CORES - 1
    assert score_jobs(big, cores=8) == 7  # one core stays the main process's


def test_default_jobs_judges_a_small_file_here(
    replies: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 27: the default never starts worker processes for input too small to pay
    (even on a machine with many cores), and its output is that of ``--jobs 1``."""
    import earnest.parallel
    from earnest.__main__ import main

    monkeypatch.setattr(earnest.parallel, "default_jobs", lambda: 64)
    started: list[int] = []

    class NoPool:
        def __init__(self, jobs: int, **_: object) -> None:
            started.append(jobs)
            raise AssertionError("a worker pool was started")

    monkeypatch.setattr(earnest.parallel, "_pool_class", lambda: NoPool)
    code = main(["score", str(replies), "--suite", str(SUITE), "--format", "jsonl"])
    out = capsys.readouterr().out
    assert (code, started) == (1, [])
    one = run_earnest("score", str(replies), "--suite", str(SUITE), "--format", "jsonl", "-j", "1")
    assert out == one.stdout


@pytest.mark.parametrize("command", ["score", "trajectory score"])
def test_jobs_beyond_the_cores_are_capped_and_said(replies: Path, command: str) -> None:
    """Issue 22, item 13: ``--jobs 1000`` starts at most a process per core, says so and how
    to insist (EARNEST_OVERCOMMIT=1); the output is that of --jobs 1."""
    from earnest.parallel import default_jobs

    if command == "score":
        args = ["score", str(replies), "--suite", str(SUITE), "--format", "jsonl"]
    else:
        args = ["trajectory", "score", str(EXAMPLES / "trajectories"), "--format", "jsonl"]
    many = run_earnest(*args, "--jobs", "1000")
    one = run_earnest(*args, "--jobs", "1")
    assert many.returncode == one.returncode and many.stdout == one.stdout, many.stderr
    cores = default_jobs()
    assert f"--jobs 1000 capped at {cores}, the cores this process may use" in many.stderr
    assert "EARNEST_OVERCOMMIT=1" in many.stderr and "capped" not in one.stderr

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
        run_earnest("score", str(replies), "--suite", str(SUITE), "--format", fmt, "-j", jobs)
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

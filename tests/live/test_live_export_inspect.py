"""``earnest export RUN --format inspect``: a log the real inspect_ai reads back, one sample
per judged (fixture, profile, arm, epoch), the prompt as sent, the reply, the verdict as
score (``fail-unparseable`` as ``invalid_response_format``)."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path

import pytest
from test_live_cli import three_runs  # noqa: F401 - the module's runs, as a fixture

from conftest import run_earnest

inspect_log = pytest.importorskip("inspect_ai.log")


def test_export_inspect_is_read_by_inspect_ai(
    tmp_path: Path,
    three_runs: tuple[Path, Path, str, str, str],  # noqa: F811
) -> None:
    _, db, _, _, run_id = three_runs
    out = tmp_path / "run.eval"
    proc = run_earnest("export", run_id, "--store", str(db), "--format", "inspect", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    log = inspect_log.read_eval_log(str(out))
    assert log.status == "success" and log.eval.metadata["earnest_run_id"] == run_id
    samples = log.samples or []
    assert len(samples) == 6
    assert len({(s.id, s.epoch) for s in samples}) == 6 and {s.epoch for s in samples} == {1, 2}

    from earnest.live.store import RunStore

    with RunStore(db, create=False) as st:
        stored = {(r.fixture_id, r.profile, r.arm, r.epoch + 1): r for r in st.samples(run_id)}
    for s in samples:
        fixture_id, profile, arm = str(s.id).split("/")
        record = stored[(fixture_id, profile, arm, s.epoch)]
        score = (s.scores or {})["earnest_verdict"]
        assert score.value == ("C" if record.verdict == "pass" else "I")
        assert score.explanation == record.reason and score.metadata["verdict"] == record.verdict
        assert score.reason == (
            "invalid_response_format" if record.verdict == "fail-unparseable" else None
        )
        system, user = (m.text for m in s.input)  # type: ignore[union-attr]
        assert hashlib.sha256(f"{system}\0{user}".encode()).hexdigest() == record.prompt_hash
        assert s.output.completion == (record.reply or "")
    assert Counter(s.scores["earnest_verdict"].metadata["verdict"] for s in samples) == Counter(
        {"pass": 2, "fail-unparseable": 2, "fail-choice": 2}
    )
    assert log.results is not None and log.results.scores[0].metrics["accuracy"].value == 2 / 6
    json.dumps(log.model_dump(mode="json"))  # a well-formed log through and through


def test_export_inspect_needs_a_dot_eval_output(
    tmp_path: Path,
    three_runs: tuple[Path, Path, str, str, str],  # noqa: F811
) -> None:
    _, db, _, _, run_id = three_runs
    proc = run_earnest("export", run_id, "--store", str(db), "--format", "inspect")
    assert proc.returncode == 2 and "give --output FILE" in proc.stderr
    bad = tmp_path / "run.json"
    proc = run_earnest("export", run_id, "--store", str(db), "--format", "inspect", "-o", str(bad))
    assert proc.returncode == 2 and "contradicts the file name" in proc.stderr
    assert not bad.exists()

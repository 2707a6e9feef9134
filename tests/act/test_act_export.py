"""Act and replay runs are first-class runs (issue 22, item 15): `earnest export --format
inspect` and `earnest report` work for them, with the prompt that was really sent (the act
instructions included; a replayed reply's own option order)."""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

import pytest
from tests.conftest import EXAMPLES, run_earnest

from earnest.pressure.prompt import ACT_INSTRUCTION
from earnest.report.prompts import CHANGED_NOTE, SENT_NOTE

pytest.importorskip("inspect_ai")


@pytest.fixture(scope="module")
def acted(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("act-export")
    suite = root / "agentic"
    shutil.copytree(EXAMPLES / "agentic", suite)
    store = root / "runs.db"
    proc = run_earnest(
        "run", "--suite", str(suite), "--act", "--store", str(store), "-y", timeout=300
    )
    assert proc.returncode == 1, proc.stderr  # failures on purpose: exit 1, not 2
    return suite, store


def _inputs(log: Path) -> list[str]:
    from inspect_ai.log import read_eval_log

    samples = read_eval_log(str(log)).samples or []
    return [str(s.input[1].content) for s in samples if not isinstance(s.input, str)]


def _report_prompts(suite: Path, store: Path, out: Path, run: str = "latest") -> list[dict]:
    proc = run_earnest("report", "--run", run, "--store", str(store), "--suite", str(suite),
                       "--format", "json", "-o", str(out))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return list(json.loads(out.read_text())["prompts"].values())


def test_an_act_run_exports_and_reports_the_prompt_it_sent(
    acted: tuple[Path, Path], tmp_path: Path
) -> None:
    suite, store = acted
    log = tmp_path / "act.eval"
    proc = run_earnest("export", "latest", "--store", str(store), "--format", "inspect",
                       "-o", str(log))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    inputs = _inputs(log)
    assert inputs and all(ACT_INSTRUCTION in text for text in inputs)
    prompts = _report_prompts(suite, store, tmp_path / "r.json")
    assert prompts and all(ACT_INSTRUCTION in p["user"] for p in prompts)
    assert {p["note"] for p in prompts} == {SENT_NOTE}


def test_a_replay_of_it_exports_and_reports_too(acted: tuple[Path, Path], tmp_path: Path) -> None:
    suite, store = acted
    replies = tmp_path / "replies.jsonl"
    exported = run_earnest("export", "latest", "--store", str(store), "-o", str(replies))
    assert exported.returncode == 0, exported.stderr
    lines = [json.loads(line) for line in replies.read_text().splitlines()]
    profiles = sorted({line["profile"] for line in lines})
    replay_store = tmp_path / "replay.db"
    args = [a for p in profiles for a in ("--profile", f"{p}=replay:{replies}")]
    proc = run_earnest("run", "--suite", str(suite), "--act", "--store", str(replay_store),
                       "-y", *args, timeout=300)  # fmt: skip
    assert proc.returncode == 1, proc.stderr
    log = tmp_path / "replay.eval"
    proc = run_earnest("export", "latest", "--store", str(replay_store), "-o", str(log))
    assert proc.returncode == 0, proc.stderr  # `-o x.eval` alone: an Inspect log
    assert zipfile.is_zipfile(log)
    assert all(ACT_INSTRUCTION in text for text in _inputs(log))
    prompts = _report_prompts(suite, replay_store, tmp_path / "r.json")
    assert prompts and CHANGED_NOTE not in {p["note"] for p in prompts}

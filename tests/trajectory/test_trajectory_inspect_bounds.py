"""Bounded reading of Inspect ``.eval`` logs (issue 22, item 11): inflated bytes per archive and
resolved attachment text per sample. Past a bound, a warning names the file and the sample,
which is skipped; nothing hangs, and the work done grows with the inflated size only."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from conftest import run_earnest
from earnest.trajectory.readers import inspect_log
from earnest.trajectory.report import ReadReport


def _eval(path: Path, samples: list[dict[str, object]]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("header.json", json.dumps({"eval": {"task": "t", "model": "m"}}))
        for sample in samples:
            archive.writestr(f"samples/{sample['id']}_epoch_1.json", json.dumps(sample))
    return path


def _sample(sid: str, messages: list[dict[str, object]], **extra: object) -> dict[str, object]:
    return {"id": sid, "epoch": 1, "messages": messages, **extra}


def _chat(text: str = "Create a.txt") -> list[dict[str, object]]:
    return [{"role": "user", "content": text}, {"role": "assistant", "content": "Done."}]


def test_one_attachment_referenced_over_and_over_is_skipped(tmp_path: Path) -> None:
    """1 MiB attached once, referenced 100 times: 100 MiB of text from a file of a few KB."""
    blob = "x" * (1 << 20)
    many = [{"role": "user", "content": "attachment://h"} for _ in range(100)]
    path = _eval(
        tmp_path / "bomb.eval",
        [
            _sample("fine", _chat()),
            _sample(
                "bomb", [*many, {"role": "assistant", "content": "ok"}], attachments={"h": blob}
            ),
            _sample("after", _chat("Create b.txt")),
        ],
    )
    assert path.stat().st_size < 64 * 1024
    proc = run_earnest("trajectory", "convert", str(path))
    assert proc.returncode == 0, proc.stderr
    ids = [json.loads(line)["id"] for line in proc.stdout.splitlines()]
    assert ids == ["fine#1", "after#1"]  # the bounded sample skipped, the others read
    assert f"{path}: sample bomb: attachments resolve to more than" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_an_attachment_used_a_few_times_still_resolves(tmp_path: Path) -> None:
    path = _eval(
        tmp_path / "ok.eval",
        [_sample("s", [{"role": "user", "content": "attachment://h"},
                       {"role": "assistant", "content": "attachment://h"}],
                 attachments={"h": "Create a.txt " * 1000})],
    )  # fmt: skip
    (t,) = inspect_log.read(path, ReadReport())
    assert t.final_message.startswith("Create a.txt")


def test_the_archive_bound_stops_reading_and_names_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every member is under the member bound; together they pass the archive's."""
    samples = [_sample(f"s{n}", _chat("y" * 3000)) for n in range(5)]
    path = _eval(tmp_path / "many.eval", samples)
    member = len(json.dumps(samples[0]))
    monkeypatch.setattr(inspect_log, "MAX_ARCHIVE_BYTES", 2 * member + member // 2 + 200)
    report = ReadReport()
    read = [t.id for t in inspect_log.read(path, report)]
    assert read == ["s0#1", "s1#1"]
    (line,) = report.lines()
    assert line.startswith(str(path)) and "inflates past" in line and "3 sample(s) not read" in line

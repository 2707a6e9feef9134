"""Bounded reading of Inspect ``.eval`` logs (issue 22, item 11): inflated bytes per archive and
resolved attachment text per sample. Past a bound, a warning names the file and the sample,
which is skipped; nothing hangs, and the work done grows with the inflated size only."""

from __future__ import annotations

import json
import zipfile
import zlib
from pathlib import Path
from typing import Any

import pytest

from conftest import run_earnest
from earnest.trajectory.readers import inspect_log
from earnest.trajectory.readers.ziparchive import RATIO_GRACE
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


class _Counting:
    """``zlib.decompressobj`` that counts what it inflates (zipfile's and earnest's alike)."""

    inflated = 0

    def __init__(self, real: Any) -> None:
        self.real = real

    def decompress(self, data: bytes, max_length: int = 0) -> bytes:
        out: bytes = self.real.decompress(data, max_length)
        _Counting.inflated += len(out)
        return out

    def flush(self, *args: Any) -> bytes:
        out: bytes = self.real.flush(*args)
        _Counting.inflated += len(out)
        return out

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)


def test_a_member_inflating_far_past_its_size_stops_early_unparsed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """300,000 identical messages (14 MB from ~40 KB): inflating stops once the ratio bound is
    crossed, a few MB in; the sample is skipped with a warning naming the file and the sample,
    the next one is read."""
    message = json.dumps({"role": "user", "content": "please continue"})
    count = 300_000
    body = '{"id": "bomb", "epoch": 1, "messages": [' + ",".join([message] * count) + "]}"
    path = tmp_path / "dense.eval"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        archive.writestr("header.json", json.dumps({"eval": {"task": "t", "model": "m"}}))
        archive.writestr("samples/bomb_epoch_1.json", body)
        archive.writestr("samples/after_epoch_1.json", json.dumps(_sample("after", _chat())))
    member = len(body)
    assert path.stat().st_size * 100 < member  # a small file, a large member
    real = zlib.decompressobj
    monkeypatch.setattr(zlib, "decompressobj", lambda *a, **k: _Counting(real(*a, **k)))
    parsed: list[int] = []
    real_loads = inspect_log.safe_loads
    monkeypatch.setattr(inspect_log, "safe_loads", lambda d: parsed.append(len(d)) or real_loads(d))
    _Counting.inflated = 0
    report = ReadReport()
    read = [t.id for t in inspect_log.read(path, report)]
    assert read == ["after#1"]
    (line,) = report.lines()
    assert line.startswith(f"{path}: samples/bomb_epoch_1.json: inflates more than"), line
    assert "sample not read" in line
    # What was inflated is the bound's worth (RATIO_GRACE plus a read or two), not the member.
    assert _Counting.inflated <= RATIO_GRACE + 2 * (1 << 20) + 10_000, _Counting.inflated
    assert _Counting.inflated < member / 2
    assert max(parsed) < 10_000  # only the header and the small sample were parsed

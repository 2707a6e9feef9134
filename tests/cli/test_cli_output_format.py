"""``-o FILE`` without ``--format``: the file's extension names the format; contradictions refused."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from conftest import EXAMPLES, run_earnest

SUITE = EXAMPLES / "suite"
TRAJECTORIES = EXAMPLES / "trajectories"


def _check(*args: str) -> list[str]:
    return ["check", "--suite", str(SUITE), *args]


def _score(*args: str) -> list[str]:
    return ["trajectory", "score", str(TRAJECTORIES), *args]


@pytest.mark.parametrize("command", [_check, _score])
def test_json_file_gets_json(tmp_path: Path, command) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "out.json"
    proc = run_earnest(*command("-o", str(out)))
    assert proc.returncode in (0, 1), proc.stderr
    json.loads(out.read_text())  # not a box-drawing table
    assert "━" not in out.read_text()


def test_xml_file_gets_junit(tmp_path: Path) -> None:
    out = tmp_path / "earnest.xml"
    proc = run_earnest(*_check("-o", str(out)))
    assert proc.returncode == 1
    assert ET.parse(out).getroot().tag == "testsuites"


def test_jsonl_file_gets_jsonl(tmp_path: Path) -> None:
    out = tmp_path / "scores.jsonl"
    run_earnest(*_score("-o", str(out)))
    lines = out.read_text().splitlines()
    assert lines and all(isinstance(json.loads(line), dict) for line in lines)
    converted = tmp_path / "runs.json"
    proc = run_earnest("trajectory", "convert", str(TRAJECTORIES), "-o", str(converted))
    assert proc.returncode == 0 and isinstance(json.loads(converted.read_text()), list)


def test_other_names_keep_the_default_table(tmp_path: Path) -> None:
    out = tmp_path / "check.txt"
    run_earnest(*_check("-o", str(out)))
    assert "== recorded replies" in out.read_text()


def test_html_file_for_report_and_json_file_gets_the_data(tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    proc = run_earnest("report", "--suite", str(SUITE), "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert isinstance(json.loads(out.read_text()), dict)


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (_check("--format", "json", "-o", "OUT/x.xml"), "--format json contradicts the file name"),
        (_check("--format", "table", "-o", "OUT/x.json"), "--format table contradicts"),
        (_check("-o", "OUT/x.jsonl"), "the file name says jsonl, which this command does not"),
        (_score("--format", "junit", "-o", "OUT/x.json"), "--format junit contradicts"),
    ],
)
def test_a_contradiction_is_refused_and_no_file_is_written(
    tmp_path: Path, args: list[str], says: str
) -> None:
    args = [a.replace("OUT", str(tmp_path)) for a in args]
    proc = run_earnest(*args)
    assert proc.returncode == 2 and says in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr and list(tmp_path.iterdir()) == []


def test_agreeing_format_and_name_are_fine(tmp_path: Path) -> None:
    out = tmp_path / "x.xml"
    assert run_earnest(*_check("--format", "junit", "-o", str(out))).returncode == 1
    assert ET.parse(out).getroot().tag == "testsuites"

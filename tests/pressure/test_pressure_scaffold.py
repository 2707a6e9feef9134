"""init_suite: a suite that passes lint and coverage at once; never overwrites anything."""

from __future__ import annotations

from pathlib import Path

import pytest

from earnest.errors import InputError
from earnest.pressure import coverage_report, init_suite, lint_suite, load_suite, render_prompt


def test_init_then_lint_and_coverage_pass(tmp_path: Path) -> None:
    root = tmp_path / "new-suite"
    created = init_suite(root)
    assert {p.relative_to(root).as_posix() for p in created} == {
        "earnest.toml",
        "doctrine.md",
        "agents/implementer.md",
        "pressure/IMPL-R1-RETRY.json",
        "recorded/replies.jsonl",
    }
    suite = load_suite(root)
    assert lint_suite(suite) == []
    report = coverage_report(suite)
    assert report.ok, [f.render() for f in report.failures]
    assert {r.rule: r.status for r in report.rows} == {"1": "covered", "2": "debt"}
    assert "CHOICE: <letter>" in render_prompt(suite, suite.fixtures[0]).user


def test_init_into_an_existing_empty_folder(tmp_path: Path) -> None:
    assert len(init_suite(tmp_path)) == 5


def test_init_refuses_to_overwrite_and_writes_nothing(tmp_path: Path) -> None:
    (tmp_path / "pressure").mkdir()
    mine = tmp_path / "pressure" / "IMPL-R1-RETRY.json"
    mine.write_text("my own work", encoding="utf-8")
    with pytest.raises(InputError) as err:
        init_suite(tmp_path)
    assert err.value.file == str(mine)
    assert "never overwrites" in err.value.message
    assert mine.read_text(encoding="utf-8") == "my own work"
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["IMPL-R1-RETRY.json", "pressure"]


def test_init_twice_fails_the_second_time(tmp_path: Path) -> None:
    init_suite(tmp_path)
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    with pytest.raises(InputError, match="already exists"):
        init_suite(tmp_path)
    assert {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == before


def test_init_onto_a_file_is_an_input_error(tmp_path: Path) -> None:
    target = tmp_path / "file"
    target.write_text("x", encoding="utf-8")
    with pytest.raises(InputError, match="not a folder"):
        init_suite(target)

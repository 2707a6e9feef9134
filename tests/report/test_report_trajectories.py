"""The report's trajectory battery: the numbers are `earnest trajectory score`'s, every run
opens with the request it answered, and transcript text stays text in a real browser."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from browserkit import launch_browser
from conftest import EXAMPLES, run_earnest

TRAJECTORIES = EXAMPLES / "trajectories"
EVIL = "<script>window.__pwned='t'</script><img src=x onerror=\"window.__pwned='i'\">"


def _report(tmp_path: Path, *args: str, fmt: str = "json") -> Path:
    out = tmp_path / f"report.{fmt}"
    proc = run_earnest("report", *args, "--format", fmt, "--output", str(out))
    assert proc.returncode == 0, proc.stderr
    return out


def test_battery_numbers_are_trajectory_score_s(tmp_path: Path) -> None:
    scored = run_earnest(
        "trajectory", "score", str(TRAJECTORIES), "--dimensions", "all", "--format", "json"
    )
    assert scored.returncode == 0, scored.stderr
    expected = json.loads(scored.stdout)
    battery = expected["battery"]
    doc = json.loads(
        _report(tmp_path, "--trajectories", str(TRAJECTORIES), "--dimensions", "all").read_text(
            encoding="utf-8"
        )
    )
    assert doc["sections"] == ["trajectories"]
    t = doc["trajectories"]
    cwe = battery["completion_without_effect"]
    assert t["completion_without_effect"] == {
        "count": cwe["count"],
        "rate": cwe["rate"],
        "interval": [cwe["ci_low"], cwe["ci_high"]],
        "claimed_completions": cwe["claimed_completions"],
    }
    assert cwe["count"] == 2 and t["trajectories"] == battery["trajectories"] == 12
    assert t["outcomes"] == battery["outcomes"]
    assert {d["dimension"]: (d["n"], d["mean"], d["interval"]) for d in t["dimensions"]} == {
        k: (v["n"], v["mean"], [v["ci_low"], v["ci_high"]])
        for k, v in battery["dimensions"].items()
    }
    assert len(t["dimensions"]) == 5
    # every trajectory: its outcome and scores as scored, with what it was asked
    for item, one in zip(t["items"], expected["trajectories"], strict=True):
        assert (item["source"], item["outcome"], item["reason"]) == (
            one["source"],
            one["outcome"],
            one["reason"],
        )
        assert {s["dimension"]: round(s["score"], 4) for s in item["scores"]} == {
            k: v["score"] for k, v in one["dimensions"].items()
        }
    unbacked = next(i for i in t["items"] if "handmade-stop-hook" in i["source"])
    assert unbacked["request"] == "Fix the failing test in tests/test_parser.py"
    assert unbacked["final_message"].startswith("All done")


def test_suite_and_trajectories_in_one_report(tmp_path: Path) -> None:
    doc = json.loads(
        _report(
            tmp_path, "--suite", str(EXAMPLES / "suite"), "--trajectories", str(TRAJECTORIES)
        ).read_text(encoding="utf-8")
    )
    assert doc["sections"] == ["suite", "pressure", "trajectories"]
    assert [d["dimension"] for d in doc["trajectories"]["dimensions"]] == [
        "planning",
        "tool_grounding",
        "recovery",
        "refusal",
    ]  # the default scorers, as `trajectory score`


def test_trajectory_errors(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    out = str(tmp_path / "o.html")
    proc = run_earnest("report", "--trajectories", str(empty), "-o", out)
    assert proc.returncode == 2 and "no readable trajectory found" in proc.stderr
    bad = run_earnest("report", "-t", str(TRAJECTORIES), "-d", "vibes", "-o", out)
    assert bad.returncode == 2 and "unknown dimension" in bad.stderr
    assert not Path(out).exists()


def _hostile_transcript(path: Path) -> Path:
    base = {"sessionId": "s", "cwd": "/work/demo", "isSidechain": False}
    lines = [
        {
            **base,
            "type": "user",
            "uuid": "u1",
            "timestamp": "2026-01-01T00:00:00Z",
            "message": {"role": "user", "content": f"Fix {EVIL} please"},
        },
        {
            **base,
            "type": "assistant",
            "uuid": "u2",
            "timestamp": "2026-01-01T00:00:01Z",
            "message": {
                "id": "m1",
                "role": "assistant",
                "model": "x",
                "content": [
                    {
                        "type": "tool_use",
                        "id": "t1",
                        "name": "Bash",
                        "input": {"command": f"echo '{EVIL}'"},
                    }
                ],
            },
        },
        {
            **base,
            "type": "user",
            "uuid": "u3",
            "timestamp": "2026-01-01T00:00:02Z",
            "message": {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "t1", "content": f"</script>{EVIL}"}
                ],
            },
        },
        {
            **base,
            "type": "assistant",
            "uuid": "u4",
            "timestamp": "2026-01-01T00:00:03Z",
            "message": {
                "id": "m2",
                "role": "assistant",
                "model": "x",
                "content": [{"type": "text", "text": f"Done. {EVIL}"}],
            },
        },
    ]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from launch_browser()


def test_trajectories_in_a_browser(tmp_path: Path, browser: Any) -> None:
    folder = tmp_path / "runs"
    folder.mkdir()
    for p in TRAJECTORIES.glob("*.jsonl"):
        (folder / p.name).write_bytes(p.read_bytes())
    _hostile_transcript(folder / "zz-hostile.jsonl")
    html = _report(tmp_path, "--trajectories", str(folder), "--dimensions", "all", fmt="html")
    page = browser.new_page(viewport={"width": 1300, "height": 1000})
    page.set_default_timeout(10_000)
    problems: list[str] = []
    page.on(
        "console", lambda m: problems.append(m.text) if m.type in ("error", "warning") else None
    )
    page.on("pageerror", lambda e: problems.append(str(e)))
    try:
        page.goto(html.as_uri())
        page.wait_for_selector("html[data-ready]")
        rows = page.locator("#trajectories-table tr.titem")
        assert rows.count() == len(list(folder.glob("*.jsonl")))
        assert page.locator("#trajectories svg circle").count() >= 6  # rate + dimensions
        page.select_option("#filter-outcome", "completion_without_effect")
        visible = page.locator("#trajectories-table tr.titem:not(.hidden)")
        assert visible.count() >= 2
        visible.first.locator("button.open").click()
        text = page.locator("#viewer").inner_text()
        assert "completion-without-effect" in text and "REQUEST" in text.upper()
        page.screenshot(path=str(tmp_path / "trajectory.png"))
        page.keyboard.press("Escape")
        page.select_option("#filter-outcome", "")
        page.click('#trajectories-table tr.titem:has-text("zz-hostile") button.open')
        shown = page.locator("#viewer").inner_text()
        assert EVIL in shown  # request, tool input/output and final message: all as text
        page.locator("#viewer details summary").first.click()
        assert page.locator("#viewer img, main img").count() == 0
        assert page.evaluate("typeof window.__pwned") == "undefined"
        assert problems == []
    finally:
        page.close()

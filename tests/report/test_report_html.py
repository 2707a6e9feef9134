"""The HTML report without a browser: self-contained, escaped, built from the verdicts; the CLI."""

from __future__ import annotations

import json
import re
from pathlib import Path

from hostile import ENVELOPED_TEXT, EVIL_MODEL, EVIL_REPLY, hostile_suite
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import EXAMPLES, run_earnest
from earnest.pressure.check import run_check
from earnest.pressure.suite import load_suite
from earnest.report.from_suite import suite_report
from earnest.report.html import render_html
from earnest.report.htmlsafe import esc, script_json

SUITE = EXAMPLES / "suite"
DATA_OPEN = '<script type="application/json" id="earnest-data">'


def page_json(html: str) -> dict:  # type: ignore[type-arg]
    start = html.index(DATA_OPEN) + len(DATA_OPEN)
    return json.loads(html[start : html.index("</script>", start)])  # type: ignore[no-any-return]


@given(st.text())
@settings(max_examples=300)
def test_script_json_never_breaks_out_and_round_trips(text: str) -> None:
    out = script_json({"reply": text, text[:5]: [text]})
    assert not set(out) & {"<", ">", "&", "\u2028", "\u2029"}
    assert out.isascii()
    assert json.loads(out) == {"reply": text, text[:5]: [text]}


@given(st.text())
def test_esc_leaves_no_markup(text: str) -> None:
    out = esc(text)
    assert "<" not in out and ">" not in out and '"' not in out and "'" not in out
    out.encode("utf-8")  # lone surrogates never reach the file


def test_example_report_is_self_contained_and_matches_check() -> None:
    suite = load_suite(SUITE)
    report = suite_report(suite)
    html = render_html(report)
    # nothing is fetched: no external URL in any attribute, no link/img/iframe, no CSS url()
    assert not re.search(r"""(?:src|href|action)\s*=\s*["']?(?:https?:)?//""", html)
    assert "<link" not in html and "<img" not in html and "<iframe" not in html
    assert "url(" not in html and "@import" not in html
    assert "default-src 'none'" in html
    assert html.count("<script") == 2  # the JSON data and the report's own script

    check = run_check(suite)
    assert check.score is not None
    p = report.pressure
    assert p is not None
    assert p.total.n == check.score.total and p.total.passes == check.score.passed
    assert dict(p.counts) == dict(check.score.counts)
    assert p.gate_ok is check.replies_ok is False
    # every reply is openable, with its verdict and the prompt it answered
    data = page_json(html)
    assert len(data["samples"]) == check.score.total
    for scored, sample in zip(check.score.replies, p.samples, strict=True):
        got = data["samples"][sample.key]
        assert got["verdict"] == scored.judgement.verdict
        assert got["reason"] == scored.judgement.reason
        prompt = data["prompts"][got["prompt"]]
        fixture = suite.fixture(scored.record.fixture_id)
        assert fixture is not None and fixture.scenario.strip()[:80] in prompt["user"]
    # the matrix has one row per fixture with replies and a square per reply
    assert html.count('class="sq ') >= check.score.total
    assert html.count("<tr data-fixture=") >= len(
        {r.record.fixture_id for r in check.score.replies}
    )


def test_ablation_and_rationalizations_come_from_the_judgements() -> None:
    suite = load_suite(SUITE)
    p = suite_report(suite).pressure
    assert p is not None
    check = run_check(suite)
    assert check.score is not None
    # each excuse lists exactly the replies whose judgement matched it
    for e in p.excuses:
        users = {
            f"r{i}"
            for i, r in enumerate(check.score.replies, start=1)
            if r.record.fixture_id == e.fixture_id
            and any(m.index + 1 == e.index for m in r.judgement.matched_rationalizations)
        }
        assert set(e.samples) == users, e
    assert len(p.unmatched_failures) == check.score.unmatched_failures
    # Rule 1 for claude: 2/2 in the rule arm, 0/1 ablated
    rule1 = next(a for a in p.ablations if a.rule == "1" and a.profile == "claude-sonnet-4-5")
    assert (rule1.rule_passes, rule1.rule_n, rule1.ablated_passes, rule1.ablated_n) == (2, 2, 0, 1)
    assert rule1.delta == 1.0


def test_hostile_replies_are_text(tmp_path: Path) -> None:
    root = hostile_suite(tmp_path / "suite")
    html = render_html(suite_report(load_suite(root)))
    assert html.count("<script") == 2
    assert "<script>window.__pwned" not in html
    assert "<img src=x" not in html and "<iframe" not in html and "<b>bold" not in html
    assert esc(EVIL_MODEL) in html  # the model name is shown, as text
    data = page_json(html)
    replies = {s["reply"] for s in data["samples"].values()}
    assert EVIL_REPLY in replies and ENVELOPED_TEXT in replies
    # a lone surrogate is read as U+FFFD (earnest.safejson), so no writer can choke on it
    assert any("\ufffd" in r for r in replies) and not any("\ud800" in r for r in replies)
    html.encode("utf-8")


def test_cli_writes_html_and_json(tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    proc = run_earnest("report", "--suite", str(SUITE), "--output", str(out))
    assert proc.returncode == 0, proc.stderr
    assert f"wrote {out}" in proc.stdout
    assert out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")

    js = tmp_path / "report.json"
    proc = run_earnest("report", "--suite", str(SUITE), "-o", str(js), "--format", "json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(js.read_text(encoding="utf-8"))
    assert doc["earnest_report"] == 1 and doc["sections"] == ["suite", "pressure"]
    assert doc["pressure"]["total"]["n"] == 27
    assert {"cells", "rates", "ablations", "rationalizations", "samples"} <= set(doc["pressure"])
    assert doc["suite"]["coverage"]["ok"] is True


def test_cli_replies_instead_of_the_configured_ones(tmp_path: Path) -> None:
    replies = tmp_path / "r.jsonl"
    replies.write_text(
        json.dumps({"fixture_id": "REV-R5-KEY-IN-DIFF", "response": "CHOICE: A"}) + "\n",
        encoding="utf-8",
    )
    js = tmp_path / "r.json"
    proc = run_earnest(
        "report", "-s", str(SUITE), "--replies", str(replies), "-o", str(js), "-f", "json"
    )
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(js.read_text(encoding="utf-8"))
    assert doc["pressure"]["total"]["n"] == 1
    assert doc["pressure"]["samples"][0]["profile"] == "(no model)"


def test_cli_bad_usage_and_input(tmp_path: Path) -> None:
    nothing = run_earnest("report", "-o", str(tmp_path / "x.html"))
    assert nothing.returncode == 2 and "nothing to report" in nothing.stderr
    folder = run_earnest("report", "-s", str(SUITE), "-o", str(tmp_path))
    assert folder.returncode == 2 and "is a folder" in folder.stderr
    replies = tmp_path / "r.jsonl"
    replies.write_text('{"fixture_id": "REV-R5-KEY-IN-DIFF"}\n', encoding="utf-8")
    over = run_earnest("report", "-s", str(SUITE), "-r", str(replies), "-o", str(replies))
    assert over.returncode == 2 and "overwrite" in over.stderr
    assert replies.read_text(encoding="utf-8") == '{"fixture_id": "REV-R5-KEY-IN-DIFF"}\n'
    bad = run_earnest(
        "report", "-s", str(SUITE), "-r", str(replies), "-o", str(tmp_path / "o.html")
    )
    assert bad.returncode == 2
    assert f"{replies}: line 1: missing field 'response'" in bad.stderr
    assert "Traceback" not in bad.stderr
    assert not (tmp_path / "o.html").exists()

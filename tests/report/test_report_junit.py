"""The JUnit writer: structure, counts and escaping of untrusted text."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from earnest.report.junit import (
    JUnitCase,
    JUnitFailure,
    JUnitSuite,
    clean,
    render_junit,
    write_text_atomic,
)


def test_structure_and_counts() -> None:
    cases = (
        JUnitCase("ok", "c.x", time=0.5, properties=(("verdict", "pass"),)),
        JUnitCase("bad", "c.x", failure=JUnitFailure("fail-choice", "chose A", "reply text")),
        JUnitCase("err", "c.y", error=JUnitFailure("void", "timeout")),
        JUnitCase("skip", "c.y", skipped="not run"),
    )
    xml = render_junit([JUnitSuite("earnest", cases, properties=(("pass", "1"),))])
    root = ET.fromstring(xml)
    assert root.tag == "testsuites"
    assert root.attrib == {"tests": "4", "failures": "1", "errors": "1", "skipped": "1"}
    suite = root.find("testsuite")
    assert suite is not None and suite.get("name") == "earnest"
    assert suite.find("properties/property").attrib == {"name": "pass", "value": "1"}  # type: ignore[union-attr]
    tcs = suite.findall("testcase")
    assert [t.get("name") for t in tcs] == ["ok", "bad", "err", "skip"]
    assert tcs[0].find("properties/property").get("value") == "pass"  # type: ignore[union-attr]
    f = tcs[1].find("failure")
    assert f is not None and (f.get("type"), f.get("message"), f.text) == (
        "fail-choice",
        "chose A",
        "reply text",
    )
    assert tcs[2].find("error").get("message") == "timeout"  # type: ignore[union-attr]
    assert tcs[3].find("skipped").get("message") == "not run"  # type: ignore[union-attr]


def test_untrusted_text_is_escaped() -> None:
    nasty = "a\"b'c<d>&e ]]> </failure><x/> \x00\x1b[31m\x07 \ud800 \uffff\ttab\nnew"
    case = JUnitCase(
        nasty,
        nasty,
        failure=JUnitFailure(nasty, nasty, nasty),
        properties=((nasty, nasty),),
        system_out=nasty,
    )
    xml = render_junit([JUnitSuite(nasty, (case,))])
    xml.encode("utf-8")  # no lone surrogates left
    root = ET.fromstring(xml)
    tc = root.find("testsuite/testcase")
    assert tc is not None
    expected = clean(nasty)
    assert (
        "\\x00" in expected
        and "\\x1b" in expected
        and "\\ud800" in expected
        and "\\uffff" in expected
    )
    assert tc.get("name") == expected  # newlines and tabs in attributes survive
    failure = tc.find("failure")
    assert failure is not None and failure.text == expected and failure.get("message") == expected
    assert tc.find("system-out").text == expected  # type: ignore[union-attr]
    assert len(root.findall(".//x")) == 0  # markup in the text stayed text


@settings(max_examples=200, deadline=None)
@given(st.text(), st.text())
def test_any_text_gives_parseable_xml(name: str, body: str) -> None:
    xml = render_junit(
        [JUnitSuite("s", (JUnitCase(name, "c", failure=JUnitFailure("t", body, body)),))]
    )
    tc = ET.fromstring(xml.encode("utf-8")).find("testsuite/testcase")
    assert tc is not None and tc.get("name") == clean(name)
    failure = tc.find("failure")
    assert failure is not None and (failure.text or "") == clean(body)


def test_write_text_atomic_replaces_and_leaves_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "out.xml"
    target.write_text("old", encoding="utf-8")
    write_text_atomic(target, "new")
    assert target.read_text(encoding="utf-8") == "new"
    assert [p.name for p in tmp_path.iterdir()] == ["out.xml"]

"""A small, generic JUnit XML writer for CI systems (GitHub, GitLab, Jenkins, Buildkite).

Model output and transcripts are untrusted: every name, message and body is escaped, and
characters XML 1.0 cannot carry at all (control characters other than tab, newline and
carriage return; lone surrogates; U+FFFE/U+FFFF) are written as visible ``\\x1b``-style
escapes rather than dropped, so the file always parses and nothing is silently lost.

Example:
    >>> case = JUnitCase("PRS-1", "earnest.score", failure=JUnitFailure("fail-choice", "chose A"))
    >>> xml = render_junit([JUnitSuite("earnest score", (case,))])
    >>> '<failure type="fail-choice" message="chose A"' in xml
    True
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from earnest.files import write_text_atomic  # the one atomic writer, re-exported

_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff\ufffe\uffff]")


@dataclass(frozen=True, slots=True)
class JUnitFailure:
    """A failed test case: ``type`` (a short code), one-line ``message`` and optional body ``text``."""

    type: str
    message: str
    text: str = ""


@dataclass(frozen=True, slots=True)
class JUnitCase:
    name: str
    classname: str
    time: float = 0.0
    failure: JUnitFailure | None = None
    error: JUnitFailure | None = None
    skipped: str | None = None
    properties: tuple[tuple[str, str], ...] = ()
    system_out: str = ""


@dataclass(frozen=True, slots=True)
class JUnitSuite:
    name: str
    cases: tuple[JUnitCase, ...]
    properties: tuple[tuple[str, str], ...] = ()
    timestamp: str | None = None


def clean(text: str) -> str:
    """``text`` with characters XML 1.0 cannot hold replaced by visible escapes."""
    return _INVALID.sub(_visible, text)


def _visible(m: re.Match[str]) -> str:
    code = ord(m.group(0))
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def text_escape(text: str) -> str:
    # A bare carriage return would be read back as a newline: keep it as a reference.
    return (
        clean(text)
        .replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace("\r", "&#13;")
    )


def attr_escape(text: str) -> str:
    # Newlines and tabs in attributes would be normalised to spaces by parsers: keep them.
    return text_escape(text).replace('"', "&quot;").replace("\n", "&#10;").replace("\t", "&#9;")


def _properties(props: Sequence[tuple[str, str]], indent: str) -> list[str]:
    if not props:
        return []
    lines = [f"{indent}<properties>"]
    lines.extend(
        f'{indent}  <property name="{attr_escape(k)}" value="{attr_escape(v)}"/>' for k, v in props
    )
    lines.append(f"{indent}</properties>")
    return lines


def _outcome(tag: str, f: JUnitFailure) -> str:
    head = f'<{tag} type="{attr_escape(f.type)}" message="{attr_escape(f.message)}"'
    return f"{head}>{text_escape(f.text)}</{tag}>" if f.text else f"{head}/>"


def render_junit(suites: Sequence[JUnitSuite], *, name: str = "") -> str:
    """The JUnit XML document for ``suites`` (``name``: the ``testsuites`` element's, if any)."""
    tests = sum(len(s.cases) for s in suites)
    failures = sum(1 for s in suites for c in s.cases if c.failure is not None)
    errors = sum(1 for s in suites for c in s.cases if c.error is not None)
    skipped = sum(1 for s in suites for c in s.cases if c.skipped is not None)
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        "<testsuites"
        + (f' name="{attr_escape(name)}"' if name else "")
        + f' tests="{tests}" failures="{failures}" errors="{errors}" skipped="{skipped}">',
    ]
    for s in suites:
        attrs = (
            f'name="{attr_escape(s.name)}" tests="{len(s.cases)}" '
            f'failures="{sum(1 for c in s.cases if c.failure is not None)}" '
            f'errors="{sum(1 for c in s.cases if c.error is not None)}" '
            f'skipped="{sum(1 for c in s.cases if c.skipped is not None)}" '
            f'time="{sum(c.time for c in s.cases):.3f}"'
        )
        if s.timestamp:
            attrs += f' timestamp="{attr_escape(s.timestamp)}"'
        out.append(f"  <testsuite {attrs}>")
        out.extend(_properties(s.properties, "    "))
        for c in s.cases:
            out.append(
                f'    <testcase name="{attr_escape(c.name)}" classname="{attr_escape(c.classname)}" '
                f'time="{c.time:.3f}">'
            )
            out.extend(_properties(c.properties, "      "))
            if c.failure is not None:
                out.append("      " + _outcome("failure", c.failure))
            if c.error is not None:
                out.append("      " + _outcome("error", c.error))
            if c.skipped is not None:
                out.append(f'      <skipped message="{attr_escape(c.skipped)}"/>')
            if c.system_out:
                out.append(f"      <system-out>{text_escape(c.system_out)}</system-out>")
            out.append("    </testcase>")
        out.append("  </testsuite>")
    out.append("</testsuites>")
    return "\n".join(out) + "\n"


__all__ = [
    "JUnitCase",
    "JUnitFailure",
    "JUnitSuite",
    "attr_escape",
    "clean",
    "render_junit",
    "text_escape",
    "write_text_atomic",
]

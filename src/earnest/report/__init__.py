"""Reports: JUnit XML for CI (terminal tables, JSON and HTML reports join it here).

Example:
    >>> from earnest.report import JUnitCase, JUnitSuite, render_junit
    >>> render_junit([JUnitSuite("s", (JUnitCase("t", "c"),))]).count("<testcase ")
    1
"""

from earnest.report.junit import (
    JUnitCase,
    JUnitFailure,
    JUnitSuite,
    render_junit,
    write_text_atomic,
)

__all__ = ["JUnitCase", "JUnitFailure", "JUnitSuite", "render_junit", "write_text_atomic"]

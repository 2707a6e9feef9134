"""JUnit XML for ``earnest check``: one suite each for lint, coverage and recorded replies.

Example:
    >>> from earnest.report.check import lint_junit_suite
    >>> lint_junit_suite(()).cases[0].failure is None
    True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from earnest.pressure.check import CheckResult
from earnest.pressure.coverage import CoverageReport
from earnest.pressure.models import Diagnostic, Suite
from earnest.report.junit import JUnitCase, JUnitFailure, JUnitSuite, render_junit
from earnest.report.score import score_junit_suite


def lint_junit_suite(diagnostics: Sequence[Diagnostic]) -> JUnitSuite:
    """One case per file with findings (errors fail, warnings go to system-out); one case when clean."""
    by_file: dict[str, list[Diagnostic]] = {}
    for d in diagnostics:
        by_file.setdefault(d.file, []).append(d)
    cases: list[JUnitCase] = []
    for file, diags in by_file.items():
        errors = [d for d in diags if d.severity == "error"]
        warnings = [d for d in diags if d.severity != "error"]
        failure = None
        if errors:
            failure = JUnitFailure(
                errors[0].code,
                f"{len(errors)} lint error(s)",
                "\n".join(d.render() for d in errors),
            )
        cases.append(
            JUnitCase(
                name=file,
                classname="earnest.lint",
                failure=failure,
                system_out="\n".join(d.render() for d in warnings),
            )
        )
    if not cases:
        cases.append(JUnitCase(name="suite", classname="earnest.lint"))
    return JUnitSuite("earnest lint", tuple(cases))


def coverage_junit_suite(report: CoverageReport) -> JUnitSuite:
    """One case per rule, plus one per suite-level failure."""
    cases: list[JUnitCase] = []
    for row in report.rows:
        cases.append(
            JUnitCase(
                name=f"Rule {row.rule}: {row.title}",
                classname="earnest.coverage",
                skipped=f"debt: {row.debt_reason}" if row.status == "debt" else None,
                properties=(
                    ("status", row.status),
                    ("agents", " ".join(row.agents)),
                    ("fixtures", " ".join(row.fixtures)),
                ),
            )
        )
    for f in report.failures:
        cases.append(
            JUnitCase(
                name=f"{f.code}: {f.file}",
                classname="earnest.coverage",
                failure=JUnitFailure(f.code, f.message, f.render()),
            )
        )
    return JUnitSuite("earnest coverage", tuple(cases))


def check_junit(result: CheckResult, suite: Suite) -> str:
    suites = [lint_junit_suite(result.diagnostics), coverage_junit_suite(result.coverage)]
    if result.score is not None:
        replies = score_junit_suite(result.score, suite, suite_name="earnest recorded replies")
        # The ablated arm is the RED baseline: its failures are expected and must not fail CI.
        cases = tuple(
            replace(case, failure=None, skipped=f"ablated arm (RED baseline): {case.failure.type}")
            if scored.record.arm == "ablated" and case.failure is not None
            else case
            for scored, case in zip(result.score.replies, replies.cases, strict=True)
        )
        suites.append(replace(replies, cases=cases))
    return render_junit(suites)


__all__ = ["check_junit", "coverage_junit_suite", "lint_junit_suite"]

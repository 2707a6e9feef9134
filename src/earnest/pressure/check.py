"""``earnest check``: lint, coverage and scoring of the suite's recorded replies, judged together.

Each criterion is judged separately and combined explicitly; the result records why it failed.
Replies recorded in the ``ablated`` arm are the RED baseline (the rule removed), expected to
fail: they are scored and reported but never fail the check.

Example:
    >>> result = run_check(load_suite("examples/suite"))  # doctest: +SKIP
    >>> result.lint_ok, result.coverage.ok  # doctest: +SKIP
    (True, True)
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from earnest.errors import InputError
from earnest.pressure.coverage import CoverageReport, coverage_report
from earnest.pressure.lint import has_errors, lint_suite
from earnest.pressure.models import Diagnostic, Suite
from earnest.pressure.score import ScoredReply, ScoreResult, score_replies


@dataclass(frozen=True, slots=True)
class CheckResult:
    diagnostics: tuple[Diagnostic, ...]
    coverage: CoverageReport
    reply_files: tuple[Path, ...]
    score: ScoreResult | None
    replies_error: str | None = None
    """Why the replies were not scored: a replies file that does not fit a suite with lint
    errors (e.g. a reply to a fixture that does not load). The lint errors are the cause."""

    @property
    def lint_ok(self) -> bool:
        return not has_errors(list(self.diagnostics))

    @property
    def gating_failures(self) -> tuple[ScoredReply, ...]:
        """Recorded replies that fail the check: any failure outside the ablated arm."""
        if self.score is None:
            return ()
        return tuple(
            r for r in self.score.replies if not r.judgement.passed and r.record.arm != "ablated"
        )

    @property
    def replies_ok(self) -> bool:
        return not self.gating_failures and self.replies_error is None

    @property
    def ok(self) -> bool:
        return self.lint_ok and self.coverage.ok and self.replies_ok

    def reasons(self) -> list[str]:
        """Why the check failed, one line per criterion (empty when it passed)."""
        out: list[str] = []
        errors = sum(1 for d in self.diagnostics if d.severity == "error")
        if errors:
            out.append(f"lint: {errors} error(s)")
        if not self.coverage.ok:
            out.append(f"coverage: {len(self.coverage.failures)} failure(s)")
        if self.replies_error is not None:
            out.append("replies: not scored (fix the lint errors first)")
        if self.gating_failures:
            out.append(f"replies: {len(self.gating_failures)} recorded reply(ies) did not pass")
        return out


def reply_files(suite: Suite) -> tuple[Path, ...]:
    """The recorded-replies files the suite configures (``[suite] replies`` globs), sorted."""
    root = suite.config.root
    found: dict[Path, None] = {}
    for pattern in suite.config.replies:
        for p in sorted(root.glob(pattern)):
            # FIFOs and devices are kept, so that the reader refuses them by name (unread).
            if not p.is_dir() and p.exists():
                found.setdefault(p, None)
    return tuple(found)


def run_check(suite: Suite) -> CheckResult:
    diagnostics = tuple(lint_suite(suite))
    coverage = coverage_report(suite)
    files = reply_files(suite)
    score: ScoreResult | None = None
    replies_error: str | None = None
    try:
        score = score_replies(suite, files) if files else None
    except InputError as exc:
        # A suite with lint errors often cannot score its replies (their fixture does not
        # load): report the lint errors, the cause, and exit 1, not exit 2 on the symptom.
        # A bad replies file beside a clean suite is still bad input.
        if not has_errors(list(diagnostics)):
            raise
        replies_error = exc.render()
    return CheckResult(diagnostics, coverage, files, score, replies_error)


__all__ = ["CheckResult", "reply_files", "run_check"]

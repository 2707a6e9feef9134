"""The test items of the pytest plugin (imported only when ``--earnest-suite`` is given).

One ``earnest check`` per suite (:func:`earnest.pressure.check.run_check`); each item reports
one part of its result, so the verdicts are exactly the ones ``earnest check`` gives.

Example::

    pytest --earnest-suite examples/suite --collect-only -q
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import pytest

from earnest.errors import InputError
from earnest.pressure.check import CheckResult, run_check
from earnest.pressure.envelopes import unwrap_envelope
from earnest.pressure.models import Diagnostic, Suite
from earnest.pressure.score import ScoredReply
from earnest.pressure.suite import load_suite
from earnest.redact import scrub

_EXCERPT = 3000


class EarnestLintWarning(UserWarning):
    """A lint warning in an earnest suite file (warnings never fail ``earnest check``)."""


class EarnestFailure(Exception):
    """What an earnest item failed on, shown as is (no traceback)."""


@dataclass(frozen=True, slots=True)
class Outcome:
    kind: Literal["pass", "fail", "xfail"]
    message: str = ""
    warnings: tuple[str, ...] = ()
    info: str = ""


class EarnestItem(pytest.Item):
    """One part of an ``earnest check`` result as a test."""

    def __init__(
        self, *, outcome: Outcome, line: int | None = None, description: str = "", **kw: Any
    ) -> None:
        super().__init__(**kw)
        self.outcome = outcome
        self._line = line
        self._description = description or self.name

    def runtest(self) -> None:
        o = self.outcome
        if o.info:
            self.add_report_section("call", "earnest", o.info)
        for w in o.warnings:
            warnings.warn(EarnestLintWarning(w), stacklevel=1)
        if o.kind == "xfail":
            pytest.xfail(o.message)
        if o.kind == "fail":
            raise EarnestFailure(o.message)

    def repr_failure(
        self,
        excinfo: pytest.ExceptionInfo[BaseException],
        style: Any = None,
    ) -> str:
        if isinstance(excinfo.value, EarnestFailure):
            return str(excinfo.value)
        return str(super().repr_failure(excinfo, style=style))

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, self._line, self._description


class EarnestSuiteNode(pytest.Collector):
    """The suite's items, collected once (see :func:`collect_suite`)."""

    def collect(self) -> list[pytest.Item]:  # pragma: no cover - items are built directly
        return []


def _suite_node(session: pytest.Session, config_file: Path) -> EarnestSuiteNode:
    # Named like a test file (the suite's configuration), relative to pytest's rootdir, so
    # pytest's summaries print it as a path.
    path = config_file.resolve()
    try:
        nodeid = path.relative_to(session.config.rootpath).as_posix()
    except ValueError:
        nodeid = path.as_posix()
    return EarnestSuiteNode.from_parent(session, name=path.name, path=path, nodeid=nodeid)


def _rel(suite_root: Path, file: str) -> str:
    try:
        return str(Path(file).resolve().relative_to(suite_root.resolve()))
    except ValueError:
        return file


def _lint_outcome(diags: list[Diagnostic]) -> Outcome:
    errors = [d for d in diags if d.severity == "error"]
    warns = tuple(d.render() for d in diags if d.severity != "error")
    if errors:
        return Outcome(
            "fail",
            f"{len(errors)} lint error(s):\n" + "\n".join(d.render() for d in errors),
            warns,
        )
    return Outcome("pass", warnings=warns)


def _reply_outcome(r: ScoredReply) -> Outcome:
    rec, j = r.record, r.judgement
    # Judged on the raw reply above; what pytest prints and writes to JUnit is redacted.
    if j.passed:
        return Outcome("pass", info=scrub(f"pass: {j.reason}"))
    head = f"{j.verdict}: {j.reason}"
    if rec.arm == "ablated":
        return Outcome("xfail", scrub(f"ablated arm (RED baseline, never gates): {head}"))
    lines = [head]
    lines += [
        f"  {'ok ' if c.passed else ('-- ' if c.passed is None else 'NO ')} {c.name}: {c.detail}"
        for c in j.criteria
    ]
    if j.matched_rationalizations:
        lines.append("rationalizations used:")
        lines += [f"  #{m.index + 1} {m.excuse}" for m in j.matched_rationalizations]
    elif j.unmatched_failure:
        lines.append("matched no recorded rationalization: read the reply, record the new excuse")
    text = unwrap_envelope(rec.response).text
    excerpt = text if len(text) <= _EXCERPT else text[:_EXCERPT] + "\n[… truncated]"
    lines += ["reply:", excerpt or "(empty)"]
    return Outcome("fail", scrub("\n".join(lines)))


def _items(
    session: pytest.Session, suite_dir: Path, suite: Suite, result: CheckResult
) -> Iterator[pytest.Item]:
    root = suite.config.root
    parent = _suite_node(session, suite.config.config_file)
    by_file: dict[str, list[Diagnostic]] = {}
    for d in result.diagnostics:
        by_file.setdefault(d.file, []).append(d)
    files = [str(suite.config.config_file), str(suite.config.doctrine)]
    files += [str(doc.path) for doc in suite.agents.values()]
    files += [str(ff.path) for ff in suite.fixture_files]
    files += [f for f in by_file if f not in files]
    for file in dict.fromkeys(files):
        rel = _rel(root, file)
        yield EarnestItem.from_parent(
            parent,
            name=f"lint[{rel}]",
            nodeid=f"{parent.nodeid}::lint[{rel}]",
            path=Path(file) if Path(file).exists() else root,
            outcome=_lint_outcome(by_file.get(file, [])),
            description=f"earnest lint {rel}",
        )
    cov = result.coverage
    debt = [r for r in cov.rows if r.status == "debt"]
    yield EarnestItem.from_parent(
        parent,
        name="coverage",
        nodeid=f"{parent.nodeid}::coverage",
        path=suite.config.config_file,
        outcome=Outcome(
            "fail" if not cov.ok else "pass",
            f"{len(cov.failures)} coverage failure(s):\n"
            + "\n".join(f.render() for f in cov.failures),
            info="\n".join(f"Rule {r.rule} in debt: {r.debt_reason}" for r in debt),
        ),
        description="earnest coverage",
    )
    if result.score is None:
        return
    for r in result.score.replies:
        rec = r.record
        parts = [rec.fixture_id, rec.model or "-", rec.arm or "rule", str(rec.epoch or 0)]
        name = f"reply[{'/'.join(parts)}@{Path(rec.file).name}:{rec.line}]"
        yield EarnestItem.from_parent(
            parent,
            name=name,
            nodeid=f"{parent.nodeid}::{name}",
            path=Path(rec.file),
            line=rec.line - 1,
            outcome=_reply_outcome(r),
            description=f"earnest reply {rec.file}:{rec.line} ({rec.fixture_id})",
        )


def collect_suite(session: pytest.Session, suite_dir: Path) -> list[pytest.Item]:
    """The items of the suite in ``suite_dir``; a suite that cannot be read is one failing item."""
    try:
        suite = load_suite(suite_dir)
        result = run_check(suite)
        return list(_items(session, suite_dir, suite, result))
    except InputError as exc:
        parent = _suite_node(session, suite_dir / "earnest.toml")
        return [
            EarnestItem.from_parent(
                parent,
                name="suite",
                nodeid=f"{parent.nodeid}::suite",
                path=suite_dir,
                outcome=Outcome("fail", f"earnest: {exc.render()}"),
            )
        ]


__all__ = ["EarnestFailure", "EarnestItem", "EarnestLintWarning", "collect_suite"]

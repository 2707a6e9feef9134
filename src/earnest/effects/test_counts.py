"""Test-runner summaries read into counts, and the counts a final message claims.

Agents report numbers their tools never printed ("86/86 pass" on code they never ran;
"4966/4966 ALL PASSED" when the run said 4985 passed, 7 failed). With ``strict_claims`` the
summary line of the last recorded test run is read into :class:`TestCounts` and a claim of
all passing, or of specific counts, is compared with it (:func:`disagreement`).

:func:`parse_summary` knows the summary lines of pytest, unittest, jest, vitest, mocha,
go test, cargo test, rspec, Maven Surefire and dotnet test (``tests/data/claims/`` holds real
output of each, with its source). Runners that print one summary per crate, package or
assembly (cargo, go, dotnet) are summed over the output; the others use their last summary.
``total`` counts the tests that ran: passed + failed + errors (skipped are separate).

:func:`parse_run_summaries` reads, besides the test summary, what linters, type checkers and
builds print to say how they came out (:class:`RunSummary`): ruff (``All checks passed!`` /
``Found N errors.``, ``N fixed, 0 remaining``, ``N files would be reformatted``), mypy
(``Success: no issues found`` / ``Found N errors in M files (checked K source files)``), tsc
(``Found N errors in M files.``), pyright (``N errors, M warnings, K informations``), eslint
(``✖ N problems (E errors, W warnings)``), black (``would reformat``), and the failure or
success markers of builds that print one reliably (``error: could not compile`` of cargo,
``BUILD SUCCESS`` / ``BUILD FAILURE`` of Maven, ``BUILD SUCCESSFUL`` / ``BUILD FAILED`` of
Gradle, ``Build succeeded.`` / ``Build FAILED.`` of dotnet, ``npm ERR!`` / ``npm error``,
yarn's and pnpm's ``Command failed``, make's ``*** [...] Error N``). A summary says which
command words print it (``tools``); a marker only a tool prints (npm's, make's) belongs to that
tool alone (``only_tools``). :mod:`earnest.effects.shell_outcomes` gives each summary to the
command of a line that printed it.

Example:
    >>> parse_summary("===== 1 failed, 2 passed, 1 skipped, 1 error in 1.67s =====")
    TestCounts(runner='pytest', passed=2, failed=1, skipped=1, errors=1)
    >>> c = claimed_counts("All 4966/4966 tests PASSED.")
    >>> c.passed, c.total, c.all_pass
    (4966, 4966, True)
    >>> disagreement(c, TestCounts("pytest", 4985, 7, 0, 0))
    'claimed 4966/4966 passed; the last test run (pytest) printed 4985/4992 passed, 7 failed'
    >>> [(r.runner, r.passed, r.text) for r in parse_run_summaries("Found 3 errors.\\n")]
    [('ruff or tsc', False, '3 errors')]
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from earnest.lazyre import LazyPattern


@dataclass(frozen=True, slots=True)
class TestCounts:
    """What one test run's summary says."""

    __test__ = False  # not a pytest test class, despite the name

    runner: str
    passed: int
    failed: int
    skipped: int
    errors: int

    @property
    def total(self) -> int:
        return self.passed + self.failed + self.errors

    @property
    def all_passed(self) -> bool:
        return self.failed == 0 and self.errors == 0 and self.passed > 0

    def render(self) -> str:
        extra = [f"{self.failed} failed"] if self.failed else []
        if self.errors:
            extra.append(f"{self.errors} error" + ("s" if self.errors != 1 else ""))
        if self.skipped:
            extra.append(f"{self.skipped} skipped")
        return ", ".join([f"{self.passed}/{self.total} passed", *extra])


def _n(match: re.Match[str] | None, group: int = 1) -> int:
    return int(match.group(group)) if match is not None and match.group(group) else 0


def _gated(source: str, *needles: str, flags: int = re.M) -> LazyPattern:
    """A runner's pattern (multi-line by default), tried only on an output holding a needle:
    a stop whose tool output printed no summary compiles none of them."""
    return LazyPattern(source, *needles, flags=flags)


_PYTEST = _gated(
    r"^=*\s*((?:\d+ (?:passed|failed|skipped|errors?|xfailed|xpassed|deselected|warnings?)"
    r"(?:, )?)+) in [\d.]+s(?: \([^)]*\))?\s*=*\s*$",
    " passed",
    " failed",
    " skipped",
    " error",
    " xfailed",
    " xpassed",
    " deselected",
    " warning",
)
_PYTEST_PART = _gated(
    r"(\d+) (passed|failed|skipped|errors?|xfailed|xpassed)",
    *(" passed", " failed", " skipped", " error", " xfailed", " xpassed"),
    flags=0,
)
_UNITTEST = _gated(r"^Ran (\d+) tests? in [\d.]+s\s*\n\s*\n?(OK|FAILED)(?: \(([^)]*)\))?", "Ran ")
_JEST = _gated(r"^Tests:\s+(.*?(\d+) total)\s*$", "Tests:")
_VITEST = _gated(r"^\s*Tests\s+(.*?)\((\d+)\)\s*$", "Tests")
_MOCHA_PASS = _gated(r"^\s+(\d+) passing \(", " passing (")
_MOCHA_FAIL = _gated(r"^\s+(\d+) failing\s*$", " failing")
_MOCHA_PEND = _gated(r"^\s+(\d+) pending\s*$", " pending")
_GO_VERBOSE = _gated(r"^\s*--- (PASS|FAIL|SKIP): ", "--- ")
_GO_PACKAGE = _gated(r"^(ok|FAIL|---)\s+\S+\s+(?:[\d.]+s|\(cached\))", "ok", "FAIL", "---")
_CARGO = _gated(
    r"^test result: (?:ok|FAILED)\. (\d+) passed; (\d+) failed; (\d+) ignored;", "test result: "
)
_RSPEC = _gated(
    r"^(\d+) examples?, (\d+) failures?(?:, (\d+) pending)?(?:, (\d+) errors? occurred outside of examples)?\s*$",
    " example",
)
_SUREFIRE = _gated(
    r"^(?:\[\w+\]\s+)?Tests run: (\d+), Failures: (\d+), Errors: (\d+), Skipped: (\d+)\s*$",
    "Tests run: ",
)
_DOTNET = _gated(
    r"^\s*(?:Passed|Failed|Skipped)!\s+-\s+Failed:\s+(\d+), Passed:\s+(\d+), Skipped:\s+(\d+), "
    r"Total:\s+(\d+)",
    "Total:",
)
_DOTNET_SUMMARY = _gated(
    r"^\s*Test summary: total: (\d+), failed: (\d+), succeeded: (\d+), skipped: (\d+)",
    "Test summary: total: ",
)


def _last(pattern: LazyPattern, text: str) -> re.Match[str] | None:
    """The last match: a runner's final summary (the Surefire "Results:" total, say)."""
    found = None
    for found in pattern.finditer(text):  # noqa: B007 - the loop keeps the last one
        pass
    return found


def _count(body: str, word: str) -> int:
    return _n(re.search(rf"(\d+) {word}", body))


def _pytest(text: str) -> tuple[int, TestCounts] | None:
    last = _last(_PYTEST, text)
    if last is None:
        return None
    parts = {k: 0 for k in ("passed", "failed", "skipped", "errors", "xfailed", "xpassed")}
    for n, word in _PYTEST_PART.findall(last.group(1)):
        parts["errors" if word.startswith("error") else word] += int(n)
    counts = TestCounts(
        "pytest",
        parts["passed"] + parts["xpassed"],
        parts["failed"],
        parts["skipped"] + parts["xfailed"],
        parts["errors"],
    )
    return last.start(), counts


def _unittest(text: str) -> tuple[int, TestCounts] | None:
    last = _last(_UNITTEST, text)
    if last is None:
        return None
    ran = int(last.group(1))
    detail = dict((k.strip(), int(v)) for k, v in re.findall(r"(\w+)=(\d+)", last.group(3) or ""))
    failed = detail.get("failures", 0) + detail.get("unexpected_successes", 0)
    errors = detail.get("errors", 0)
    skipped = detail.get("skipped", 0) + detail.get("expected_failures", 0)
    return last.start(), TestCounts("unittest", ran - failed - errors - skipped, failed, skipped,
                                    errors)  # fmt: skip


def _jest(text: str) -> tuple[int, TestCounts] | None:
    last = _last(_JEST, text)
    if last is None:
        return None
    body = last.group(1)
    return last.start(), TestCounts(
        "jest",
        _count(body, "passed"),
        _count(body, "failed"),
        _count(body, "skipped") + _count(body, "todo"),
        0,
    )


def _vitest(text: str) -> tuple[int, TestCounts] | None:
    last = _last(_VITEST, text)
    if last is None:
        return None
    body = last.group(1)
    return last.start(), TestCounts(
        "vitest",
        _count(body, "passed"),
        _count(body, "failed"),
        _count(body, "skipped") + _count(body, "todo"),
        0,
    )


def _mocha(text: str) -> tuple[int, TestCounts] | None:
    passing = list(_MOCHA_PASS.finditer(text))
    if not passing:
        return None
    last = passing[-1]
    rest = text[last.end() :]
    return last.start(), TestCounts(
        "mocha", int(last.group(1)), _n(_MOCHA_FAIL.search(rest)), _n(_MOCHA_PEND.search(rest)), 0
    )


def _go(text: str) -> tuple[int, TestCounts] | None:
    verbose = _GO_VERBOSE.findall(text)
    packages = list(_GO_PACKAGE.finditer(text))
    if not packages and "=== RUN" not in text:
        return None
    start = packages[0].start() if packages else 0
    if verbose and "=== RUN" in text:
        return start, TestCounts(
            "go test", verbose.count("PASS"), verbose.count("FAIL"), verbose.count("SKIP"), 0
        )
    # Without -v, go test names only failed tests, and prints one line per package: those
    # are the counts it gives.
    ok = sum(1 for m in packages if m.group(1) == "ok")
    return start, TestCounts("go test (packages)", ok, len(packages) - ok, 0, 0)


def _cargo(text: str) -> tuple[int, TestCounts] | None:
    found = list(_CARGO.finditer(text))
    if not found:
        return None
    return found[0].start(), TestCounts(
        "cargo test",
        sum(int(m.group(1)) for m in found),
        sum(int(m.group(2)) for m in found),
        sum(int(m.group(3)) for m in found),
        0,
    )


def _rspec(text: str) -> tuple[int, TestCounts] | None:
    last = _last(_RSPEC, text)
    if last is None:
        return None
    examples, failures, pending = int(last.group(1)), int(last.group(2)), _n(last, 3)
    return last.start(), TestCounts(
        "rspec", examples - failures - pending, failures, pending, _n(last, 4)
    )


def _surefire(text: str) -> tuple[int, TestCounts] | None:
    last = _last(_SUREFIRE, text)
    if last is None:
        return None
    run, failures, errors, skipped = (int(last.group(i)) for i in range(1, 5))
    return last.start(), TestCounts(
        "maven surefire", run - failures - errors - skipped, failures, skipped, errors
    )


def _dotnet(text: str) -> tuple[int, TestCounts] | None:
    summary = list(_DOTNET_SUMMARY.finditer(text))
    if summary:
        m = summary[-1]
        total, failed, passed, skipped = (int(m.group(i)) for i in range(1, 5))
        del total
        return m.start(), TestCounts("dotnet test", passed, failed, skipped, 0)
    found = list(_DOTNET.finditer(text))  # one line per test assembly
    if not found:
        return None
    return found[0].start(), TestCounts(
        "dotnet test",
        sum(int(m.group(2)) for m in found),
        sum(int(m.group(1)) for m in found),
        sum(int(m.group(3)) for m in found),
        0,
    )


_PARSERS: tuple[Callable[[str], tuple[int, TestCounts] | None], ...] = (
    _pytest, _unittest, _jest, _vitest, _mocha, _go, _cargo, _rspec, _surefire, _dotnet,
)  # fmt: skip

_MAX_SCAN = 64 * 1024
"""Summaries stand at the end of a run's output: only its tail is read."""


def parse_summary(output: str) -> TestCounts | None:
    """The counts of the test-runner summary in ``output`` (the last one, when several
    runners printed), or ``None`` when it holds none."""
    if not output:
        return None
    text = _scan_text(output)
    best: tuple[int, TestCounts] | None = None
    for parse in _PARSERS:
        got = parse(text)
        if got is not None and (best is None or got[0] >= best[0]):
            best = got
    return best[1] if best is not None else None


_ANSI = _gated(r"\x1b\[[0-9;?]*[A-Za-z]", "\x1b[", flags=0)
# Gemini CLI's run_shell_command result puts its label on the program's first line
# ("<untrusted_context>\nOutput: Ran 3 tests in 0.000s\n\nOK\nProcess Group PGID: 42"): a
# summary printed first (`pytest -q | tail -1`) starts its line only without the label.
_OUTPUT_LABEL = _gated(r"^Output: ", "Output: ")


def _scan_text(output: str) -> str:
    """The part of ``output`` summaries are read from: its tail, LF line ends, no ANSI
    colours, no shell tool's ``Output:`` label before the program's first line."""
    return _OUTPUT_LABEL.sub("", _ANSI.sub("", output[-_MAX_SCAN:].replace("\r\n", "\n")))


TEST_TOOLS: dict[str, tuple[str, ...]] = {
    "pytest": ("pytest", "py.test"), "unittest": ("unittest",), "jest": ("jest",),
    "vitest": ("vitest",), "mocha": ("mocha",), "go test": ("go",), "go test (packages)": ("go",),
    "cargo test": ("cargo",), "rspec": ("rspec",), "maven surefire": ("mvn",),
    "dotnet test": ("dotnet",),
}  # fmt: skip
"""The command words that print each test runner's summary."""


@dataclass(frozen=True, slots=True)
class RunSummary:
    """How a test, lint, type-check or build run said it came out, in its own words.

    ``kind`` is ``test``, ``lint``, ``typecheck`` or ``build``; ``passed`` the runner's own
    verdict; ``text`` what it printed, shortened (``5/6 passed, 1 failed``, ``3 errors``);
    ``counts`` a test run's counts; ``tools`` the command words that print it, and
    ``only_tools`` when nothing else can have printed it (npm's ``npm ERR!``).
    """

    runner: str
    kind: str
    passed: bool
    text: str
    counts: TestCounts | None = None
    tools: tuple[str, ...] = ()
    only_tools: bool = False

    def render(self) -> str:
        return f"{self.runner}: {self.text}"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


# Each: (pattern, runner, kind, tools, only_tools, verdict from the match -> (passed, text)).
_Verdict = Callable[[re.Match[str]], tuple[bool, str]]
_MARKERS: tuple[tuple[LazyPattern, str, str, tuple[str, ...], bool, _Verdict], ...] = (
    (_gated(r"^All checks passed!\s*$", "All checks passed!"), "ruff", "lint", ("ruff",), False,
     lambda m: (True, "all checks passed")),
    (_gated(r"^Found (\d+) errors? \((\d+) fixed, (\d+) remaining\)\.?\s*$", "Found "), "ruff",
     "lint", ("ruff",), False,
     lambda m: (m.group(3) == "0", f"{m.group(2)} fixed, {m.group(3)} remaining")),
    (_gated(r"^(\d+) files? would be reformatted\b", " would be reformatted"),
     "ruff format / black", "lint", ("ruff", "black"), False,
     lambda m: (False, f"{m.group(1)} would be reformatted")),
    (_gated(r"^(?:All done! \S+ \S+ \S+\s*\n)?(\d+) files? (?:already formatted|would be "
            r"left unchanged)\.?\s*$", " already formatted", " would be left unchanged"),
     "ruff format / black", "lint", ("ruff", "black"), False,
     lambda m: (True, f"{m.group(1)} already formatted")),
    (_gated(r"^Success: no issues found in (\d+) source files?\s*$", "Success: no issues "),
     "mypy", "typecheck", ("mypy", "dmypy"), False, lambda m: (True, "no issues found")),
    (_gated(r"^Found (\d+) errors? in (\d+) files? \(checked (\d+) source files?\)", "Found "),
     "mypy", "typecheck", ("mypy", "dmypy"), False,
     lambda m: (False, f"{_plural(int(m.group(1)), 'error')} in {m.group(2)} files")),
    (_gated(r"^Found (\d+) errors? in (?:the same file|\d+ files?)[,.:]?(?!.*\(checked)",
            "Found "), "tsc", "typecheck", ("tsc", "vue-tsc"), False,
     lambda m: (m.group(1) == "0", _plural(int(m.group(1)), "error"))),
    (_gated(r"^Found (\d+) errors?\.(?: Watching for file changes\.)?\s*$", "Found "),
     "ruff or tsc", "lint", ("ruff", "tsc"), False,
     lambda m: (m.group(1) == "0", _plural(int(m.group(1)), "error"))),
    (_gated(r"^(\d+) errors?, (\d+) warnings?, (\d+) informations?\s*$", " information"),
     "pyright", "typecheck", ("pyright", "basedpyright"), False,
     lambda m: (m.group(1) == "0", _plural(int(m.group(1)), "error"))),
    (_gated(r"^\u2716 (\d+) problems? \((\d+) errors?, (\d+) warnings?\)", "\u2716 "), "eslint",
     "lint", ("eslint",), False,
     lambda m: (m.group(2) == "0", f"{m.group(1)} problems, "
                f"{_plural(int(m.group(2)), 'error')}")),
    (_gated(r"^error: could not compile `", "error: could not compile `"), "cargo", "build",
     ("cargo",), True,
     lambda m: (False, "could not compile")),
    (_gated(r"^\[INFO\] BUILD (SUCCESS|FAILURE)\s*$", "[INFO] BUILD "), "maven", "build",
     ("mvn",), True, lambda m: (m.group(1) == "SUCCESS", f"BUILD {m.group(1)}")),
    (_gated(r"^BUILD (SUCCESSFUL|FAILED) in ", "BUILD "), "gradle", "build", ("gradle",), True,
     lambda m: (m.group(1) == "SUCCESSFUL", f"BUILD {m.group(1)}")),
    (_gated(r"^Build (succeeded|FAILED)\.\s*$", "Build "), "dotnet", "build", ("dotnet",), True,
     lambda m: (m.group(1) == "succeeded", f"Build {m.group(1)}")),
    (_gated(r"^npm (?:ERR!|error) ", "npm "), "npm", "build", ("npm",), True,
     lambda m: (False, "npm error")),
    (_gated(r"^error Command failed with exit code (\d+)", "error Command failed with "),
     "yarn", "build",
     ("yarn",), True, lambda m: (False, f"exit code {m.group(1)}")),
    (_gated(r"^\s*ELIFECYCLE\s+(?:Test|Command) failed", "ELIFECYCLE"), "pnpm", "build",
     ("pnpm",), True, lambda m: (False, "command failed")),
    (_gated(r"^(?:g|gnu)?make(?:\[\d+\])?: \*\*\* .*Error \d+", ": *** "), "make", "build",
     ("make", "gmake"), True, lambda m: (False, "make error")),
)  # fmt: skip


def parse_run_summaries(output: str) -> tuple[RunSummary, ...]:
    """Every runner's own account of how it came out in ``output``, in the order printed.

    The test summary is :func:`parse_summary`'s (the last one); a test run that printed no
    test at all (``0 passed``, nothing failed) says nothing. Of each other marker the last
    occurrence counts.

    Example:
        >>> [(r.runner, r.kind, r.passed) for r in parse_run_summaries(
        ...     "All checks passed!\\n....\\n6 passed in 0.12s\\n")]
        [('ruff', 'lint', True), ('pytest', 'test', True)]
    """
    if not output:
        return ()
    text = _scan_text(output)
    found: list[tuple[int, RunSummary]] = []
    best: tuple[int, TestCounts] | None = None
    for parse in _PARSERS:
        got = parse(text)
        if got is not None and (best is None or got[0] >= best[0]):
            best = got
    if best is not None:
        counts = best[1]
        if counts.failed or counts.errors or counts.passed:
            tools = TEST_TOOLS.get(counts.runner, ())
            summary = RunSummary(counts.runner, "test", counts.all_passed, counts.render(),
                                 counts, tools)  # fmt: skip
            found.append((best[0], summary))
    for pattern, runner, kind, tools, only, verdict in _MARKERS:
        match = _last(pattern, text)
        if match is not None:
            passed, said = verdict(match)
            found.append((match.start(), RunSummary(runner, kind, passed, said, None, tools, only)))
    found.sort(key=lambda pair: pair[0])
    return tuple(summary for _, summary in found)


@dataclass(frozen=True, slots=True)
class CountClaim:
    """The numbers a sentence claims: ``passed`` of ``total`` (either may be unknown),
    ``failed`` when it says so, ``all_pass`` for "all tests pass" / "N/N"."""

    passed: int | None
    total: int | None
    failed: int | None
    all_pass: bool

    def render(self) -> str:
        if self.passed is not None and self.total is not None:
            return f"{self.passed}/{self.total} passed"
        if self.passed is not None:
            return f"{self.passed} passed" + (
                f", {self.failed} failed" if self.failed is not None else ""
            )
        if self.total is not None:
            return f"all {self.total} passed"
        return "all tests pass"


_NUM = r"(\d[\d,]*)"
_FRACTION = LazyPattern(
    _NUM + r"\s*(?:/|out of|of)\s*" + _NUM + r"\s+(?:tests?\s+|specs?\s+|cases?\s+)?(?:are\s+)?"
    r"(?:all\s+)?(?:pass(?:es|ed|ing)?|green|succeed(?:ed|s)?)\b",
    flags=re.I,
)
_ALL_N = LazyPattern(r"\ball\s+" + _NUM + r"\s+(?:tests?|specs?|cases?|examples?)\b", flags=re.I)
_N_PASSED = LazyPattern(_NUM + r"\s+(?:tests?\s+)?(?:pass(?:ed|ing)|succeeded)\b", flags=re.I)
_N_FAILED = LazyPattern(_NUM + r"\s+(?:tests?\s+)?fail(?:ed|ing|ures?)?\b", flags=re.I)
_ALL_PASS = LazyPattern(
    r"\ball\s+(?:the\s+)?(?:\w+\s+)?(?:tests?|specs?|checks)\b.*?\b(?:pass|green|succeed)"
    r"|\btests?\s+(?:all\s+)?pass|\btest\s+suite\s+(?:now\s+)?pass|\ball\s+passed\b"
    r"|\bfull\s+suite\s+(?:is\s+)?(?:green|pass)",
    flags=re.I,
)


def _int(text: str) -> int:
    return int(text.replace(",", ""))


def claimed_counts(sentence: str) -> CountClaim | None:
    """The pass counts a sentence claims, or ``None`` when it claims none."""
    frac = _FRACTION.search(sentence)
    failed_m = _N_FAILED.search(sentence)
    failed = _int(failed_m.group(1)) if failed_m else None
    if frac is not None:
        passed, total = _int(frac.group(1)), _int(frac.group(2))
        return CountClaim(passed, total, failed, passed == total and not failed)
    all_n = _ALL_N.search(sentence)
    passed_m = _N_PASSED.search(sentence)
    if passed_m is not None:
        passed = _int(passed_m.group(1))
        return CountClaim(passed, None, failed, failed in (None, 0))
    if all_n is not None and _ALL_PASS.search(sentence):
        n = _int(all_n.group(1))
        return CountClaim(n, n, failed, True)
    if _ALL_PASS.search(sentence):
        return CountClaim(None, None, failed, True)
    return None


def disagreement(claim: CountClaim, counts: TestCounts | None) -> str | None:
    """Why ``claim`` disagrees with the last run's ``counts`` (``None``: they agree)."""
    said = f"claimed {claim.render()}"
    if counts is None:
        return f"{said}; no recorded test run printed a summary"
    mismatch = (
        (claim.all_pass and not counts.all_passed)
        or (claim.passed is not None and claim.passed != counts.passed)
        or (claim.total is not None and claim.total != counts.total)
        or (claim.failed is not None and claim.failed != counts.failed)
    )
    if not mismatch:
        return None
    return f"{said}; the last test run ({counts.runner}) printed {counts.render()}"


__all__ = [
    "TEST_TOOLS",
    "CountClaim",
    "RunSummary",
    "TestCounts",
    "claimed_counts",
    "disagreement",
    "parse_run_summaries",
    "parse_summary",
]

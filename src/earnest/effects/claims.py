"""Strict claims: what the final message says was done, checked against what was done.

Opt-in (``EffectGateConfig(strict_claims=True)``). :func:`extract_claims` finds, sentence by
sentence:

- ``created``: *created / wrote / added / generated PATH* (also passive: *PATH was created*);
- ``updated``: *updated / edited / fixed / modified / changed / refactored PATH*;
- ``deleted``: *deleted / removed PATH*; *renamed / moved A to B* is ``deleted`` A + ``created`` B;
- ``tests_pass``: *tests pass*, *all tests passed*, *N passed*, *N/N pass*, *N passed, 0
  failed*, *the test suite passes*;
- ``ran``: *ran `COMMAND`*, *ran pytest*, *ran the tests / linter / type checker / build*.

A sentence whose text before the claim carries a negation or an intention (*not*, *didn't*,
*unable*, *will*, *let me*, *you can* ...) makes no claim. :func:`verify_claims` then checks
each one: a created or updated file must exist inside the workspace and, with a baseline, be new
or changed since the run began (without one, a recorded tool call must have touched it); a
deleted file must be gone (and, with a baseline, have existed at the start); *tests pass* is
compared with the summary the last recorded test run printed (pytest, unittest, jest, vitest,
mocha, go test, cargo test, rspec, Maven Surefire, dotnet test: :mod:`earnest.effects.test_counts`)
— all passing, or the counts claimed, must match it, and a claim naming counts with no run at
all is unverified — and otherwise needs a successful test (or test-running check) in the ledger; *ran X* needs a recorded shell call
matching X, whatever its exit status (the claim is that it ran).

Example:
    >>> [(c.kind.value, c.subject) for c in extract_claims(
    ...     "I created `src/util.py` and updated README.md. All tests pass. I did not delete x.txt.")]
    [('created', 'src/util.py'), ('updated', 'README.md'), ('tests_pass', 'tests pass')]
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from earnest.effects.claimed import HEDGE
from earnest.effects.grounding import file_references
from earnest.effects.ledger import EffectLedger
from earnest.effects.shell import analyze_shell, normalize_head
from earnest.effects.test_counts import (
    CountClaim,
    TestCounts,
    claimed_counts,
    disagreement,
    parse_summary,
)
from earnest.effects.workspace import ArtifactStatus, Workspace


class ClaimKind(StrEnum):
    CREATED = "created"
    UPDATED = "updated"
    DELETED = "deleted"
    TESTS_PASS = "tests_pass"
    RAN = "ran"


@dataclass(frozen=True, slots=True)
class Claim:
    """One claim: its kind, its subject (a path, a command, or what was run), the sentence."""

    kind: ClaimKind
    subject: str
    sentence: str

    def render(self) -> str:
        label = {"tests_pass": "tests pass"}.get(self.kind.value, self.kind.value)
        return label if self.kind is ClaimKind.TESTS_PASS else f"{label} {self.subject}"


@dataclass(frozen=True, slots=True)
class ClaimCheck:
    claim: Claim
    verified: bool
    why: str


MAX_CLAIMS = 20

_SENTENCES = re.compile(r"(?<=[.!?])\s+|\n+")
_HEDGE = HEDGE  # one list of take-back words (earnest.effects.claimed)
_FILE_VERBS: tuple[tuple[re.Pattern[str], ClaimKind], ...] = (
    (re.compile(r"\b(created|wrote|written|added|generated|introduced|scaffolded|saved)\b", re.I),
     ClaimKind.CREATED),
    (re.compile(r"\b(updated|edited|fixed|modified|changed|refactored|rewrote|rewritten|patched|"
                r"adjusted|amended|replaced|extended|reformatted|formatted)\b", re.I),
     ClaimKind.UPDATED),
    (re.compile(r"\b(deleted|removed|erased)\b", re.I), ClaimKind.DELETED),
)  # fmt: skip
_RENAME = re.compile(r"\b(renamed|moved)\b", re.I)
_LIST_MORE = re.compile(r"(?:\s*,\s*(?:and\s+)?|\s+and\s+|\s*&\s*)[`'\"]?([\w./~@+-]+)")
_PASSIVE = re.compile(r"\b(has been|have been|was|were|is now|are now|got)\s*$", re.I)
_TESTS_PASS = (
    re.compile(
        r"\b(?:all\s+)?(?:the\s+)?(?:\d+\s+)?(?:unit\s+|integration\s+|new\s+|existing\s+)?"
        r"tests?\s+(?:now\s+)?(?:all\s+)?(?:pass(?:es|ed)?|are\s+(?:now\s+)?passing|"
        r"succeed(?:s|ed)?|(?:are|is)\s+(?:now\s+)?green)\b",
        re.I,
    ),
    re.compile(r"\btest\s+suite\s+(?:now\s+)?(?:pass(?:es|ed)?|is\s+(?:now\s+)?passing)\b", re.I),
    re.compile(r"\b\d+\s+(?:tests?\s+)?passed\b", re.I),
    # "86/86 pass", "4966/4966 ALL PASSED", "12 of 12 tests passing"
    re.compile(
        r"\b\d[\d,]*\s*(?:/|out of|of)\s*\d[\d,]*\s+(?:tests?\s+)?(?:are\s+)?(?:all\s+)?"
        r"(?:pass(?:es|ed|ing)?|green)\b",
        re.I,
    ),
)
_ZERO_FAILED = re.compile(
    r"\b(?:0|no|zero)\s+(?:tests?\s+)?(?:fail(?:ed|ing|ures?)|errors?)\b", re.I
)
_FAILURE_WORDS = re.compile(r"\b(fail(?:s|ed|ing|ures?)?|errors?|broken|skipped)\b", re.I)
_RAN_CMD = re.compile(r"\b(?:ran|executed|re-?ran|have run|'ve run)\s+(?:the\s+)?`([^`\n]+)`", re.I)
_RAN_KIND = re.compile(
    r"\b(?:ran|executed|re-?ran|have run|'ve run)\s+(?:the\s+)?(?:full\s+|whole\s+|entire\s+)?"
    r"(test suite|tests|unit tests|linters?|type[- ]?checker|type checks?|build)\b",
    re.I,
)
_RAN_WORD = re.compile(r"\b(?:ran|executed|re-?ran)\s+([A-Za-z][\w.+-]*)", re.I)
_RAN_KIND_MAP = {"test suite": "test", "tests": "test", "unit tests": "test", "linter": "lint",
                 "linters": "lint", "typechecker": "typecheck", "type-checker": "typecheck",
                 "type checker": "typecheck", "type check": "typecheck",
                 "type checks": "typecheck", "build": "build"}  # fmt: skip
_KNOWN_RAN_WORDS = frozenset(
    [
        "pytest",
        "tox",
        "nox",
        "ruff",
        "mypy",
        "pyright",
        "black",
        "isort",
        "flake8",
        "pylint",
        "cargo",
        "go",
        "npm",
        "yarn",
        "pnpm",
        "bun",
        "make",
        "just",
        "jest",
        "vitest",
        "tsc",
        "eslint",
        "prettier",
        "gradle",
        "mvn",
        "dotnet",
        "git",
        "pip",
        "uv",
        "poetry",
    ]
)


def _hedged(prefix: str) -> bool:
    return _HEDGE.search(prefix) is not None


def _first_path(text: str) -> str | None:
    refs = file_references(text, limit=3)
    return refs[0] if refs else None


def _listed_after(text: str, first: str) -> list[str]:
    """Paths listed right after ``first`` ("a.py, b.py and `c.py`")."""
    pos = text.find(first)
    if pos < 0:
        return []
    pos += len(first)
    found: list[str] = []
    while len(found) < 5:
        pos += 1 if text[pos : pos + 1] in {"`", "'", '"'} else 0
        m = _LIST_MORE.match(text, pos)
        refs = file_references(m.group(1), limit=1) if m else ()
        if m is None or not refs:
            break
        found.append(refs[0])
        pos = m.end()
    return found


def extract_claims(content: str) -> tuple[Claim, ...]:
    """The claims in a final message (at most :data:`MAX_CLAIMS`), in order."""
    claims: list[Claim] = []
    seen: set[tuple[ClaimKind, str]] = set()

    def add(kind: ClaimKind, subject: str, sentence: str) -> None:
        if (kind, subject) not in seen and len(claims) < MAX_CLAIMS:
            seen.add((kind, subject))
            claims.append(Claim(kind, subject, sentence.strip()))

    for sentence in _SENTENCES.split(content):
        if not sentence.strip():
            continue
        for m in _RENAME.finditer(sentence):
            if _hedged(sentence[: m.start()]):
                continue
            refs = file_references(sentence[m.end() :], limit=2)
            if len(refs) == 2:
                add(ClaimKind.DELETED, refs[0], sentence)
                add(ClaimKind.CREATED, refs[1], sentence)
        for pattern, kind in _FILE_VERBS:
            for m in pattern.finditer(sentence):
                prefix = sentence[: m.start()]
                if _hedged(prefix):
                    continue
                after = sentence[m.end() : m.end() + 120]
                # "added X to PATH" changes PATH: an update, not a creation
                path = _first_path(after)
                passive = _PASSIVE.search(prefix)
                if passive is not None:
                    path = _first_path(prefix[-160:]) or path
                if path is None:
                    continue
                if kind is ClaimKind.CREATED and re.search(
                    r"\b(to|in|into)\s+`?" + re.escape(path), after
                ):
                    kind_here = ClaimKind.UPDATED
                else:
                    kind_here = kind
                add(kind_here, path, sentence)
                if passive is None:
                    for more in _listed_after(after, path):  # "created a.py, b.py and c.py"
                        add(kind_here, more, sentence)
        for pattern in _TESTS_PASS:
            for m in pattern.finditer(sentence):
                if _hedged(sentence[: m.start()]):
                    continue
                # "3 passed, 1 failed" claims no success; "12 passed, 0 failed" does.
                if _FAILURE_WORDS.search(_ZERO_FAILED.sub("", sentence)):
                    continue
                add(ClaimKind.TESTS_PASS, "tests pass", sentence)
        for m in _RAN_CMD.finditer(sentence):
            if not _hedged(sentence[: m.start()]):
                add(ClaimKind.RAN, m.group(1).strip(), sentence)
        for m in _RAN_KIND.finditer(sentence):
            if not _hedged(sentence[: m.start()]):
                add(ClaimKind.RAN, m.group(1).lower(), sentence)
        for m in _RAN_WORD.finditer(sentence):
            word = m.group(1).rstrip(".").lower()
            if word in _KNOWN_RAN_WORDS and not _hedged(sentence[: m.start()]):
                add(ClaimKind.RAN, word, sentence)
    return tuple(claims)


# --------------------------------------------------------------------------------------------


class _Verifier:
    def __init__(self, ledger: EffectLedger, workspace: Workspace | None) -> None:
        self.ledger = ledger
        self.workspace = workspace if workspace is not None and workspace.resolvable else None
        self._touched: dict[str, str] | None = None

    def touched(self) -> dict[str, str]:
        """Resolved path → kind of the latest delta evidence naming it."""
        if self._touched is None:
            self._touched = {}
            if self.workspace is not None:
                for ref, ev in self.ledger.artifacts.items():
                    path = self.workspace.resolve(ref)
                    if path is not None:
                        self._touched[str(path)] = ev.kind
        return self._touched

    def locate(self, ref: str) -> str:
        """A bare name the agent mentioned (``utils.py``) → the touched path it means."""
        if "/" in ref or self.workspace is None or self.workspace.exists(ref):
            return ref
        matches = [p for p in self.ledger.artifacts if p == ref or p.endswith("/" + ref)]
        return matches[-1] if matches else ref

    def last_summary(self) -> TestCounts | None:
        """The counts of the newest shell call whose output holds a test-runner summary."""
        for call in reversed(self.ledger.shell_calls):
            counts = parse_summary(call.output)
            if counts is not None:
                return counts
        return None

    def check_counts(self, claim: Claim) -> ClaimCheck | None:
        """A tests-pass claim against the last run's printed summary (``None``: the summary
        settles nothing, e.g. no summary and no number claimed)."""
        claimed = claimed_counts(claim.sentence) or CountClaim(None, None, None, True)
        last = self.last_summary()
        numbered = claimed.passed is not None or claimed.total is not None
        if last is None and not numbered:
            return None
        why = disagreement(claimed, last)
        if why is not None:
            return ClaimCheck(claim, False, why)
        assert last is not None
        return ClaimCheck(claim, True, f"the last test run ({last.runner}) printed {last.render()}")

    def check(self, claim: Claim) -> ClaimCheck:
        if claim.kind is ClaimKind.TESTS_PASS:
            counted = self.check_counts(claim)
            if counted is not None:
                return counted
            if any(ev.kind in {"test", "check"} for ev in self.ledger.checks):
                return ClaimCheck(claim, True, "a test run succeeded")
            return ClaimCheck(claim, False, "no successful test run recorded")
        if claim.kind is ClaimKind.RAN:
            return self.check_ran(claim)
        if self.workspace is None:
            return ClaimCheck(claim, True, "workspace unresolvable: not checked")
        ref = self.locate(claim.subject)
        result = self.workspace.check(ref)
        if result.status is ArtifactStatus.OUTSIDE:
            return ClaimCheck(claim, False, "outside the workspace")
        pathless = bool(self.ledger.pathless_deltas)
        touched_kind = self.touched().get(result.path) if result.path is not None else None
        status = result.status
        if claim.kind is ClaimKind.DELETED:
            if status in {ArtifactStatus.DELETED, ArtifactStatus.UNKNOWN}:
                return ClaimCheck(claim, True, "gone since the run began")
            if status in {ArtifactStatus.EXISTS, ArtifactStatus.UNCHANGED,
                          ArtifactStatus.MODIFIED, ArtifactStatus.CREATED}:  # fmt: skip
                return ClaimCheck(claim, False, "still exists")
            if status is ArtifactStatus.ABSENT:
                return ClaimCheck(claim, False, "did not exist when the run began")
            if touched_kind == "delete" or pathless:
                return ClaimCheck(claim, True, "gone, and a recorded call removed it")
            return ClaimCheck(claim, False, "gone, but no recorded call removed it")
        if status in {ArtifactStatus.CREATED, ArtifactStatus.MODIFIED}:
            return ClaimCheck(claim, True, f"{status.value} during the run")
        if status is ArtifactStatus.UNCHANGED:
            return ClaimCheck(claim, False, "unchanged since the run began")
        if status is ArtifactStatus.EXISTS:
            if touched_kind is not None or pathless:
                return ClaimCheck(claim, True, "exists, and a recorded call wrote it")
            return ClaimCheck(claim, False, "exists, but no recorded call wrote it")
        return ClaimCheck(claim, False, "not found in the workspace")

    def check_ran(self, claim: Claim) -> ClaimCheck:
        subject = claim.subject
        kind = _RAN_KIND_MAP.get(subject)
        calls = self.ledger.shell_calls
        if kind is not None:
            for call in calls:
                kinds = analyze_shell(call.command).check_kinds
                if kind in kinds or (kind == "test" and "check" in kinds):
                    return ClaimCheck(claim, True, f"ran: {call.command[:80]}")
            if kind == "test" and self.ledger.checks:
                return ClaimCheck(claim, True, "a test tool ran")
            return ClaimCheck(claim, False, f"no {kind} command recorded")
        wanted = " ".join(subject.split())
        head = normalize_head(wanted.split(" ", 1)[0]) if wanted else ""
        head_re = re.compile(r"(?<![\w/.-])" + re.escape(head) + r"(?![\w-])") if head else None
        for call in calls:
            command = " ".join(call.command.split())
            if wanted in command or (" " not in wanted and head_re and head_re.search(command)):
                return ClaimCheck(claim, True, f"ran: {call.command[:80]}")
        return ClaimCheck(claim, False, "no matching shell call recorded")


def verify_claims(
    claims: tuple[Claim, ...], ledger: EffectLedger, workspace: Workspace | None
) -> tuple[ClaimCheck, ...]:
    """Check each claim against the ledger and the workspace."""
    verifier = _Verifier(ledger, workspace)
    return tuple(verifier.check(c) for c in claims)


__all__ = ["Claim", "ClaimCheck", "ClaimKind", "extract_claims", "verify_claims"]

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

from earnest.effects.actions import can_back, claimed_actions
from earnest.effects.claimed import HEDGE
from earnest.effects.grounding import file_references
from earnest.effects.ledger import EffectLedger
from earnest.effects.workspace import ArtifactStatus, Workspace

TYPE_CHECKING = False  # not typing's: importing typing costs every stop ~3 ms
if TYPE_CHECKING:
    from earnest.effects.test_counts import TestCounts
# The shell grammar (earnest.effects.shell) and the test-runner summaries
# (earnest.effects.test_counts) are imported where a claim needs them: claims are checked at
# every stop, and a stop whose message claims no test run and ran no shell command should not
# pay for either.


class ClaimKind(StrEnum):
    CREATED = "created"
    UPDATED = "updated"
    DELETED = "deleted"
    TESTS_PASS = "tests_pass"
    RAN = "ran"
    ACTION = "action"
    GIT = "git"


@dataclass(frozen=True, slots=True)
class Claim:
    """One claim: its kind, its subject (a path, a command, or what was run), the sentence."""

    kind: ClaimKind
    subject: str
    sentence: str

    def render(self) -> str:
        if self.kind is ClaimKind.TESTS_PASS:
            return "tests pass"
        if self.kind is ClaimKind.ACTION:
            return f"said it {self.subject} something"
        if self.kind is ClaimKind.GIT:
            return self.subject
        return f"{self.kind.value} {self.subject}"


@dataclass(frozen=True, slots=True)
class ClaimCheck:
    """One claim checked: whether it held up, and why (or why not)."""

    claim: Claim
    verified: bool
    why: str


MAX_CLAIMS = 20
_FILE_KINDS = frozenset({ClaimKind.CREATED, ClaimKind.UPDATED, ClaimKind.DELETED})

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
    # "committed", "pushed": checked against git commands and the repository's reflog (the
    # grammar is imported only when a message has the words: most stops never need it)
    git: tuple[str, ...] = ()
    folded = content.casefold().translate({0x131: "i"})  # as claim_words folds it
    if "committed" in folded or "pushed" in folded:
        from earnest.effects.git_claims import git_claim_sentence, git_claims

        git = git_claims(content)
        for verb in git:
            add(ClaimKind.GIT, verb, git_claim_sentence(content, verb))
    # "I've sent you a certificate": an action with no file to check (file claims are above)
    with_files = {c.sentence for c in claims if c.kind in _FILE_KINDS}
    for action in claimed_actions(content):
        if action.sentence not in with_files and action.verb not in git:
            add(ClaimKind.ACTION, action.verb, action.sentence)
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

    def last_test_run(self) -> _TestRun | None:
        """The newest test run: the last test command of the shell calls, with its own outcome
        (:meth:`EffectLedger.last_check_run`: the runner's summary decides, a hidden status
        with no summary is ``unknown``); a newer shell call that printed a test-runner summary
        (``./run-tests.sh``), judged by that summary; or a test tool's recorded success."""
        from earnest.effects.test_counts import parse_summary

        ledger = self.ledger
        found: _TestRun | None = None
        run = ledger.last_check_run()
        if run is not None:
            found = _TestRun(run.seq, f"`{_short(run.command)}`", run.outcome, run.counts)
        for call in reversed(ledger.shell_calls):
            if found is not None and call.seq <= found.seq:
                break
            counts = parse_summary(call.output)
            if counts is not None:
                outcome = "success" if counts.all_passed else "failure"
                found = _TestRun(call.seq, f"`{_short(call.command)}`", outcome, counts)
                break
        for kind in ("test", "check"):
            at = ledger.checked_at.get(kind)
            if at is not None and (found is None or at > found.seq):
                found = _TestRun(at, "a test tool", "success", None)
        return found

    def check_tests_pass(self, claim: Claim) -> ClaimCheck:
        """*Tests pass*: the newest test run is known to have succeeded, agrees with the
        counts the claim names, and ran after the last change a test could depend on
        (:mod:`earnest.effects.freshness`)."""
        from earnest.effects.test_counts import CountClaim, claimed_counts, disagreement

        claimed = claimed_counts(claim.sentence) or CountClaim(None, None, None, True)
        numbered = claimed.passed is not None or claimed.total is not None
        run = self.last_test_run()
        if run is None:
            if numbered:
                return ClaimCheck(claim, False, disagreement(claimed, None) or "")
            return ClaimCheck(claim, False, "no successful test run recorded")
        if run.counts is not None:
            why = disagreement(claimed, run.counts)
            if why is not None:
                return ClaimCheck(claim, False, why)
            held = f"the last test run ({run.counts.runner}) printed {run.counts.render()}"
        elif run.outcome == "failure":
            return ClaimCheck(claim, False, f"the last test run ({run.what}) failed")
        elif run.outcome != "success":
            return ClaimCheck(
                claim,
                False,
                f"the last test run ({run.what}) printed no summary and its exit status was "
                "hidden from the shell, so whether it passed is unknown",
            )
        elif numbered:
            return ClaimCheck(claim, False, disagreement(claimed, None) or "")
        else:
            held = "a test run succeeded"
        later = self.ledger.changes_after(run.seq)
        if later:
            shown = ", ".join(later[:3]) + (f" and {len(later) - 3} more" if len(later) > 3 else "")
            return ClaimCheck(
                claim,
                False,
                f"stale: the last test run ({run.what}) came before the change to {shown}; "
                "run the tests again on the final state",
            )
        return ClaimCheck(claim, True, held)

    def check(self, claim: Claim) -> ClaimCheck:
        if claim.kind is ClaimKind.TESTS_PASS:
            return self.check_tests_pass(claim)
        if claim.kind is ClaimKind.RAN:
            return self.check_ran(claim)
        if claim.kind is ClaimKind.ACTION:
            return self.check_action(claim)
        if claim.kind is ClaimKind.GIT:
            return self.check_git(claim)
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

    def check_action(self, claim: Claim) -> ClaimCheck:
        """A claimed action needs a state-changing call in this conversation that can have
        done it (:mod:`earnest.effects.actions`)."""
        ledger = self.ledger
        if ledger.state_changes:
            return ClaimCheck(claim, True, "a state-changing call in this run")
        for tool in ledger.action_tools:
            if can_back(claim.subject, tool):
                return ClaimCheck(claim, True, f"{tool} ran in this run")
        for tool in ledger.earlier_action_tools:
            if can_back(claim.subject, tool):
                return ClaimCheck(claim, True, f"{tool} ran in an earlier turn")
        if ledger.earlier_changes:
            return ClaimCheck(claim, True, "state-changing calls in earlier turns")
        return ClaimCheck(
            claim, False, f"no call in this conversation could have {claim.subject} anything"
        )

    def check_git(self, claim: Claim) -> ClaimCheck:
        """*Committed* / *pushed*: a ``git commit`` / ``git push`` that did not fail (or a tool
        named for it) in this run, and, when the workspace root is a git repository and the
        run's start is known, a commit / push in its reflog since then
        (:mod:`earnest.effects.git_claims`). Outside a coding run (no repository, or with
        no workspace to look at no shell command) and with no git command, the claim is a
        claimed action like any other."""
        from earnest.effects.git_claims import (
            VERB_SUBCOMMAND,
            git_dir,
            git_subcommand,
            reflog_since,
        )

        verb = claim.subject
        sub = VERB_SUBCOMMAND[verb]
        ledger = self.ledger
        ran = [
            o
            for call in ledger.shell_calls
            for o in call.outcomes
            if git_subcommand(o.segment) == sub
        ]
        tools = [t for t in ledger.action_tools if sub in t.lower()]
        root = self.workspace.root if self.workspace is not None else None
        repository = git_dir(root) is not None
        # A coding run: a repository at the root, or (no workspace to look at, as in a replay)
        # shell commands. Anything else ("I've pushed your order") is a claimed action.
        coding = repository or (self.workspace is None and bool(ledger.shell_calls))
        if not ran and not tools:
            if not coding:
                return self.check_action(Claim(ClaimKind.ACTION, verb, claim.sentence))
            return ClaimCheck(claim, False, f"no `git {sub}` ran in this run")
        baseline = self.workspace.baseline if self.workspace is not None else None
        log = reflog_since(root, baseline.started_ns) if baseline is not None else None
        if log is not None:
            if verb == "committed":
                if log.commits:
                    return ClaimCheck(claim, True, f"the reflog shows {len(log.commits)} "
                                      "commit(s) since the run began")  # fmt: skip
                return ClaimCheck(
                    claim,
                    False,
                    f"`git {sub}` ran, but the repository's reflog shows no commit since the "
                    "run began",
                )
            if log.pushes:
                return ClaimCheck(claim, True, f"the reflog shows a push to {log.pushes[0]}")
            if log.remote_logs:
                return ClaimCheck(
                    claim,
                    False,
                    f"`git {sub}` ran, but the repository's reflog shows no push since the "
                    "run began",
                )
        if tools or any(o.succeeded for o in ran):
            return ClaimCheck(claim, True, f"`git {sub}` ran and succeeded")
        if all(o.outcome == "failure" for o in ran):
            return ClaimCheck(claim, False, f"`git {sub}` failed")
        return ClaimCheck(
            claim,
            False,
            f"`git {sub}`'s exit status was hidden from the shell, so whether it worked is unknown",
        )

    def check_ran(self, claim: Claim) -> ClaimCheck:
        from earnest.effects.shell import analyze_shell, normalize_head

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


@dataclass(frozen=True, slots=True)
class _TestRun:
    """The newest test run, as a tests-pass claim needs it."""

    seq: int
    what: str
    outcome: str
    counts: TestCounts | None


def _short(command: str, limit: int = 60) -> str:
    flat = " ".join(command.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def verify_claims(
    claims: tuple[Claim, ...], ledger: EffectLedger, workspace: Workspace | None
) -> tuple[ClaimCheck, ...]:
    """Check each claim against the ledger and the workspace."""
    verifier = _Verifier(ledger, workspace)
    return tuple(verifier.check(c) for c in claims)


__all__ = ["Claim", "ClaimCheck", "ClaimKind", "extract_claims", "verify_claims"]

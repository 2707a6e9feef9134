"""The evidence scenarios every real CLI plays, with the default config, through one helper.

Each CLI's test file makes a :class:`Player` (its fake model's API, its shell tool, how it
runs the CLI, the stop event its hook answers, the transcript ``replay-gate`` reads) and lists
the scenarios it plays; :func:`play` runs one and asserts the same things for every CLI.

- **j, a failing test run piped through tail**: the agent makes a change that fixes nothing,
  runs ``python3 -m unittest 2>&1 | tail -5`` (red, exit status 0 through the pipe) and says
  "all tests pass": blocked (``unverified-claim``, the runner's summary decides); it then fixes
  the bug, runs the tests again (green) and says so: allowed.
- **k, an edit after the test run**: the agent fixes the bug, runs the tests (green), changes
  ``app.py`` again and says "all tests pass": blocked (the run is stale); it runs the tests
  again and says so: allowed.
- **l, a failing test run masked by ``|| true``** (issue "said versus did", item 1): the
  agent runs ``python3 -m unittest 2>&1 || true`` (red, the line's status 0) and says "all
  tests pass": blocked, the reason naming the failing run; fixed and rerun: allowed.
- **m, "committed and pushed" with no commit** (item 3): the agent fixes the bug and says it
  committed and pushed the fix: blocked, both claims named; it commits (a real ``git
  commit``, in the repository's reflog): blocked again, the push still missing; it pushes to
  the project's remote (a bare repository beside it): allowed.

The test runs and git commands are real: the CLI runs them in the sandbox's project.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from fakes import Call, FakeModel, Turn, Turns
from harness import CliRun, Sandbox

TEST_APP = """import unittest

from app import total


class TotalTest(unittest.TestCase):
    def test_empty(self):
        self.assertEqual(total([]), 0)

    def test_pair(self):
        self.assertEqual(total([1, 2]), 3)

    def test_is_a_number(self):
        self.assertIsInstance(total([1]), int)


if __name__ == "__main__":
    unittest.main()
"""

RUN_TESTS = "python3 -m unittest 2>&1 | tail -5"
RUN_TESTS_MASKED = "python3 -m unittest 2>&1 || true"
COMMENT = "sed -i '1i # The total of a list of numbers.' app.py"
FIX = "sed -i 's/sum(xs) + 1/sum(xs)/' app.py"
REFACTOR = "sed -i 's/return sum(xs)$/return sum(list(xs))/' app.py"
COMMIT = "git commit -qam 'Fix total()'"
PUSH = "git push -q origin HEAD:main"
CLAIM = "Done: all tests pass."
GIT_CLAIM = "Fixed total() in app.py, committed the fix and pushed it."
PROMPT = "fix the bug in app.py and make sure the tests pass"
GIT_PROMPT = "fix the bug in app.py, then commit and push the fix"
FAILING_RUN = "the last test run (unittest) printed 1/3 passed, 2 failed"
OLD = "2020-01-01T00:00:00Z"  # the setup's git dates: only the agent's commits are new


@dataclass(frozen=True)
class Player:
    """How one CLI plays a scenario."""

    api: str  # the fake model's wire protocol (fakes.FakeModel)
    event: str  # the hook event a stop is (Stop, AfterAgent)
    shell: Callable[[str], Call]  # the CLI's shell tool call for a command
    run: Callable[[FakeModel, str], CliRun]  # run the CLI headless on a prompt
    transcript: Callable[[], Path] | None = None  # what replay-gate reads (None: not checked)


@dataclass(frozen=True)
class Scenario:
    """One scenario: its turns, the decisions at each stop, what each block's reason says,
    the project afterwards, and how many claims ``replay-gate`` downgrades (None: not
    checked)."""

    name: str
    turns: Callable[[Callable[[str], Call]], list[Turn]]
    decisions: tuple[str, ...]
    reasons: tuple[tuple[str, ...], ...]  # for each block: texts its reason must hold
    app_holds: str
    prompt: str = PROMPT
    setup: Callable[[Sandbox], None] = lambda sb: _tests_setup(sb)
    after: Callable[[Sandbox], None] = lambda sb: None
    downgraded: int | None = None


def _tests_setup(sb: Sandbox) -> None:
    sb.write("test_app.py", TEST_APP)


def _git(sb: Sandbox, *args: str) -> str:
    done = subprocess.run(
        ["git", *args],
        cwd=sb.project,
        capture_output=True,
        text=True,
        check=True,
        env={**sb.env, "GIT_COMMITTER_DATE": OLD, "GIT_AUTHOR_DATE": OLD},
    )
    return done.stdout


def _git_setup(sb: Sandbox) -> None:
    """The project gets an identity, and a remote (a bare repository beside it) that has its
    first commit; both dated long ago in the reflog, so only what the agent does is new."""
    remote = sb.root / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True, capture_output=True)
    _git(sb, "config", "user.email", "agent@example.invalid")
    _git(sb, "config", "user.name", "agent")
    _git(sb, "commit", "-q", "--amend", "--no-edit")
    _git(sb, "remote", "add", "origin", str(remote))
    _git(sb, "push", "-q", "origin", "HEAD:main")


def _git_after(sb: Sandbox) -> None:
    assert _git(sb, "log", "-1", "--format=%s").strip() == "Fix total()"
    pushed = subprocess.run(
        ["git", "--git-dir", str(sb.root / "remote.git"), "log", "-1", "--format=%s", "main"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert pushed.stdout.strip() == "Fix total()"


J = Scenario(
    "j-failing-run-piped-through-tail",
    lambda shell: [
        Turn(calls=(shell(COMMENT),)),
        Turn(calls=(shell(RUN_TESTS),)),
        Turn(text=CLAIM),
        Turn(calls=(shell(FIX),)),
        Turn(calls=(shell(RUN_TESTS),)),
        Turn(text="Fixed total() in app.py: all 3 tests pass now."),
    ],
    ("block", "allow"),
    (("unverified-claim: tests pass", FAILING_RUN),),
    "return sum(xs)\n",
    downgraded=1,
)
K = Scenario(
    "k-edit-after-the-green-run",
    lambda shell: [
        Turn(calls=(shell(FIX),)),
        Turn(calls=(shell(RUN_TESTS),)),
        Turn(calls=(shell(REFACTOR),)),
        Turn(text=CLAIM),
        Turn(calls=(shell(RUN_TESTS),)),
        Turn(text="Fixed total() in app.py and ran the tests again: all 3 pass."),
    ],
    ("block", "allow"),
    (("unverified-claim: tests pass (stale", "app.py"),),
    "return sum(list(xs))",
    downgraded=1,
)
L = Scenario(
    "l-failing-run-masked-by-or-true",
    lambda shell: [
        Turn(calls=(shell(COMMENT),)),
        Turn(calls=(shell(RUN_TESTS_MASKED),)),
        Turn(text=CLAIM),
        Turn(calls=(shell(FIX),)),
        Turn(calls=(shell(RUN_TESTS_MASKED),)),
        Turn(text="Fixed total() in app.py: all 3 tests pass now."),
    ],
    ("block", "allow"),
    (("unverified-claim: tests pass", FAILING_RUN),),
    "return sum(xs)\n",
    downgraded=1,
)
M = Scenario(
    "m-committed-and-pushed-before-doing-either",
    lambda shell: [
        Turn(calls=(shell(FIX),)),
        Turn(text=GIT_CLAIM),
        Turn(calls=(shell(COMMIT),)),
        Turn(text=GIT_CLAIM),
        Turn(calls=(shell(PUSH),)),
        Turn(text=GIT_CLAIM),
    ],
    ("block", "block", "allow"),
    (
        ("committed (no `git commit` ran in this run)", "pushed (no `git push` ran in this run)"),
        ("unverified-claim: pushed (no `git push` ran in this run)",),
    ),
    "return sum(xs)\n",
    prompt=GIT_PROMPT,
    setup=_git_setup,
    after=_git_after,
    downgraded=2,  # replay-gate has no repository: the git commands decide, in order
)

N = Scenario(
    "n-commit-refused-by-the-sandbox",
    lambda shell: [
        Turn(calls=(shell(FIX),)),
        Turn(calls=(shell(COMMIT),)),
        Turn(text="Fixed total() in app.py and committed the fix."),
        Turn(text="Fixed total() in app.py, but I could not commit it: .git is read-only here."),
    ],
    ("block", "allow"),
    (("unverified-claim: committed (`git commit` failed)",),),
    "return sum(xs)\n",
    prompt=GIT_PROMPT,
    setup=_git_setup,
    downgraded=1,
)
"""n (Codex: its ``workspace-write`` sandbox keeps ``.git`` read-only): the agent's real
``git commit`` fails ("Read-only file system"); "committed the fix" is blocked, naming the
failed commit; the honest "could not commit" is allowed."""


def play(scenario: Scenario, sb: Sandbox, player: Player) -> None:
    """Run ``scenario`` through the CLI ``player`` drives; assert what every CLI must show."""
    scenario.setup(sb)
    turns = Turns(scenario.turns(player.shell))
    with FakeModel(player.api, turns) as model:
        run = player.run(model, scenario.prompt)
    assert run.returncode == 0, run.stderr[-2000:]
    blocks = [s.reason for s in sb.stops(player.event) if s.decision == "block"]
    decisions = sb.decisions(player.event)
    assert decisions == list(scenario.decisions), f"{decisions} {blocks}\n{run.stdout[-3000:]}"
    for reason, wanted in zip(blocks, scenario.reasons, strict=True):
        for text in wanted:
            assert text in reason, reason
        # The CLI fed the reason back to the model.
        assert model.sent_back(reason[:40]), reason
    assert turns.overflow == 0
    assert scenario.app_holds in sb.app()
    scenario.after(sb)
    if player.transcript is not None and scenario.downgraded is not None:
        assert sb.replay(player.transcript())["downgraded"] == scenario.downgraded

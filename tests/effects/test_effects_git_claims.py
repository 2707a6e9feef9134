"""A claim "committed" / "pushed" is checked against git commands and the repository's reflog.

Real git repositories (``git`` on PATH): the agent's commands are run for real, then recorded
in the gate as a coding agent's shell calls.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from earnest.effects import EffectGate, EffectGateConfig, EvaluationDecision, EvaluationResult
from earnest.effects.claims import ClaimKind, extract_claims
from earnest.effects.git_claims import git_subcommand, reflog_since

COMPLETE = EvaluationDecision.COMPLETE
RETRY = EvaluationDecision.RETRY
IDENTITY = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.invalid",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.invalid",
}
FIX = "sed -i 's/+ 1//' app.py"
CLAIM = "Fixed total() in app.py and committed the fix."


def sh(repo: Path, command: str) -> dict[str, Any]:
    """Run ``command`` in ``repo`` as an agent's shell tool would; its tool result."""
    done = subprocess.run(
        ["bash", "-c", command],
        cwd=repo,
        capture_output=True,
        text=True,
        env={**os.environ, **IDENTITY, "GIT_CONFIG_GLOBAL": "/dev/null"},
    )
    return {
        "tool_name": "Bash",
        "args": {"command": command},
        "output": done.stdout + done.stderr,
        "success": done.returncode == 0,
    }


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "app.py").write_text("def total(xs):\n    return sum(xs) + 1\n", encoding="utf-8")
    # Dated long ago (the reflog records the committer date): only later commits are new.
    old = "GIT_COMMITTER_DATE='2020-01-01T00:00:00Z' "
    for command in ("git init -q", "git add .", old + "git commit -qm start"):
        assert sh(root, command)["success"], command
    return root


def gate(workspace: Path) -> EffectGate:
    """A gate whose run begins now (a baseline: the reflog is read since then)."""
    g = EffectGate(EffectGateConfig(enabled=True), workspace=workspace, env={})
    g.reset(baseline=True)
    return g


def judge(
    g: EffectGate, content: str, request: str = "fix total() in app.py and commit the fix"
) -> EvaluationResult:
    done = EvaluationResult(EvaluationDecision.COMPLETE, 0.9, "agent says done")
    return g.apply(done, content=content, request=request)


def unverified(out: EvaluationResult) -> list[str]:
    return [c["why"] for c in out.metadata["effect_gate"].get("unverified_claims", [])]


def test_committed_with_no_commit_is_blocked_then_the_commit_backs_it(repo: Path) -> None:
    g = gate(repo)
    g.record([sh(repo, FIX)])
    out = judge(g, CLAIM)
    assert out.decision is RETRY
    assert out.reason == "unverified-claim: committed (no `git commit` ran in this run)"
    g.record([sh(repo, "git commit -qam 'Fix total()'")])
    out = judge(g, CLAIM)
    assert out.decision is COMPLETE, out.reason


def test_a_masked_commit_that_made_nothing_is_blocked(repo: Path) -> None:
    # Nothing staged: git commit fails, `|| true` hides it; the reflog shows no new commit.
    g = gate(repo)
    g.record([sh(repo, FIX), sh(repo, "git commit -qm 'Fix total()' || true")])
    out = judge(g, CLAIM)
    assert out.decision is RETRY
    assert "`git commit` ran, but the repository's reflog shows no commit since the run began" in (
        out.reason
    )


def test_a_failed_commit_is_blocked_when_the_reflog_cannot_be_read(tmp_path: Path) -> None:
    # No repository at the workspace root: the command's own outcome decides.
    g = gate(tmp_path)
    g.record([{"tool_name": "Bash", "args": {"command": "git commit -qam fix"}, "success": False}])
    g.record([{"tool_name": "Bash", "args": {"command": "sed -i s/a/b/ app.py"}, "success": True}])
    assert unverified(judge(g, "Committed the fix.")) == ["`git commit` failed"]


def test_pushed_needs_a_push_in_the_reflog(repo: Path, tmp_path: Path) -> None:
    remote = tmp_path / "remote.git"
    assert sh(tmp_path, f"git init -q --bare {remote}")["success"]
    assert sh(repo, f"git remote add origin {remote}")["success"]
    assert sh(repo, "GIT_COMMITTER_DATE='2020-01-01T00:00:00Z' git push -q origin HEAD:main")[
        "success"
    ]
    assert sh(repo, "git fetch -q origin")["success"]
    g = gate(repo)
    g.record([sh(repo, FIX), sh(repo, "git commit -qam 'Fix total()'")])
    claim = "Fixed total() in app.py, committed the fix and pushed it."
    out = judge(g, claim)
    assert out.decision is RETRY
    assert out.reason == "unverified-claim: pushed (no `git push` ran in this run)"
    g.record([sh(repo, "git push -q origin HEAD:main")])
    assert judge(g, claim).decision is COMPLETE


def test_pushed_with_no_repository_and_no_git_is_a_claimed_action(tmp_path: Path) -> None:
    # Not a coding workspace: "pushed" is backed by a state-changing call, as before.
    g = gate(tmp_path)
    g.record([{"tool_name": "push_order_update", "args": {"id": 7}, "success": True}])
    out = judge(g, "I've pushed the update to your order.", "Send my order's new address on.")
    assert [c.kind for c in extract_claims("I've pushed the update.")] == [ClaimKind.GIT]
    assert out.decision is COMPLETE, out.reason


def test_a_symlinked_git_folder_is_not_read(repo: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / ".git").symlink_to(repo / ".git")
    assert reflog_since(repo, 0) is not None
    assert reflog_since(elsewhere, 0) is None


@pytest.mark.parametrize(
    ("command", "sub"),
    [
        ("git commit -qm fix", "commit"),
        ("git -C repo -c user.name=x commit -m y", "commit"),
        ("GIT_AUTHOR_NAME=x git push origin main", "push"),
        ("/usr/bin/git --no-pager push", "push"),
        ("gitk --all", ""),
        ("echo git commit", ""),
    ],
)
def test_git_subcommand(command: str, sub: str) -> None:
    assert git_subcommand(command) == sub


def test_with_no_workspace_a_coding_run_still_needs_its_git_command() -> None:
    # replay-gate has no workspace: a run of shell commands is a coding run, and the commands
    # decide in order (claim before the commit: unverified; after it: backed).
    g = EffectGate(EffectGateConfig(enabled=True), env={})
    g.reset()
    g.record([{"tool_name": "Bash", "args": {"command": FIX}, "success": True}])
    assert unverified(judge(g, "Committed the fix.")) == ["no `git commit` ran in this run"]
    g.record([{"tool_name": "Bash", "args": {"command": "git commit -qam fix"}, "success": True}])
    assert judge(g, "Committed the fix.").decision is COMPLETE

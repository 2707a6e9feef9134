"""Did the agent really commit or push? Its claim, its git commands, and git's own reflog.

:func:`git_claims` finds a claim that something was ``committed`` / ``pushed``: the verb in a
sentence, in the past tense, with no negation or intention before it (the gate's hedge
words, :data:`earnest.effects.claimed.HEDGE`); "committed to" (a promise) and "pushed back"
(an objection) are not git. Act mode checks it against ``did.git``; the effect gate (stop
hooks, ``replay-gate``) against what the run did:

- **the commands**: a ``git commit`` / ``git push`` simple command (:func:`git_subcommand`
  reads it out of each command of a line, global options such as ``-C DIR`` skipped) that did
  not fail, or a tool whose name carries ``commit`` / ``push``;
- **the repository**, when the workspace root holds a plain ``.git`` folder and the run's start
  is known: :func:`reflog_since` reads the reflog git keeps itself — ``logs/HEAD`` entries
  whose message starts with ``commit`` (``commit:``, ``commit (amend):``, ``commit (merge):``)
  and ``logs/refs/remotes/*/*`` entries ``update by push`` — dated at or after the start. A
  ``git commit -m x || true`` with nothing staged ran, but made no commit.

The repository is untrusted: only a ``.git`` that is a folder (not a symlink, not a
``gitdir:`` file pointing elsewhere) is read, each log file opened without following a
symlink and only if it is a regular file, and at most :data:`TAIL_BYTES` of its end.

Example:
    >>> git_claims("Fixed the bug and committed it. I pushed the branch to origin.")
    ('committed', 'pushed')
    >>> git_claims("I have not pushed anything; I committed to running the suite first.")
    ()
    >>> git_subcommand("git -C repo -c user.name=x commit -qm 'fix'")
    'commit'
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

CLAIM = re.compile(r"\b(committed|pushed)\b(?!\s+(?:to|back)\b)", re.IGNORECASE)
_SENTENCES = re.compile(r"(?<=[.!?;])\s+|\n+")
TAIL_BYTES = 256 * 1024
"""How much of the end of one reflog file is read (a reflog line is ~150 bytes)."""
MAX_REMOTE_LOGS = 64
VERB_SUBCOMMAND = {"committed": "commit", "pushed": "push"}


def git_claims(text: str) -> tuple[str, ...]:
    """The git actions ``text`` claims done, in the order ``committed``, ``pushed``."""
    from earnest.effects.claimed import HEDGE

    seen: set[str] = set()
    for sentence in _SENTENCES.split(text or ""):
        for match in CLAIM.finditer(sentence):
            if not HEDGE.search(sentence[: match.start()]):
                seen.add(match.group(1).lower())
    return tuple(v for v in ("committed", "pushed") if v in seen)


def git_claim_sentence(text: str, verb: str) -> str:
    """The first unhedged sentence of ``text`` that claims ``verb`` (``""`` if none)."""
    from earnest.effects.claimed import HEDGE

    for sentence in _SENTENCES.split(text or ""):
        for match in CLAIM.finditer(sentence):
            if match.group(1).lower() == verb and not HEDGE.search(sentence[: match.start()]):
                return sentence.strip()
    return ""


def git_subcommand(command: str) -> str:
    """The subcommand of one simple ``git`` command (``""`` when it is not git)."""
    from earnest.effects.shell_vocab import GIT_GLOBAL_VALUE  # the shell reading's own list

    words = command.split()
    k = 0
    while k < len(words) and "=" in words[k] and not words[k].startswith("-"):
        k += 1  # FOO=bar git ...
    if k >= len(words) or os.path.basename(words[k]) != "git":
        return ""
    k += 1
    while k < len(words) and words[k].startswith("-"):
        k += 2 if words[k] in GIT_GLOBAL_VALUE else 1
    return words[k].strip("'\"") if k < len(words) else ""


@dataclass(frozen=True, slots=True)
class Reflog:
    """What the repository's reflog recorded since a moment.

    ``commits``: the messages of new ``HEAD`` entries that made a commit; ``pushes``: the
    remote-tracking refs a push updated; ``remote_logs``: whether any remote-tracking ref has a
    reflog at all (without one, a push to a URL leaves no trace here).
    """

    commits: tuple[str, ...]
    pushes: tuple[str, ...]
    remote_logs: bool


def git_dir(root: Path | None) -> Path | None:
    """``root/.git`` when it is a plain folder (never a symlink or a ``gitdir:`` file)."""
    if root is None:
        return None
    path = root / ".git"
    try:
        info = os.lstat(path)
    except OSError:
        return None
    return path if stat.S_ISDIR(info.st_mode) else None


def _tail(path: Path) -> list[str]:
    """The last lines of a regular file (not followed through a symlink), bounded."""
    try:
        fd = os.open(
            path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
        )
    except OSError:
        return []
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return []
        start = max(0, info.st_size - TAIL_BYTES)
        os.lseek(fd, start, os.SEEK_SET)
        data = os.read(fd, TAIL_BYTES)
    except OSError:
        return []
    finally:
        os.close(fd)
    lines = data.decode("utf-8", "replace").splitlines()
    return lines[1:] if start > 0 else lines  # the first may be cut


_ENTRY = re.compile(r"^[0-9a-f]{40,64} [0-9a-f]{40,64} .*> (\d+) [+-]\d{4}\t(.*)$")


def _since(lines: list[str], started_s: int) -> list[str]:
    out = []
    for line in lines:
        m = _ENTRY.match(line)
        if m is not None and int(m.group(1)) >= started_s:
            out.append(m.group(2))
    return out


def reflog_since(root: Path | None, started_ns: int) -> Reflog | None:
    """The commits and pushes the reflog of ``root/.git`` records since ``started_ns``
    (``None`` when ``root`` holds no plain ``.git`` folder)."""
    found = git_dir(root)
    if found is None:
        return None
    started_s = started_ns // 1_000_000_000
    logs = found / "logs"
    commits = tuple(m for m in _since(_tail(logs / "HEAD"), started_s) if m.startswith("commit"))
    pushes: list[str] = []
    remote_logs = False
    remotes = logs / "refs" / "remotes"
    seen = 0
    if remotes.is_dir() and not remotes.is_symlink():
        for dirpath, dirnames, filenames in os.walk(remotes):
            dirnames[:] = [d for d in dirnames if not os.path.islink(os.path.join(dirpath, d))]
            for name in filenames:
                seen += 1
                if seen > MAX_REMOTE_LOGS:
                    break
                remote_logs = True
                path = Path(dirpath) / name
                if any(m.startswith("update by push") for m in _since(_tail(path), started_s)):
                    pushes.append(str(path.relative_to(remotes)))
    return Reflog(commits, tuple(pushes), remote_logs)


__all__ = [
    "CLAIM",
    "VERB_SUBCOMMAND",
    "Reflog",
    "git_claim_sentence",
    "git_claims",
    "git_dir",
    "git_subcommand",
    "reflog_since",
]

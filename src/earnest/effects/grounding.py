"""Is a no-mutation answer grounded? The lenient v1 check (ADR-010 decision 3).

An answer is grounded when the run has read evidence (a successful read, search, listing,
web fetch, sub-agent, read-only shell command or unknown tool), or when the answer names a
file that exists inside the workspace; a direct answer given with no tool calls at all passes.
File references are found by :func:`file_references` and checked with a stat through
:class:`~earnest.effects.workspace.Workspace`, so a reference that leaves the workspace
(``../../etc/passwd``, a symlink out) never grounds anything.

Example:
    >>> from earnest.effects.ledger import EffectLedger
    >>> GroundedClaimChecker().check("Hi! 2 + 2 = 4.", EffectLedger(), None).basis
    'direct_answer_no_tools'
    >>> file_references("See `src/app.py:12` and README.md, not https://x.io/a.html.")
    ('src/app.py', 'README.md')
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from earnest.effects.ledger import EffectLedger
from earnest.effects.workspace import Workspace

_TOKEN_SPLIT = re.compile(r"[\s`'\"()\[\]{}<>,;|*]+")
_PATHISH = re.compile(r"^[\w.~/@+-]+$")
_EXTENSION = re.compile(r"\w[\w-]*\.[A-Za-z][A-Za-z0-9]{0,9}$")
_LINE_SUFFIX = re.compile(r"(?::\d+){1,2}$")
_NOT_FILES = frozenset({"e.g", "i.e", "a.k.a", "n.b", "cf.", "vs."})
_BARE_NAMES = frozenset(
    {"Makefile", "Dockerfile", "Justfile", "justfile", "Procfile", "Gemfile", "Rakefile",
     "LICENSE", "README", "Vagrantfile", "Containerfile", "CODEOWNERS"}
)  # fmt: skip


def file_references(content: str, limit: int = 20) -> tuple[str, ...]:
    """Path-like tokens in ``content``: with a ``/`` or a file extension, URLs excluded."""
    found: dict[str, None] = {}
    for raw in _TOKEN_SPLIT.split(content):
        token = raw.rstrip(".:!?")
        if not token or "://" in raw or token.startswith(("http:", "https:", "www.")):
            continue
        token = _LINE_SUFFIX.sub("", token)
        if (
            not _PATHISH.match(token)
            or set(token) <= {".", "/", "~"}
            or token.lower() in _NOT_FILES
        ):
            continue
        base = token.rsplit("/", 1)[-1]
        if not (_EXTENSION.search(base) or base in _BARE_NAMES or ("/" in token and base)):
            continue
        found.setdefault(token, None)
        if len(found) >= limit:
            break
    return tuple(found)


@dataclass(frozen=True, slots=True)
class GroundingResult:
    """``basis`` is why the answer is grounded, or None when it is not."""

    basis: str | None
    references: tuple[str, ...] = ()

    @property
    def grounded(self) -> bool:
        return self.basis is not None


class GroundedClaimChecker:
    """The lenient v1 grounded-claim check."""

    def __init__(self, max_references: int = 20) -> None:
        self.max_references = max_references

    def check(
        self, content: str, ledger: EffectLedger, workspace: Workspace | None
    ) -> GroundingResult:
        if ledger.attempted == 0:
            return GroundingResult("direct_answer_no_tools")
        if ledger.has_read_evidence():
            return GroundingResult("read_evidence")
        if workspace is not None and workspace.resolvable and content:
            refs = tuple(
                ref
                for ref in file_references(content, self.max_references)
                if workspace.exists(ref)
            )
            if refs:
                return GroundingResult("file_references", refs)
        return GroundingResult(None)

    def is_grounded(self, content: str, ledger: EffectLedger, workspace: Workspace | None) -> bool:
        return self.check(content, ledger, workspace).grounded


__all__ = ["GroundedClaimChecker", "GroundingResult", "file_references"]

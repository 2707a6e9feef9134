"""Does a reply claim it committed or pushed? Checked against ``did.git`` in act mode.

The claim grammar is the effect gate's own (:mod:`earnest.effects.git_claims`): one grammar
for act mode, the stop hooks and ``replay-gate``.

Example:
    >>> git_claims("Fixed the bug and committed it. I pushed the branch to origin.")
    ('committed', 'pushed')
    >>> git_claims("I have not pushed anything; I committed to running the suite first.")
    ()
"""

from __future__ import annotations

from earnest.effects.git_claims import git_claims

__all__ = ["git_claims"]

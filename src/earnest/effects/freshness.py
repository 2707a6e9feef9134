"""Fresh evidence: a check verifies the workspace as it was when the check ran.

A test run says something about the files as they were when it ran. A later change to a file
the run could depend on makes that run **stale**: "all tests pass" after *edit → tests green →
edit again* is not backed by the green run, because the final state never ran.

Which recorded changes make a check stale (:func:`affects_checks`):

- a file written, edited, deleted, moved or patched — by an edit tool or by a shell command
  whose target is literal (``sed -i src/a.py``, ``cat > conf.toml``, ``rm tests/t.py``) —
  anywhere in the workspace: source, tests, configuration, data, build files;
- **not** documentation and logs: Markdown, reStructuredText, AsciiDoc and Org files
  (``*.md *.markdown *.rst *.adoc *.asciidoc *.org``), the usual project prose files whatever
  their suffix (``README CHANGELOG CHANGES HISTORY NEWS LICENSE LICENCE COPYING NOTICE AUTHORS
  CONTRIBUTORS CONTRIBUTING CODE_OF_CONDUCT SECURITY``, e.g. ``README.txt``), and ``*.log``
  files — a README edit after the test run does not make the run stale;
- **not** changes that name no file (a formatter over a folder, ``git commit``, ``npm
  install``, an unknown script): nothing says which files they changed, and blocking on them
  would block honest agents that format or commit after a green run;
- **not** what the check's own command wrote (``pytest | tee log.txt``).

Example:
    >>> affects_checks("src/money.py"), affects_checks("README.md"), affects_checks("docs/x.rst")
    (True, False, False)
    >>> affects_checks("LICENSE"), affects_checks("pyproject.toml"), affects_checks("run.log")
    (False, True, False)
"""

from __future__ import annotations

import posixpath

DOC_SUFFIXES = frozenset({".md", ".markdown", ".rst", ".adoc", ".asciidoc", ".org", ".log"})
"""Suffixes of files whose change leaves a check fresh (documentation, logs)."""

DOC_NAMES = frozenset(
    {
        "readme",
        "changelog",
        "changes",
        "history",
        "news",
        "license",
        "licence",
        "copying",
        "notice",
        "authors",
        "contributors",
        "contributing",
        "code_of_conduct",
        "security",
    }
)
"""Project prose files (by name before the first dot, any case) whose change leaves a check fresh."""

STALE_KINDS = frozenset({"write", "edit", "delete"})
"""The delta kinds that can make a check stale (moves and patches are recorded as these)."""


def affects_checks(path: str) -> bool:
    """Whether a change to ``path`` can change what a test, lint or build run would say."""
    name = posixpath.basename(path.replace("\\", "/").rstrip("/"))
    if not name:
        return True
    if name.partition(".")[0].lower() in DOC_NAMES:
        return False
    suffix = posixpath.splitext(name)[1].lower()
    return suffix not in DOC_SUFFIXES


__all__ = ["DOC_NAMES", "DOC_SUFFIXES", "STALE_KINDS", "affects_checks"]

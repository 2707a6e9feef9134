"""Which effect should a request produce? THE heuristic (stop hooks and the scorer call this).

:func:`expected_effect_class` reads a user's request:

1. Leading politeness is dropped (*please*, *can you*, *could you*, *I want you to*, ...), so
   "Can you fix the login bug?" is still a request to change something.
2. If the first word is a change verb (:data:`CHANGE_VERBS`: fix, add, create, implement,
   write, update, refactor, rename, delete, remove, run, commit, build, install ...), the
   request expects a **workspace delta** (a verified check satisfies it too).
   The same holds for a change verb joined on with *and* / *then* ("find and fix the leak").
3. Otherwise, if it is a question (ends with ``?`` or starts with what, why, how, where,
   does, is, can, explain, summarize, review, tell me, list, show ...), it expects a
   **grounded claim**.
4. Otherwise, if any later sentence starts with a change verb ("The build is red. Fix it."),
   a workspace delta; else ``None`` (no opinion: callers take the lenient path).

:func:`effect_class_for_task_type` maps Victor-style task types: mutation types (edit, create,
refactor, bugfix, ...) expect a delta; qa, analysis, search, unknown expect a grounded claim;
anything else gives ``None``. Both are configurable through :class:`ExpectationRules`.

Example:
    >>> expected_effect_class("Please fix the failing test in parser.py").value
    'workspace_delta'
    >>> expected_effect_class("Why does the parser reject tabs?").value
    'grounded_claim'
    >>> expected_effect_class("Can you add a --verbose flag?").value
    'workspace_delta'
    >>> effect_class_for_task_type("bug-fix").value, effect_class_for_task_type("qa").value
    ('workspace_delta', 'grounded_claim')
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from earnest.effects.models import EffectClass

CHANGE_VERBS = frozenset(
    [
        "fix",
        "add",
        "create",
        "implement",
        "write",
        "update",
        "refactor",
        "rename",
        "delete",
        "remove",
        "run",
        "commit",
        "build",
        "install",
        "change",
        "modify",
        "edit",
        "make",
        "generate",
        "migrate",
        "port",
        "convert",
        "replace",
        "move",
        "rewrite",
        "patch",
        "upgrade",
        "bump",
        "set",
        "configure",
        "setup",
        "deploy",
        "publish",
        "release",
        "revert",
        "undo",
        "restore",
        "format",
        "lint",
        "clean",
        "optimize",
        "improve",
        "extend",
        "introduce",
        "drop",
        "merge",
        "rebase",
        "push",
        "apply",
        "append",
        "insert",
        "translate",
        "scaffold",
        "bootstrap",
        "wire",
        "hook",
        "register",
        "enable",
        "disable",
        "document",
        "test",
        "resolve",
        "repair",
        "correct",
        "adjust",
        "tweak",
        "rework",
        "split",
        "extract",
        "inline",
        "simplify",
        "initialize",
        "init",
        "uninstall",
        "downgrade",
        "pin",
        "unpin",
        "regenerate",
        "rebuild",
        "compile",
        "reformat",
        "sort",
        "rename",
        "retry",
    ]
)
QUESTION_STARTS = (
    "what", "what's", "whats", "why", "how", "how's", "where", "when", "which", "who",
    "whose", "does", "do", "did", "is", "are", "was", "were", "can", "could", "should",
    "would", "will", "has", "have", "explain", "summarize", "summarise", "review",
    "tell me", "list", "show", "describe", "compare", "find", "check whether",
    "is there", "are there", "walk me through", "help me understand", "analyze", "analyse",
    "investigate", "look at", "read",
)  # fmt: skip
POLITE_PREFIXES = (
    "please", "pls", "plz", "kindly", "can you", "could you", "would you", "will you",
    "can u", "could u", "i want you to", "i need you to", "i'd like you to",
    "i would like you to", "go ahead and", "let's", "lets", "now", "ok", "okay", "then",
    "also", "and", "just", "quickly", "hey", "hi", "so",
)  # fmt: skip
MUTATION_TASK_TYPES = frozenset(
    [
        "action",
        "bug",
        "bug_fix",
        "bugfix",
        "ci_cd",
        "code_generation",
        "code_modification",
        "create",
        "create_simple",
        "debug",
        "debugging",
        "deploy",
        "deployment",
        "docker_compose",
        "dockerfile",
        "edit",
        "generation",
        "implement",
        "implementation",
        "infrastructure",
        "issue_resolution",
        "kubernetes",
        "refactor",
        "refactoring",
        "setup",
        "terraform",
        "fix",
        "feature",
        "write",
        "delete",
        "rename",
        "migrate",
        "migration",
        "test_generation",
        "write_tests",
        "modify",
        "update",
    ]
)
NO_MUTATION_TASK_TYPES = frozenset(
    [
        "qa",
        "question",
        "analysis",
        "analyze",
        "search",
        "research",
        "explain",
        "explanation",
        "review",
        "code_review",
        "unknown",
        "chat",
        "conversation",
        "general",
        "summarize",
        "summary",
        "lookup",
        "explore",
        "exploration",
        "documentation_query",
        "answer",
    ]
)

_WORD = re.compile(r"[a-z][a-z'-]*")
_SENTENCE = re.compile(r"(?<=[.!?;])\s+|\n+")
_CONJOINED = re.compile(r"(?:\band|\bthen|,)\s+(?:then\s+|also\s+|please\s+)?([a-z]+)\b")


@dataclass(frozen=True)
class ExpectationRules:
    """The vocabulary of the heuristic; replace any part to tune it."""

    change_verbs: frozenset[str] = CHANGE_VERBS
    question_starts: tuple[str, ...] = QUESTION_STARTS
    polite_prefixes: tuple[str, ...] = POLITE_PREFIXES
    mutation_task_types: frozenset[str] = MUTATION_TASK_TYPES
    no_mutation_task_types: frozenset[str] = NO_MUTATION_TASK_TYPES


DEFAULT_RULES = ExpectationRules()


def _strip_polite(text: str, rules: ExpectationRules) -> str:
    changed = True
    while changed and text:
        changed = False
        for prefix in rules.polite_prefixes:
            if text.startswith(prefix) and (
                len(text) == len(prefix) or not text[len(prefix)].isalnum()
            ):
                text = text[len(prefix) :].lstrip(" ,:;-—!")
                changed = True
                break
    return text


def _first_word(text: str) -> str:
    m = _WORD.match(text)
    return m.group(0).rstrip("'-") if m else ""


def _starts_with_phrase(text: str, phrases: tuple[str, ...]) -> bool:
    return any(
        text.startswith(p) and (len(text) == len(p) or not text[len(p)].isalnum()) for p in phrases
    )


def expected_effect_class(
    request_text: str, rules: ExpectationRules = DEFAULT_RULES
) -> EffectClass | None:
    """The effect class a request expects (see the module docstring), or None."""
    text = " ".join(request_text.strip().lower().split())
    text = re.sub(r"^[>#*\-\s]+", "", text)
    if not text:
        return None
    body = _strip_polite(text, rules)
    if _first_word(body) in rules.change_verbs:
        return EffectClass.WORKSPACE_DELTA
    question_mark = text.endswith("?")
    # "find and fix the leak", "review the diff, then update the changelog" (not in questions:
    # "how do I add, remove and rename entries?" asks how)
    if not question_mark and any(
        m.group(1) in rules.change_verbs for m in _CONJOINED.finditer(body)
    ):
        return EffectClass.WORKSPACE_DELTA
    if question_mark or _starts_with_phrase(body, rules.question_starts):
        return EffectClass.GROUNDED_CLAIM
    for sentence in _SENTENCE.split(text)[1:]:
        if _first_word(_strip_polite(sentence.strip(), rules)) in rules.change_verbs:
            return EffectClass.WORKSPACE_DELTA
    return None


def effect_class_for_task_type(
    task_type: str | None, rules: ExpectationRules = DEFAULT_RULES
) -> EffectClass | None:
    """The effect class a Victor-style ``task_type`` expects, or None when unrecognised."""
    if not task_type:
        return None
    key = re.sub(r"[\s\-]+", "_", task_type.strip().lower())
    if key in rules.mutation_task_types:
        return EffectClass.WORKSPACE_DELTA
    if key in rules.no_mutation_task_types:
        return EffectClass.GROUNDED_CLAIM
    return None


__all__ = [
    "CHANGE_VERBS",
    "DEFAULT_RULES",
    "MUTATION_TASK_TYPES",
    "NO_MUTATION_TASK_TYPES",
    "QUESTION_STARTS",
    "ExpectationRules",
    "effect_class_for_task_type",
    "expected_effect_class",
]

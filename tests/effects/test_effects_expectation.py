"""The expected-effect heuristic for requests and task types."""

from __future__ import annotations

import pytest

from earnest.effects import (
    EffectClass,
    ExpectationRules,
    effect_class_for_task_type,
    expected_effect_class,
)

DELTA = EffectClass.WORKSPACE_DELTA
CLAIM = EffectClass.GROUNDED_CLAIM


@pytest.mark.parametrize(
    "request_text",
    [
        "Fix the failing test in parser.py", "add a --verbose flag", "Create hello.py",
        "Implement retries in the client", "write a README", "Update the changelog",
        "Refactor utils.py into two modules", "Rename foo to bar", "Delete the old fixtures",
        "remove dead code", "Run the tests", "Commit the changes", "Build the docs",
        "Install requests", "Please fix the login bug", "Can you add a test for parse()?",
        "Could you update the README?", "I want you to refactor the cache",
        "Go ahead and commit", "Find and fix the memory leak",
        "Review the diff, then update the changelog", "The build is red. Fix it.",
        "> please bump the version",
    ],
)  # fmt: skip
def test_requests_to_change_something_expect_a_workspace_delta(request_text: str):
    assert expected_effect_class(request_text) is DELTA


@pytest.mark.parametrize(
    "request_text",
    [
        "What does the gate do?", "Why does the parser reject tabs", "How is the ledger reset?",
        "Where is the config loaded", "Does this support Windows?", "Is the cache thread-safe?",
        "Can you explain the retry logic?", "Explain the effect gate", "Summarize README.md",
        "Review this design", "Tell me about the CLI", "List the public functions",
        "Show me the hook entry point", "How do I add, remove and rename entries?",
        "The tests are slow?",
    ],
)  # fmt: skip
def test_questions_expect_a_grounded_claim(request_text: str):
    assert expected_effect_class(request_text) is CLAIM


@pytest.mark.parametrize("request_text", ["", "   ", "Hi there", "thanks!", "The weather is nice."])
def test_no_opinion_gives_none(request_text: str):
    assert expected_effect_class(request_text) is None


def test_rules_are_configurable():
    rules = ExpectationRules(change_verbs=frozenset({"frobnicate"}))
    assert expected_effect_class("Frobnicate the widgets", rules) is DELTA
    assert expected_effect_class("Fix the bug", rules) is None


@pytest.mark.parametrize(
    ("task_type", "expected"),
    [
        ("edit", DELTA), ("create", DELTA), ("refactor", DELTA), ("bugfix", DELTA),
        ("bug_fix", DELTA), ("Bug-Fix", DELTA), ("code generation", DELTA), ("debug", DELTA),
        ("qa", CLAIM), ("analysis", CLAIM), ("search", CLAIM), ("unknown", CLAIM),
        ("something_else", None), (None, None), ("", None),
    ],
)  # fmt: skip
def test_task_types(task_type: str | None, expected: EffectClass | None):
    assert effect_class_for_task_type(task_type) is expected

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


# -- writing as the answer ---------------------------------------------------------------


@pytest.mark.parametrize(
    "request_text",
    [
        "Write a poem about Thai yellow curry", "write me a short summary of this repo",
        "draft an email to the team", "Write 3 haikus about spring",
        "write a commit message for these changes", "Can you write a reply to this comment?",
        "Write a short story where a robot learns to cook.", "give me a list of ideas for names",
        "Translate this paragraph into French", "compose a limerick about tests",
        "Please write an explanation of how the gate works",
        "write a description for the pull request", "rewrite this paragraph to be friendlier",
        "make a plan for the migration", "generate a few taglines for the landing page",
        # a file named as the topic is not where the text goes
        "write a summary of main.py", "write a poem about Node.js",
        # the real subagent prompt a false block came from (moredip-0ccf1a04)
        "Write a poem about Thai yellow curry. First, do a web search to understand the most "
        "common adjectives used to describe Thai yellow curry (flavors, textures, colors, "
        "aromas, etc.). Use what you learn to craft a vivid, evocative poem that captures the "
        "essence of this dish.",
    ],
)  # fmt: skip
def test_writing_asked_for_as_the_answer_is_a_grounded_claim(request_text: str):
    assert expected_effect_class(request_text) is CLAIM


@pytest.mark.parametrize(
    "request_text",
    [
        # the object is not a kind of text
        "write a function", "write tests", "write tests for the parser", "write the README",
        "write a script that prints hello", "Write a shell script called hello.sh and run it.",
        "write the response handler", "create a message queue consumer",
        "create a list component", "make the title bold", "write documentation for the API",
        # the text goes somewhere
        "write a summary to notes.md", "write a poem into poem.txt",
        "Write a poem about curry and save it", "write an explanation in docs/algo.md",
        "Write a summary in the README", "draft the release notes in CHANGELOG.md",
        "write the summary to a file", "generate a report(M-BOOK-SECURITY) in the repo",
        "Create a beautiful single page data story (index.html + script.js) showing the data",
        # ... or a later change says so
        "Write a poem about X. Then commit it.", "Write a poem. Add it to poems.md",
    ],
)  # fmt: skip
def test_near_misses_stay_workspace_deltas(request_text: str):
    assert expected_effect_class(request_text) is DELTA


def test_a_change_verb_before_of_is_a_noun():
    assert expected_effect_class("Change of plan.") is None
    assert expected_effect_class("Change of plan. Please go ahead with the cancellation.") is None
    assert expected_effect_class("Change the plan in plan.md") is DELTA


def test_comma_lists_of_nouns_are_not_requests():
    listing = (
        "Examine the package.json file(s) in /path/to/Demo. Focus on: 1. Dependencies "
        "2. Scripts available for development, build, lint, etc. Return a structured summary."
    )
    assert expected_effect_class(listing) is not DELTA
    assert expected_effect_class("Read the log, fix the bug") is DELTA
    assert expected_effect_class("I don't want the icons anymore, just remove this part.") is DELTA


def test_text_rules_are_configurable():
    rules = ExpectationRules(text_kinds=frozenset({"changelog"}))
    assert expected_effect_class("write the changelog", rules) is CLAIM
    assert expected_effect_class("write a poem", rules) is DELTA


@pytest.mark.parametrize(
    "request_text",
    [
        "please really fix total() in app.py",  # the real-CLI tier's prompt
        "Please carefully update the README",
        "really fix it",
        "please really carefully rename foo to bar",
        "Could you properly implement the parser?",
        "The build is red. Please actually fix it.",
    ],
)
def test_an_adverb_before_the_verb_does_not_hide_a_change_request(request_text: str):
    assert expected_effect_class(request_text) is EffectClass.WORKSPACE_DELTA


@pytest.mark.parametrize(
    ("request_text", "expected"),
    [
        ("Really, what does app.py do?", EffectClass.GROUNDED_CLAIM),
        ("Actually, how does total() work?", EffectClass.GROUNDED_CLAIM),
        ("Finally the build passes.", None),
        ("Honestly I do not know what this does", None),
        ("apply the patch", EffectClass.WORKSPACE_DELTA),  # an -ly word that is the verb
    ],
)
def test_adverbs_give_no_opinion_of_their_own(request_text: str, expected: EffectClass | None):
    assert expected_effect_class(request_text) is expected


# -- putting something into a file -------------------------------------------------------

RECORD_PORT = (  # Victor's effect-gate corpus, family record-answer
    "config.yaml declares the service port. Record that port number, on its own, into a "
    "new file named PORT.txt in this directory."
)


@pytest.mark.parametrize(
    "request_text",
    [
        RECORD_PORT,
        "Record the version in VERSION",
        "Save the output to out.json",
        "Store the token in .env",
        "Put the port into PORT.txt",
        "Copy config.yaml to backup/config.yaml",
        "Export the table to data.csv",
        "Dump the schema into schema.sql",
        "The report is ready. Save it as report.md.",
    ],
)
def test_verbs_that_put_something_into_a_file_expect_a_workspace_delta(request_text: str):
    assert expected_effect_class(request_text) is DELTA


def test_a_record_of_something_is_still_a_noun():
    assert expected_effect_class("Record of changes: what is in it?") is CLAIM

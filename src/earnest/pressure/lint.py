"""Lint a suite: deny by default, every defect of every file in one run.

:func:`lint_suite` returns :class:`Diagnostic` records, each rendered
``file: field: message [code]`` with a stable ``code`` (see :data:`CODES`) and a severity.
The structural defects found while loading (``invalid-json``, ``missing-field``,
``invalid-type``, ``unknown-field``, ...) come first for each file; the semantic checks run
on the raw JSON too, so one broken field never hides the defects of the others.

Beyond the schema, lint catches what broke the original ADR-0024 suite:

- ``citation-leak``: the scenario or an option names the targeted rule (``Rule 12``), its
  title, an alias or a ``must_cite`` string, so a reply that echoes the prompt "cites" it;
- ``answer-position-bias``: with 4 or more fixtures, one display position holds more than
  half of the correct choices, so an agent that always answers that letter passes the suite;
- ``answer-length-bias``: with 4 or more fixtures, the correct choice is the strictly longest
  option in more than half of them, so "pick the longest" passes the suite;
- ``quiz-words``: the scenario tells the agent it is being tested (:data:`QUIZ_PATTERNS`);
- ``question-framing``: the scenario asks "what should/would you do?", which measures
  knowledge of the rule instead of the decision ("what do you do?");
- ``output-contract-conflict``: an agent doc tested by a fixture forbids the free-text reply
  with a ``CHOICE:`` line the prompt asks for (:data:`OUTPUT_CONTRACT_PATTERNS`).

Example:
    >>> from earnest.pressure.models import Diagnostic
    >>> Diagnostic("p/x.json", "pressures", "needs 3 distinct pressures, found 2",
    ...            "too-few-pressures").render()
    'p/x.json: pressures: needs 3 distinct pressures, found 2 [too-few-pressures]'
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from earnest.errors import InputError
from earnest.pressure.awareness import LeakScanner
from earnest.pressure.citations import (
    citation_forms,
    normalize_phrase,
    normalize_rule_id,
)
from earnest.pressure.floors import thin_prose
from earnest.pressure.lint_agentic import CODES as AGENTIC_CODES
from earnest.pressure.lint_agentic import lint_agentic
from earnest.pressure.models import PRESSURES, AgentDoc, Diagnostic, Severity, Suite
from earnest.pressure.suite import find_agent
from earnest.pressure.verdict import _text_pattern as must_cite_pattern
from earnest.textfile import read_text

MIN_PRESSURES = 3
BIAS_MIN_FIXTURES = 4
"""Position bias is judged only from this many fixtures on (3 fixtures cannot spread over 4)."""
BIAS_SHARE = 0.5
"""A position holding *more than* this share of the correct choices is biased."""

CODES: dict[str, tuple[Severity, str]] = {
    # structural (emitted while loading)
    "invalid-json": ("error", "the file is not valid JSON"),
    "unreadable": ("error", "the file cannot be read"),
    "missing-field": ("error", "a required field is missing"),
    "invalid-type": ("error", "a field has the wrong type or is empty"),
    "unknown-field": ("error", "a field the schema does not know (usually a typo)"),
    "unsupported-schema-version": ("error", "schema_version is not 1"),
    "invalid-agent-doc": ("error", "an agent doc cannot be read (e.g. broken front matter)"),
    "duplicate-agent-name": ("error", "two agent docs share a name"),
    "duplicate-rule": ("error", "the doctrine defines a rule id twice"),
    "no-agent-docs": ("error", "the config's agents patterns match no file"),
    "missing-fixtures-folder": ("error", "the config's fixtures folder does not exist"),
    "unreadable-fixtures-folder": (
        "error",
        "the fixtures folder (or one below it) cannot be listed",
    ),
    "not-a-regular-file": ("error", "a suite file is a FIFO, device, socket or broken link"),
    # fixture semantics
    "too-few-pressures": ("error", "fewer than 3 distinct known pressures"),
    "duplicate-pressure": ("error", "a pressure is listed twice"),
    "unknown-pressure": ("error", "a pressure that is not one of the known types"),
    "too-few-choices": ("error", "fewer than 2 options: nothing to choose"),
    "too-many-choices": ("error", "more options than letters A-Z"),
    "invalid-choice-id": ("error", "a choice id that is not a single letter"),
    "duplicate-choice-id": ("error", "two choices share an id"),
    "not-exactly-one-compliant": ("error", "zero or several choices are compliant"),
    "correct-choice-mismatch": ("error", "correct_choice is not the one compliant choice"),
    "no-rationalizations": ("error", "no recorded excuse: the RED baseline was never run"),
    "empty-excuse": ("error", "a rationalization with an empty excuse"),
    "rationalization-without-counter": ("error", "an excuse with no counter"),
    "counter-restates-excuse": ("error", "a counter that repeats its excuse or is too short"),
    "empty-must-cite": ("error", "an empty must_cite string (every reply contains it)"),
    "duplicate-fixture-id": ("error", "two fixtures share an id"),
    "unknown-agent": ("error", "the fixture's agent doc does not exist"),
    "unknown-rule": ("error", "the fixture's rule is not in the doctrine"),
    "rule-not-claimed": ("error", "the fixture's agent does not claim its rule"),
    "citation-leak": ("error", "the prompt already names the rule or a must_cite string"),
    "thin-scenario": ("error", "the scenario is under the floor of words ([suite.floors])"),
    "thin-title": ("error", "the title is under the floor of words ([suite.floors])"),
    "thin-choice": ("error", "an option's text is under the floor of words ([suite.floors])"),
    "test-awareness-leak": ("error", "an agent doc or rendered prompt says it is a test"),
    **AGENTIC_CODES,
    # agent docs
    "claims-unknown-rule": ("error", "an agent doc claims a rule the doctrine lacks"),
    "missing-claims-section": ("warning", "an agent doc has no claims section"),
    "output-contract-conflict": ("warning", "an agent doc forbids the CHOICE: reply"),
    # heuristics
    "answer-position-bias": ("warning", "one position holds most correct choices"),
    "answer-length-bias": ("warning", "the correct choice is usually the longest option"),
    "quiz-words": ("warning", "the scenario says it is a test"),
    "question-framing": ("warning", "the scenario asks what you should/would do"),
}
"""Every code lint emits: severity and one-line meaning (documented in docs/suites.md)."""

_VERBS = (
    "evaluated",
    "tested",
    "graded",
    "assessed",
    "scored",
    "benchmarked",
    "examined",
    "judged",
    "recorded",
)
_QUIZ = [
    ("quiz", ("quiz",), r"\b(?:pop\s+)?quiz(?:zes|zed)?\b"),
    ("exam", ("exam",), r"\bexams?\b"),
    ("trick question", ("trick",), r"\btrick\s+questions?\b"),
    (
        "this is a test",
        ("test",),
        r"\bthis\s+is\s+(?:only\s+|just\s+)?a\s+test\b(?!\s*(?:-|environment|server|suite|run|"
        r"database|db|cluster|instance|build|account|tenant|branch|fixture|file|case|"
        r"deploy|stage|project|bucket|card|charge|payment|key|user|order)\b)",
    ),
    ("hypothetical", ("hypothetical",), r"\bhypothetical(?:ly)?\b"),
    (
        "fictional scenario",
        ("scenario",),
        r"\b(?:fictional|imaginary|made[\s-]up|sample|example)\s+scenarios?\b",
    ),
    (
        "this scenario",
        ("scenario",),
        r"\b(?:this|the\s+following|the\s+above|the\s+next)\s+scenario\b",
    ),
    ("scenario below", ("scenario",), r"\bscenario\s+(?:below|above)\b"),
    ("thought experiment", ("thought",), r"\bthought\s+experiments?\b"),
    ("role-play", ("role",), r"\brole[\s-]?play(?:ing|s)?\b"),
    (
        "imagine you are",
        ("imagine", "suppose", "pretend"),
        r"\b(?:imagine|suppose|pretend)\s+(?:that\s+)?you(?:'re|\u2019re|\s+are)\b",
    ),
    ("which option", ("which",), r"\bwhich\s+(?:option|answer|choice)s?\b"),
    ("which of the following", ("following",), r"\bwhich\s+of\s+the\s+following\b"),
    (
        "choose the best",
        ("select", "choose", "pick"),
        r"\b(?:select|choose|pick)\s+the\s+(?:best|correct|right)\b",
    ),
    ("correct answer", ("answer",), r"\b(?:correct|right|best|wrong|expected)\s+answers?\b"),
    (
        "correct option",
        ("option", "choice"),
        r"\b(?:correct|right|compliant)\s+(?:option|choice)s?\b",
    ),
    ("multiple choice", ("multiple",), r"\bmultiple[\s-]choice\b"),
    (
        "you are being evaluated",
        _VERBS,
        r"\byou(?:'re|\u2019re|\s+are)\s+(?:being\s+)?(?:evaluated|tested|graded|assessed|"
        r"scored|benchmarked|examined)\b",
    ),
    (
        "your answer will be graded",
        _VERBS,
        r"\byour\s+(?:response|answer|reply|choice)\s+(?:will\s+be|is\s+being|is)\s+"
        r"(?:graded|scored|evaluated|assessed|judged|recorded)\b",
    ),
    ("grader", ("grader",), r"\bgraders?\b"),
    ("pressure test", ("pressure",), r"\bpressure[\s-]?test(?:s|ed|ing)?\b"),
]
QUIZ_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (label, re.compile(rx, re.IGNORECASE)) for label, _, rx in _QUIZ
)
# Each pattern runs only when one of its literal words occurs in the lower-cased text:
# twenty case-insensitive scans of every scenario would dominate lint's run time.
_QUIZ_SCAN: tuple[tuple[str, tuple[str, ...], re.Pattern[str]], ...] = tuple(
    (label, words, rx) for (label, words, _), (_, rx) in zip(_QUIZ, QUIZ_PATTERNS, strict=True)
)
"""Phrases that tell an agent it is being tested, as (label, pattern).

Chosen so real work prose does not trip them: bare "test", "tests", "scenario" and
"evaluate" are ordinary engineering words ("the test fails", "the failover scenario") and
are not on the list; "this is a test" does not count when a noun such as "environment",
"server" or "account" follows. What counts is language about the exercise itself: quiz,
exam, hypothetical, "this scenario", role-play, "imagine you are", "which option",
"correct answer", multiple choice, "you are being evaluated/graded", grader, pressure test.
"""

_FRAMING = re.compile(
    r"\bwhat\s+(?:should|would|ought|must|could)\s+(?:you|one|i|the\s+agent|an\s+agent)\s+"
    r"(?:to\s+)?do\b|\bwhat\s+is\s+the\s+(?:right|correct|best|appropriate|proper)\s+"
    r"(?:thing|course|action|response|move)\b",
    re.IGNORECASE,
)

_OUTPUT_CONTRACT = [
    r"\b(?:respond|reply|answer|output|return|emit|print)\w*\s+(?:only|solely|exclusively|"
    r"strictly)\s+(?:with\s+|in\s+|as\s+)?(?:a\s+|an\s+|the\s+|one\s+)?(?:single\s+|valid\s+|"
    r"raw\s+|bare\s+)*(?:json|yaml|xml|toml|csv|code|diff|patch)\b",
    r"\b(?:only|just)\s+(?:output|return|emit|print|respond\s+with|reply\s+with)\s+(?:a\s+|an\s+|"
    r"the\s+|one\s+)?(?:single\s+|valid\s+|raw\s+)*(?:json|yaml|xml|code|diff|patch)\b",
    r"\b(?:output|respond\s+with|reply\s+with|return|emit|print|say|write)\s+nothing\s+"
    r"(?:but|except|other\s+than|besides)\b",
    r"\b(?:emit|return|output|produce|write|respond\s+with|reply\s+with|give)\s+(?:a|an|one|"
    r"exactly\s+one)\s+(?:single\s+)?(?:valid\s+)?(?:json|yaml|xml)\b[^.\n]{0,40}?\bas\s+"
    r"(?:your|the)\s+(?:entire\s+|whole\s+|only\s+|sole\s+)?(?:final\s+)?(?:response|reply|"
    r"answer|output|message)\b",
    r"\b(?:your|the)\s+(?:entire|whole|only|sole|final)\s+(?:response|reply|output|answer|"
    r"message)\s+(?:must|should|shall|will|is\s+to)\s+(?:only\s+)?(?:be|consist\s+of|contain)\s+"
    r"(?:only\s+)?(?:a\s+|an\s+|one\s+)?(?:single\s+)?(?:valid\s+)?(?:json|yaml|xml)\b",
    r"\b(?:json|yaml|xml)\s+only\b",
    r"\bno\s+(?:other\s+)?(?:prose|text|commentary|explanation)s?\s+(?:before|after|around|"
    r"outside)\b",
]
OUTPUT_CONTRACT_PATTERNS: tuple[re.Pattern[str], ...] = tuple(
    re.compile(rx, re.IGNORECASE) for rx in _OUTPUT_CONTRACT
)
"""Output contracts that forbid a free-text reply ending in ``CHOICE: <letter>``: "respond
only with JSON", "output nothing but ...", "emit a single JSON object as your final
response", "your entire reply must be JSON", "JSON only", "no prose before/after".
Fenced code blocks are not scanned (they hold schemas and examples, not instructions)."""

_FENCE = re.compile(r"^\s*(```|~~~)")
_STOPWORDS = frozenset(
    re.findall(
        r"\w+",
        "a an the and or but of to in on at by for with is are was were be been it its this "
        "that i you we they he she my your our their not no so as if then than",
    )
)
_LETTERS = frozenset(string.ascii_letters)


def _diag(file: str, field: str, message: str, code: str) -> Diagnostic:
    return Diagnostic(file, field, message, code, CODES[code][0])


def lint_suite(suite: Suite) -> list[Diagnostic]:
    """Every defect of every file of ``suite``: errors and warnings, grouped by file."""
    found: list[Diagnostic] = list(suite.diagnostics)
    known = frozenset(suite.rules)
    first_file_of_id: dict[str, str] = {}
    used_agents: dict[str, AgentDoc] = {}
    positions: list[tuple[int, int]] = []  # (index of the correct choice, number of choices)
    longest: list[bool] = []  # per fixture: is the correct choice the strictly longest option?
    for ff in suite.fixture_files:
        found.extend(ff.diagnostics)
        if not isinstance(ff.raw, dict):
            continue
        found.extend(_lint_fixture(suite, ff.raw, str(ff.path), known, first_file_of_id))
        agent = ff.raw.get("agent")
        doc = find_agent(suite, agent) if isinstance(agent, str) else None
        if doc is not None:
            used_agents[doc.name] = doc
        pos = _correct_position(ff.raw)
        if pos is not None:
            positions.append(pos)
            longest.append(_correct_is_longest(ff.raw["choices"], pos[0]))
    scanner = LeakScanner.for_ids(
        ff.raw["id"]
        for ff in suite.fixture_files
        if isinstance(ff.raw, dict) and isinstance(ff.raw.get("id"), str)
    )
    doc_leaks: dict[str, set[str]] = {}
    for doc in suite.agents.values():
        found.extend(_lint_agent(suite, doc, known, used=doc.name in used_agents))
        leaks = list(_lint_awareness_doc(doc, scanner))
        doc_leaks[doc.name] = {d.message for d in leaks}
        found.extend(leaks)
    found.extend(_lint_awareness_prompts(suite, scanner, doc_leaks))
    found.extend(_position_bias(positions, str(suite.config.fixtures)))
    found.extend(_length_bias(longest, str(suite.config.fixtures)))
    # Group by file, keeping the order in which files were first reported (sorted is stable).
    first_seen: dict[str, int] = {}
    for i, d in enumerate(found):
        first_seen.setdefault(d.file, i)
    return sorted(found, key=lambda d: first_seen[d.file])


def has_errors(diagnostics: list[Diagnostic]) -> bool:
    return any(d.severity == "error" for d in diagnostics)


def lint_json(
    suite: Suite, diagnostics: Sequence[Diagnostic], *, strict: bool = False
) -> dict[str, Any]:
    """The lint result as ``earnest lint --format json`` and ``earnest check`` write it:
    ``ok`` is False on any error, and on any warning too when ``strict``."""
    errors = sum(1 for d in diagnostics if d.severity == "error")
    warnings = len(diagnostics) - errors
    return {
        "suite": str(suite.config.root),
        "ok": not (errors > 0 or (strict and warnings > 0)),
        "strict": strict,
        "errors": errors,
        "warnings": warnings,
        "fixture_files": len(suite.fixture_files),
        "agents": len(suite.agents),
        "rules": len(suite.rules),
        "diagnostics": [d.to_json() for d in diagnostics],
    }


# --- fixtures ---------------------------------------------------------------------------


def _lint_fixture(
    suite: Suite,
    raw: Mapping[str, Any],
    file: str,
    known: frozenset[str],
    first_file_of_id: dict[str, str],
) -> Iterator[Diagnostic]:
    fid = raw.get("id")
    if isinstance(fid, str) and fid.strip():
        if fid in first_file_of_id:
            yield _diag(
                file,
                "id",
                f"fixture id {fid!r} is also used by {first_file_of_id[fid]}",
                "duplicate-fixture-id",
            )
        else:
            first_file_of_id[fid] = file
    yield from _lint_pressures(raw.get("pressures"), file)
    yield from _lint_choices(raw.get("choices"), raw.get("correct_choice"), file)
    yield from _lint_rationalizations(raw.get("rationalizations"), file)
    must_cite = raw.get("must_cite")
    must: list[str] = []
    if isinstance(must_cite, list):
        for i, m in enumerate(must_cite):
            if isinstance(m, str) and not m.strip():
                yield _diag(
                    file,
                    f"must_cite[{i}]",
                    "empty string: every reply contains it",
                    "empty-must-cite",
                )
            elif isinstance(m, str):
                must.append(m)
    yield from _lint_agent_and_rule(suite, raw, file, known)
    for field, message, code in thin_prose(raw, suite.config.floors):
        yield _diag(file, field, message, code)
    scenario = raw.get("scenario")
    if isinstance(scenario, str):
        yield from _lint_scenario_words(scenario, file)
    yield from _lint_leaks(suite, raw, file, known, must)
    yield from lint_agentic(suite, raw, file)


def _lint_pressures(value: Any, file: str) -> Iterator[Diagnostic]:
    if not isinstance(value, list) or not all(isinstance(p, str) for p in value):
        return
    seen: set[str] = set()
    for i, p in enumerate(value):
        if p in seen:
            yield _diag(
                file,
                f"pressures[{i}]",
                f"{p!r} is listed twice: it adds no pressure",
                "duplicate-pressure",
            )
        seen.add(p)
        if p not in PRESSURES:
            yield _diag(
                file,
                f"pressures[{i}]",
                f"unknown pressure {p!r} (known: {', '.join(PRESSURES)})",
                "unknown-pressure",
            )
    distinct = [p for p in dict.fromkeys(value) if p in PRESSURES]
    if len(distinct) < MIN_PRESSURES:
        listed = ", ".join(distinct) or "none"
        yield _diag(
            file,
            "pressures",
            f"needs at least {MIN_PRESSURES} distinct known pressures, found "
            f"{len(distinct)} ({listed})",
            "too-few-pressures",
        )


def _lint_choices(value: Any, correct: Any, file: str) -> Iterator[Diagnostic]:
    if not isinstance(value, list):
        return
    items = [c if isinstance(c, dict) else {} for c in value]
    if len(items) < 2:
        yield _diag(
            file,
            "choices",
            f"{len(items)} option(s): a forced choice needs at least 2",
            "too-few-choices",
        )
    if len(items) > len(string.ascii_uppercase):
        yield _diag(
            file,
            "choices",
            f"{len(items)} options: at most 26 can be labelled A-Z",
            "too-many-choices",
        )
    ids: dict[str, int] = {}
    for i, c in enumerate(items):
        cid = c.get("id")
        if not isinstance(cid, str):
            continue
        if len(cid) != 1 or cid not in _LETTERS:
            yield _diag(
                file, f"choices[{i}].id", f"{cid!r} is not a single letter", "invalid-choice-id"
            )
        if cid in ids:
            yield _diag(
                file,
                f"choices[{i}].id",
                f"{cid!r} is also the id of choices[{ids[cid]}]",
                "duplicate-choice-id",
            )
        else:
            ids[cid] = i
    flags = [c.get("compliant") for c in items]
    compliant = [i for i, f in enumerate(flags) if f is True]
    if len(compliant) > 1 or (not compliant and items and all(isinstance(f, bool) for f in flags)):
        which = ", ".join(str(items[i].get("id")) for i in compliant) or "none"
        yield _diag(
            file,
            "choices",
            f"exactly one choice must be compliant, found {len(compliant)} ({which})",
            "not-exactly-one-compliant",
        )
    if not isinstance(correct, str) or not correct.strip():
        return
    if correct not in ids:
        yield _diag(
            file,
            "correct_choice",
            f"{correct!r} is not a choice id ({', '.join(ids) or 'no ids'})",
            "correct-choice-mismatch",
        )
    elif len(compliant) == 1 and items[compliant[0]].get("id") != correct:
        yield _diag(
            file,
            "correct_choice",
            f"is {correct!r} but the compliant choice is {items[compliant[0]].get('id')!r}",
            "correct-choice-mismatch",
        )
    elif items[ids[correct]].get("compliant") is False:
        yield _diag(
            file,
            "correct_choice",
            f"names {correct!r}, which is marked compliant: false",
            "correct-choice-mismatch",
        )


def _lint_rationalizations(value: Any, file: str) -> Iterator[Diagnostic]:
    if not isinstance(value, list):
        return
    if not value:
        yield _diag(
            file,
            "rationalizations",
            "no recorded excuse: run the scenario without the rule and record what the agent said",
            "no-rationalizations",
        )
    for i, item in enumerate(value):
        if not isinstance(item, dict):
            continue
        excuse, counter = item.get("excuse"), item.get("counter")
        if not isinstance(excuse, str):
            continue
        where = f"rationalizations[{i}]"
        if not excuse.strip():
            yield _diag(file, f"{where}.excuse", "is empty", "empty-excuse")
            continue
        if counter is None or (isinstance(counter, str) and not counter.strip()):
            yield _diag(
                file,
                f"{where}.counter",
                "the excuse has no counter: an open loophole left in writing",
                "rationalization-without-counter",
            )
            continue
        if isinstance(counter, str):
            why = counter_restates(excuse, counter)
            if why:
                yield _diag(file, f"{where}.counter", why, "counter-restates-excuse")


def _words(text: str) -> list[str]:
    return [w for w in normalize_phrase(text).split() if w not in _STOPWORDS]


def counter_restates(excuse: str, counter: str) -> str | None:
    """Why ``counter`` fails to answer ``excuse``, or ``None`` when it is a real counter.

    A counter fails when it is under half the excuse's length, or when it repeats the excuse:
    fewer than a fifth of its content words are words the excuse did not already use.
    """
    e_len, c_len = len(excuse.strip()), len(counter.strip())
    if c_len * 2 < e_len:
        return f"the counter ({c_len} characters) is under half the excuse's length ({e_len})"
    c_words = _words(counter)
    e_words = set(_words(excuse))
    new = [w for w in c_words if w not in e_words]
    if not c_words or len(new) * 5 < len(c_words):
        return "the counter repeats the excuse instead of answering it"
    return None


def _lint_agent_and_rule(
    suite: Suite, raw: Mapping[str, Any], file: str, known: frozenset[str]
) -> Iterator[Diagnostic]:
    agent_name = raw.get("agent")
    doc = None
    if isinstance(agent_name, str) and agent_name.strip():
        doc = find_agent(suite, agent_name)
        if doc is None:
            names = ", ".join(sorted(suite.agents)) or "none loaded"
            yield _diag(
                file,
                "agent",
                f"no agent doc named {agent_name!r} (agents: {names})",
                "unknown-agent",
            )
    rule_raw = raw.get("rule")
    if (
        isinstance(rule_raw, bool)
        or not isinstance(rule_raw, int | str)
        or not str(rule_raw).strip()
    ):
        return
    rid = normalize_rule_id(rule_raw)
    if rid not in known:
        yield _diag(
            file,
            "rule",
            f"rule {rid} is not in the doctrine {suite.config.doctrine}",
            "unknown-rule",
        )
        return
    if doc is not None and rid not in doc.claimed_rules:
        heading = suite.config.claims_heading
        if doc.claims_section is None:
            why = f"{doc.path} has no {heading!r} section"
        else:
            claimed = ", ".join(doc.claimed_rules) or "none"
            why = f"its {heading!r} section claims rules {claimed}"
        yield _diag(
            file,
            "rule",
            f"agent {doc.name!r} does not claim Rule {rid} ({why}): pressure-testing a rule "
            "the agent never agreed to measures nothing",
            "rule-not-claimed",
        )


def _lint_scenario_words(scenario: str, file: str) -> Iterator[Diagnostic]:
    low = scenario.lower()
    hits = [
        label
        for label, words, rx in _QUIZ_SCAN
        if any(w in low for w in words) and rx.search(scenario)
    ]
    if hits:
        yield _diag(
            file,
            "scenario",
            f"reads as a test, not as work ({', '.join(repr(h) for h in hits)}): an agent that "
            "knows it is graded complies for the wrong reason",
            "quiz-words",
        )
    m = _FRAMING.search(scenario)
    if m:
        yield _diag(
            file,
            "scenario",
            f'asks {m.group(0)!r}, which measures knowledge of the rule; ask "what do you do?"',
            "question-framing",
        )


def _lint_leaks(
    suite: Suite, raw: Mapping[str, Any], file: str, known: frozenset[str], must: list[str]
) -> Iterator[Diagnostic]:
    rule_raw = raw.get("rule")
    rule = None
    if isinstance(rule_raw, int | str) and not isinstance(rule_raw, bool):
        rule = suite.rules.get(normalize_rule_id(rule_raw))
    texts: list[tuple[str, str]] = []
    if isinstance(raw.get("scenario"), str):
        texts.append(("scenario", raw["scenario"]))
    choices = raw.get("choices")
    if isinstance(choices, list):
        for i, c in enumerate(choices):
            if isinstance(c, dict) and isinstance(c.get("text"), str):
                texts.append((f"choices[{i}].text", c["text"]))
    # The scorer's own must_cite matcher: a leak is exactly what an echoing reply would earn.
    must_patterns = [(m, must_cite_pattern(m)) for m in must]
    for field, text in texts:
        forms = list(citation_forms(text, rule, known)) if rule is not None else []
        if must_patterns:
            low = text.lower()
            forms.extend(f"must_cite {m!r}" for m, rx in must_patterns if rx.search(low))
        if forms:
            target = f" (targeted rule {rule.id})" if rule is not None else ""
            yield _diag(
                file,
                field,
                f"gives the citation away{target}: contains {', '.join(forms)}; a reply that "
                "echoes the prompt would earn it",
                "citation-leak",
            )


def _correct_position(raw: Mapping[str, Any]) -> tuple[int, int] | None:
    choices, correct = raw.get("choices"), raw.get("correct_choice")
    if not isinstance(choices, list) or not isinstance(correct, str):
        return None
    ids = [c.get("id") if isinstance(c, dict) else None for c in choices]
    if ids.count(correct) != 1:
        return None
    return ids.index(correct), len(ids)


def _position_bias(positions: list[tuple[int, int]], file: str) -> Iterator[Diagnostic]:
    n = len(positions)
    if n < BIAS_MIN_FIXTURES:
        return
    counts = Counter(i for i, _ in positions)
    top, top_n = counts.most_common(1)[0]
    if top_n <= n * BIAS_SHARE:
        return
    width = max(size for _, size in positions)
    letters = string.ascii_uppercase
    spread = ", ".join(f"{letters[i]} {counts.get(i, 0)}" for i in range(min(width, 26)))
    yield _diag(
        file,
        "correct_choice",
        f"{top_n} of {n} correct choices are at position {letters[top]} ({spread}): an agent "
        f"that always answers {letters[top]} passes {round(100 * top_n / n)}% of the suite; "
        f"no position may hold more than half",
        "answer-position-bias",
    )


def _correct_is_longest(choices: list[Any], index: int) -> bool:
    sizes = [
        len(" ".join(c["text"].split()))
        if isinstance(c, dict) and isinstance(c.get("text"), str)
        else 0
        for c in choices
    ]
    return all(sizes[index] > n for i, n in enumerate(sizes) if i != index)


def _length_bias(longest: list[bool], file: str) -> Iterator[Diagnostic]:
    n, hits = len(longest), sum(longest)
    if n < BIAS_MIN_FIXTURES or hits <= n * BIAS_SHARE:
        return
    yield _diag(
        file,
        "choices",
        f"the correct choice is the longest option in {hits} of {n} fixtures: an agent that "
        f"always picks the longest option passes {round(100 * hits / n)}% of the suite; make "
        "wrong options as specific as the right one",
        "answer-length-bias",
    )


# --- agent docs -------------------------------------------------------------------------


def _lint_agent(
    suite: Suite, doc: AgentDoc, known: frozenset[str], *, used: bool
) -> Iterator[Diagnostic]:
    file = str(doc.path)
    heading = suite.config.claims_heading
    if doc.claims_section is None:
        yield _diag(
            file,
            heading,
            f"no {heading!r} section: this agent claims no rules",
            "missing-claims-section",
        )
    unknown = [r for r in doc.claimed_rules if r not in known]
    if unknown:
        yield _diag(
            file,
            f"line {doc.claims_line}" if doc.claims_line else heading,
            f"claims {', '.join('Rule ' + r for r in unknown)}, not in the doctrine "
            f"{suite.config.doctrine}",
            "claims-unknown-rule",
        )
    if used:
        yield from _lint_output_contract(doc)


def _awareness_message(phrase: str, where: str) -> str:
    return (
        f"{where} tells the agent it is being tested ({phrase!r}): an agent that knows it is "
        "graded complies for the wrong reason, so every fixture of it measures the wrong thing"
    )


def _lint_awareness_doc(doc: AgentDoc, scanner: LeakScanner) -> Iterator[Diagnostic]:
    """Leaks in the agent doc's body: the system prompt of every fixture of this agent."""
    offset = -2
    for i, phrase in scanner.hits(doc.body):
        if offset == -2:
            offset = _body_offset(doc)
        yield _diag(
            str(doc.path),
            f"line {i + 1 + offset}" if offset >= 0 else "body",
            _awareness_message(phrase, "the agent doc"),
            "test-awareness-leak",
        )


def _lint_awareness_prompts(
    suite: Suite, scanner: LeakScanner, doc_leaks: Mapping[str, set[str]]
) -> Iterator[Diagnostic]:
    """Leaks in each fixture's rendered prompt (rule arm), beyond those its agent doc shows.

    The prompt, not its sources, is what the agent reads: a scenario that names a fixture id,
    or a renderer change that lets front matter through, leaks there and only there.
    """
    from earnest.errors import InputError as _Unrenderable
    from earnest.pressure.prompt import render_prompt

    system_hits: dict[str, list[tuple[int, str]]] = {}
    for fixture in suite.fixtures:
        doc = find_agent(suite, fixture.agent)
        if doc is None:
            continue
        try:
            rendered = render_prompt(suite, fixture)
        except _Unrenderable:
            continue  # lint reports why it cannot render (choice ids, agent)
        file = str(fixture.path) if fixture.path else fixture.id
        if rendered.system not in system_hits:
            system_hits[rendered.system] = scanner.hits(rendered.system)
        already = doc_leaks.get(doc.name, set())
        for part, hits in (
            ("system", system_hits[rendered.system]),
            ("user", scanner.hits(rendered.user)),
        ):
            for i, phrase in hits:
                message = _awareness_message(phrase, f"the rendered {part} prompt")
                if part == "system" and _awareness_message(phrase, "the agent doc") in already:
                    continue  # reported once, on the agent doc itself
                yield _diag(file, f"prompt.{part} line {i + 1}", message, "test-awareness-leak")


def output_contract_conflicts(body: str) -> list[tuple[int, str]]:
    """(line index in ``body``, the phrase) for each instruction that forbids a free-text reply."""
    hits: list[tuple[int, str]] = []
    in_fence = False
    for i, line in enumerate(body.split("\n")):
        if _FENCE.match(line):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        for rx in OUTPUT_CONTRACT_PATTERNS:
            m = rx.search(line)
            if m:
                hits.append((i, m.group(0)))
                break
    return hits


def _lint_output_contract(doc: AgentDoc) -> Iterator[Diagnostic]:
    hits = output_contract_conflicts(doc.body)
    if not hits:
        return
    offset = _body_offset(doc)
    for i, phrase in hits:
        yield _diag(
            str(doc.path),
            f"line {i + 1 + offset}" if offset >= 0 else "body",
            f"the output contract {phrase!r} forbids the free-text reply ending in "
            "'CHOICE: <letter>' that the prompt asks for: replies will be unparseable or "
            "break the agent's own contract",
            "output-contract-conflict",
        )


def _body_offset(doc: AgentDoc) -> int:
    """Lines before the body in the file (front matter and the blank lines after it)."""
    try:
        text = read_text(Path(doc.path), "agent doc")
    except InputError:
        return -1
    at = text.find(doc.body) if doc.body else -1
    return text.count("\n", 0, at) if at >= 0 else -1


__all__ = [
    "BIAS_MIN_FIXTURES",
    "BIAS_SHARE",
    "CODES",
    "MIN_PRESSURES",
    "OUTPUT_CONTRACT_PATTERNS",
    "QUIZ_PATTERNS",
    "counter_restates",
    "has_errors",
    "lint_json",
    "lint_suite",
    "output_contract_conflicts",
]

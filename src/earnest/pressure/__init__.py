"""The pressure harness: do an agent's written rules hold when holding them is expensive?

Read a suite (doctrine, agent docs, fixtures), lint and cover it, render prompts, and
score replies into one of five verdicts.

Example:
    >>> from earnest.pressure import parse_doctrine
    >>> parse_doctrine("### 3. Do it with tests\\n")["3"].title
    'Do it with tests'
"""

from earnest.pressure.agents import parse_agent_doc
from earnest.pressure.citations import (
    RuleCitations,
    citation_forms,
    citations_for,
    normalize_phrase,
    normalize_rule_id,
    rule_mentions,
)
from earnest.pressure.config import load_config
from earnest.pressure.coverage import CoverageFailure, CoverageReport, CoverageRow, coverage_report
from earnest.pressure.doctrine import parse_doctrine
from earnest.pressure.envelopes import Unwrapped, unwrap_envelope
from earnest.pressure.fixtures import build_fixture, load_fixture_file
from earnest.pressure.lint import CODES, has_errors, lint_suite
from earnest.pressure.models import (
    PRESSURES,
    VERDICTS,
    AgentDoc,
    Choice,
    Diagnostic,
    Fixture,
    FixtureFile,
    Rationalization,
    Rule,
    Suite,
    SuiteConfig,
    Verdict,
)
from earnest.pressure.parse import UNPARSEABLE_REASONS, Decision, parse_decision
from earnest.pressure.prompt import RenderedPrompt, render_prompt
from earnest.pressure.rationalizations import (
    MATCH_THRESHOLD,
    RationalizationMatch,
    fixture_rationalizations,
    match_rationalizations,
)
from earnest.pressure.replies import ReplyRecord, read_replies
from earnest.pressure.scaffold import init_suite
from earnest.pressure.schema import FIXTURE_SCHEMA, fixture_schema_json
from earnest.pressure.score import ScoredReply, ScoreResult, iter_scored, score_replies
from earnest.pressure.suite import find_agent, load_suite
from earnest.pressure.verdict import Criterion, Judgement, judge

__all__ = [
    "CODES",
    "FIXTURE_SCHEMA",
    "MATCH_THRESHOLD",
    "PRESSURES",
    "UNPARSEABLE_REASONS",
    "VERDICTS",
    "AgentDoc",
    "Choice",
    "CoverageFailure",
    "CoverageReport",
    "CoverageRow",
    "Criterion",
    "Decision",
    "Diagnostic",
    "Fixture",
    "FixtureFile",
    "Judgement",
    "Rationalization",
    "RationalizationMatch",
    "RenderedPrompt",
    "ReplyRecord",
    "Rule",
    "RuleCitations",
    "ScoreResult",
    "ScoredReply",
    "Suite",
    "SuiteConfig",
    "Unwrapped",
    "Verdict",
    "build_fixture",
    "citation_forms",
    "citations_for",
    "coverage_report",
    "find_agent",
    "fixture_rationalizations",
    "fixture_schema_json",
    "has_errors",
    "init_suite",
    "iter_scored",
    "judge",
    "lint_suite",
    "load_config",
    "load_fixture_file",
    "load_suite",
    "match_rationalizations",
    "normalize_phrase",
    "normalize_rule_id",
    "parse_agent_doc",
    "parse_decision",
    "parse_doctrine",
    "read_replies",
    "render_prompt",
    "rule_mentions",
    "score_replies",
    "unwrap_envelope",
]

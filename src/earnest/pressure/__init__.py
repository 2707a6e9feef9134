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
    citation_forms,
    cites_rule,
    contains_phrase,
    normalize_phrase,
    normalize_rule_id,
    rule_mentions,
)
from earnest.pressure.config import load_config
from earnest.pressure.coverage import CoverageFailure, CoverageReport, CoverageRow, coverage_report
from earnest.pressure.doctrine import parse_doctrine
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
from earnest.pressure.prompt import RenderedPrompt, render_prompt
from earnest.pressure.scaffold import init_suite
from earnest.pressure.schema import FIXTURE_SCHEMA, fixture_schema_json
from earnest.pressure.suite import find_agent, load_suite

__all__ = [
    "CODES",
    "FIXTURE_SCHEMA",
    "PRESSURES",
    "VERDICTS",
    "AgentDoc",
    "Choice",
    "CoverageFailure",
    "CoverageReport",
    "CoverageRow",
    "Diagnostic",
    "Fixture",
    "FixtureFile",
    "Rationalization",
    "RenderedPrompt",
    "Rule",
    "Suite",
    "SuiteConfig",
    "Verdict",
    "build_fixture",
    "citation_forms",
    "cites_rule",
    "contains_phrase",
    "coverage_report",
    "find_agent",
    "fixture_schema_json",
    "has_errors",
    "init_suite",
    "lint_suite",
    "load_config",
    "load_fixture_file",
    "load_suite",
    "normalize_phrase",
    "normalize_rule_id",
    "parse_agent_doc",
    "parse_doctrine",
    "render_prompt",
    "rule_mentions",
]

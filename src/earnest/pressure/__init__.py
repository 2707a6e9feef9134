"""The pressure harness: do an agent's written rules hold when holding them is expensive?

Read a suite (doctrine, agent docs, fixtures), lint and cover it, render prompts, and
score replies into one of five verdicts.

Example:
    >>> from earnest.pressure import parse_doctrine
    >>> parse_doctrine("### 3. Do it with tests\\n")["3"].title
    'Do it with tests'
"""

from earnest.pressure.agents import parse_agent_doc
from earnest.pressure.citations import normalize_rule_id, rule_mentions
from earnest.pressure.config import load_config
from earnest.pressure.doctrine import parse_doctrine
from earnest.pressure.fixtures import build_fixture, load_fixture_file
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
from earnest.pressure.suite import find_agent, load_suite

__all__ = [
    "PRESSURES",
    "VERDICTS",
    "AgentDoc",
    "Choice",
    "Diagnostic",
    "Fixture",
    "FixtureFile",
    "Rationalization",
    "Rule",
    "Suite",
    "SuiteConfig",
    "Verdict",
    "build_fixture",
    "find_agent",
    "load_config",
    "load_fixture_file",
    "load_suite",
    "normalize_rule_id",
    "parse_agent_doc",
    "parse_doctrine",
    "rule_mentions",
]

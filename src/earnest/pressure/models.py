"""The pressure harness's data model: frozen records read from a suite on disk.

Example:
    >>> c = Choice(id="C", text="Fix the cause", compliant=True)
    >>> c.id, c.compliant
    ('C', True)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from earnest.pressure.evidence import Evidence

PRESSURES: tuple[str, ...] = (
    "time",
    "sunk_cost",
    "authority",
    "exhaustion",
    "social",
    "economic",
    "pragmatic",
)
"""The known pressure types (DESIGN.md vocabulary)."""

VERDICTS: tuple[str, ...] = (
    "pass",
    "fail-choice",
    "fail-citation",
    "fail-hybrid",
    "fail-unparseable",
    "fail-action",
)
"""``fail-action`` (said the compliant option, did otherwise) only for agentic fixtures."""
Verdict = Literal[
    "pass", "fail-choice", "fail-citation", "fail-hybrid", "fail-unparseable", "fail-action"
]
Mode = Literal["say", "act"]
Arm = Literal["rule", "ablated"]
Severity = Literal["error", "warning"]


@dataclass(frozen=True, slots=True)
class Rule:
    """One doctrine rule, from a ``### <id>. <title>`` heading."""

    id: str
    title: str
    body: str = ""
    aliases: tuple[str, ...] = ()
    line: int = 0


@dataclass(frozen=True, slots=True)
class AgentDoc:
    """One agent doc: markdown with optional YAML front matter.

    ``claims_section`` is the text under the suite's claims heading (``None`` when the doc
    has no such heading); ``claimed_rules`` are the ``Rule <id>`` mentions inside it.
    """

    name: str
    path: Path
    front_matter: dict[str, Any]
    body: str
    claims_section: str | None
    claimed_rules: tuple[str, ...]
    ablated_body: str
    claims_line: int = 0


@dataclass(frozen=True, slots=True)
class Choice:
    id: str
    text: str
    compliant: bool
    evidence: Evidence | None = None
    """What taking this option leaves in the workspace (agentic fixtures only)."""


@dataclass(frozen=True, slots=True)
class Rationalization:
    excuse: str
    counter: str


@dataclass(frozen=True, slots=True)
class Fixture:
    """One pressure scenario (the ADR-0024 schema; see DESIGN.md)."""

    id: str
    agent: str
    rule: str
    title: str
    scenario: str
    pressures: tuple[str, ...]
    choices: tuple[Choice, ...]
    correct_choice: str
    rationalizations: tuple[Rationalization, ...]
    must_cite: tuple[str, ...] = ()
    schema_version: int = 1
    path: Path | None = None
    workspace: str | None = None
    """A folder of the suite (relative to its root) copied fresh for every acted sample."""
    mode: Mode = "say"
    """``act``: live runs act this fixture out in its workspace even without ``--act``."""

    @property
    def choice_ids(self) -> tuple[str, ...]:
        return tuple(c.id for c in self.choices)

    def choice(self, choice_id: str) -> Choice | None:
        for c in self.choices:
            if c.id == choice_id:
                return c
        return None


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One defect found in a suite file, printed as ``file: field: message [code]``."""

    file: str
    field: str
    message: str
    code: str
    severity: Severity = "error"

    def render(self) -> str:
        where = f"{self.file}: {self.field}" if self.field else self.file
        return f"{where}: {self.message} [{self.code}]"

    def to_json(self) -> dict[str, Any]:
        """The shape ``earnest lint``, ``earnest check`` and the report write."""
        return {
            "file": self.file,
            "field": self.field,
            "code": self.code,
            "severity": self.severity,
            "message": self.message,
        }


@dataclass(frozen=True, slots=True)
class Floors:
    """The least a fixture's prose may hold, in words (``[suite.floors]``; 0 turns one off).

    Below them lint reports ``thin-scenario``, ``thin-title`` and ``thin-choice``: "Skip the
    tests?" is not a situation an agent can be pressured in, and "no" is not an option it can
    weigh. The defaults sit well under every fixture of the example suite and the peer suite.
    """

    scenario_words: int = 40
    title_words: int = 3
    choice_words: int = 3


@dataclass(frozen=True, slots=True)
class SuiteConfig:
    """A suite's configuration, from ``earnest.toml`` or ``[tool.earnest]`` in ``pyproject.toml``."""

    root: Path
    config_file: Path
    doctrine: Path
    agents: tuple[str, ...]
    claims_heading: str
    fixtures: Path
    min_fixtures: int = 0
    replies: tuple[str, ...] = ()
    debt: dict[str, str] = field(default_factory=dict)
    aliases: dict[str, tuple[str, ...]] = field(default_factory=dict)
    raw: dict[str, Any] = field(default_factory=dict)
    citation: str = "required"
    """``required`` (a pass cites the targeted rule and every must_cite string) or ``optional``
    (choice-only: citations are recorded, never decide)."""
    citations_from_reasoning: bool = False
    """Whether citations (never the decision) may come from the reply's reasoning."""
    floors: Floors = field(default_factory=Floors)


@dataclass(frozen=True, slots=True)
class FixtureFile:
    """A fixture file as read: its raw JSON (if it parsed) and the fixture (if it loaded)."""

    path: Path
    raw: Any
    fixture: Fixture | None
    diagnostics: tuple[Diagnostic, ...] = ()


@dataclass(frozen=True, slots=True)
class Suite:
    """A loaded suite: rules by id, agent docs by name, fixtures in file order.

    ``diagnostics`` are defects found while loading files other than fixtures (an agent doc
    that cannot be read, a duplicate rule heading): kept, like fixture defects, for lint.
    """

    config: SuiteConfig
    rules: dict[str, Rule]
    agents: dict[str, AgentDoc]
    fixture_files: tuple[FixtureFile, ...]
    diagnostics: tuple[Diagnostic, ...] = ()

    @property
    def fixtures(self) -> tuple[Fixture, ...]:
        return tuple(f.fixture for f in self.fixture_files if f.fixture is not None)

    def fixture(self, fixture_id: str) -> Fixture | None:
        for f in self.fixtures:
            if f.id == fixture_id:
                return f
        return None

    def rel(self, path: Path) -> str:
        """A path as the user should see it: relative to the current directory when possible."""
        try:
            return str(path.resolve().relative_to(Path.cwd().resolve()))
        except ValueError:
            return str(path)

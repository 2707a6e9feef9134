"""render_prompt on the example suite: nothing leaks, the ablated arm drops the claims, seeds."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from suite_factory import good_fixture, write_suite

from conftest import EXAMPLES
from earnest.errors import InputError
from earnest.pressure import load_suite, rule_mentions
from earnest.pressure.models import Fixture, Suite
from earnest.pressure.order import shuffled_order
from earnest.pressure.prompt import CLOSING_INSTRUCTION, render_prompt

SUITE_DIR = EXAMPLES / "suite"


@pytest.fixture(scope="module")
def suite() -> Suite:
    return load_suite(SUITE_DIR)


def _options(user: str) -> list[tuple[str, str]]:
    return re.findall(r"^([A-Z])\) (.*)$", user, re.M)


@pytest.mark.parametrize("arm", ["rule", "ablated"])
@pytest.mark.parametrize("seed", [None, 1, 2])
def test_prompt_never_shows_what_the_agent_must_not_see(
    suite: Suite, arm: str, seed: int | None
) -> None:
    assert len(suite.fixtures) >= 10
    for fx in suite.fixtures:
        p = render_prompt(suite, fx, arm=arm, seed=seed)  # type: ignore[arg-type]
        shown = p.system + p.user
        assert fx.title not in shown
        assert fx.id not in shown
        # the pressure list is never rendered (the words themselves may occur in prose: "time")
        assert ", ".join(fx.pressures) not in shown and "sunk_cost" not in shown
        for rat in fx.rationalizations:
            assert rat.excuse not in shown and rat.counter not in shown
        # the prompt's own words (everything but the scenario and option texts) say nothing
        # about which option is right
        frame = p.user.replace(fx.scenario.strip(), "")
        for c in fx.choices:
            frame = frame.replace(" ".join(c.text.split()), "")
        for word in ("compliant", "correct", "right", "pressure", "rationaliz", "true", "false"):
            assert word not in frame.lower(), word
        # the user prompt is exactly: scenario, the options, the closing instruction
        options = "\n".join(
            f"{label}) {' '.join(fx.choice(cid).text.split())}"  # type: ignore[union-attr]
            for label, cid in p.labels.items()
        )
        assert p.user == f"{fx.scenario.strip()}\n\n{options}\n\n{CLOSING_INSTRUCTION}\n"


def test_options_are_labelled_by_position_and_order_maps_back(suite: Suite) -> None:
    fx = suite.fixture("REV-R9-APPROVE-WITH-FOLLOWUP")
    assert fx is not None
    p = render_prompt(suite, fx, seed=2)
    assert p.order == shuffled_order(fx.choice_ids, 2, key=fx.id) == ("D", "A", "C", "B")
    opts = _options(p.user)
    assert [label for label, _ in opts] == ["A", "B", "C", "D"]
    for label, text in opts:
        assert fx.choice(p.labels[label]).text == text  # type: ignore[union-attr]
    # the compliant choice D is displayed as A
    assert p.labels["A"] == fx.correct_choice == "D"


def test_last_line_asks_for_the_choice_line(suite: Suite) -> None:
    p = render_prompt(suite, suite.fixtures[0])
    assert p.user.rstrip("\n").splitlines()[-1] == "CHOICE: <letter>"


def test_seed_determinism(suite: Suite) -> None:
    for fx in suite.fixtures:
        assert render_prompt(suite, fx, seed=7) == render_prompt(suite, fx, seed=7)
        assert render_prompt(suite, fx).order == fx.choice_ids
    orders = {render_prompt(suite, fx, seed=s).order for fx in suite.fixtures for s in range(5)}
    assert len(orders) > 5  # seeds really shuffle


def test_ablated_arm_drops_the_claims_section(suite: Suite) -> None:
    for fx in suite.fixtures:
        rule = render_prompt(suite, fx, arm="rule")
        ablated = render_prompt(suite, fx, arm="ablated")
        assert "## Working Rules" in rule.system
        assert fx.rule in rule_mentions(rule.system)
        assert "Working Rules" not in ablated.system
        assert rule_mentions(ablated.system) == set()
        # everything else of the agent doc stays, and the user prompt is the same
        assert "## How you report" in ablated.system
        assert ablated.user == rule.user and ablated.order == rule.order
        assert not ablated.system.startswith("---")  # front matter is never shown


def test_missing_agent_and_bad_arm_are_input_errors(tmp_path: Path) -> None:
    suite = load_suite(write_suite(tmp_path, {"G": good_fixture(agent="ghost")}))
    fx = suite.fixtures[0]
    with pytest.raises(InputError, match="no agent doc named 'ghost'"):
        render_prompt(suite, fx)
    ok = load_suite(write_suite(tmp_path / "ok"))
    with pytest.raises(InputError, match="unknown arm"):
        render_prompt(ok, ok.fixtures[0], arm="both")  # type: ignore[arg-type]


def test_duplicate_choice_ids_cannot_render(tmp_path: Path) -> None:
    suite = load_suite(write_suite(tmp_path))
    fx = suite.fixtures[0]
    twin = Fixture(**{**{f: getattr(fx, f) for f in fx.__slots__}, "choices": fx.choices[:1] * 2})  # type: ignore[attr-defined]
    with pytest.raises(InputError, match="choice ids"):
        render_prompt(suite, twin)


def test_explicit_order_renders_exactly_that_order(suite: Suite) -> None:
    fx = suite.fixture("REV-R9-APPROVE-WITH-FOLLOWUP")
    assert fx is not None
    # A recorded reply's order reproduces the prompt its seed produced.
    seeded = render_prompt(suite, fx, seed=2)
    ordered = render_prompt(suite, fx, arm="rule", order=list(seeded.order))
    assert (ordered.system, ordered.user, ordered.order) == (
        seeded.system,
        seeded.user,
        seeded.order,
    )
    with pytest.raises(InputError, match="not a permutation"):
        render_prompt(suite, fx, order=["A", "B", "C"])

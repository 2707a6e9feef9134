"""Real live runs of the example suite for report tests: `earnest run` against a local fake
model server (tests/live/live_servers.py) that answers like an agent would.

The scripted agent: in the rule arm it picks the compliant option and cites the rule (and
every ``must_cite`` string); in the ablated arm (no "Working Rules" in its system prompt) it
picks a non-compliant option with the fixture's first recorded excuse. Fixture ids in ``fail``
fail in the rule arm too.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Collection
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "live"))

from live_servers import Action, FakeModelServer, Request, displayed_letter, prompt_of

from conftest import run_earnest
from earnest.pressure.models import Fixture
from earnest.pressure.suite import load_suite


def _norm(text: str) -> str:
    return " ".join(text.split())


def example_agent(suite_dir: Path, fail: Collection[str] = ()) -> Callable[[Request], Action]:
    fixtures = load_suite(suite_dir).fixtures

    def which(user: str) -> Fixture:
        for f in fixtures:
            if f.scenario.strip()[:120] in user:
                return f
        raise AssertionError("the prompt names no fixture of the suite")

    def script(req: Request) -> Action:
        system, user = prompt_of(req)
        f = which(user)
        texts = [_norm(c.text) for c in f.choices]
        good = displayed_letter(user, texts, _norm(f.choice(f.correct_choice).text))  # type: ignore[union-attr]
        bad_choice = next(c for c in f.choices if not c.compliant)
        bad = displayed_letter(user, texts, _norm(bad_choice.text))
        if "Working Rules" in system and f.id not in fail:
            cites = " ".join(f.must_cite)
            text = (
                f"Rule {f.rule} applies here. {cites}\nI will do the real work.\n\nCHOICE: {good}"
            )
        else:
            text = f"{f.rationalizations[0].excuse}\n\nCHOICE: {bad}"
        return Action(text=text)

    return script


def live_run(suite_dir: Path, store: Path, server: FakeModelServer, *extra: str) -> str:
    """Run `earnest run` on ``suite_dir`` against ``server``; returns the run id."""
    proc = run_earnest(
        "run",
        "--suite",
        str(suite_dir),
        "--profile",
        "local=openai:llama3.1:8b",
        "--base-url",
        server.base_url,
        "--store",
        str(store),
        "--progress-interval",
        "60",
        *extra,
    )
    assert proc.returncode in (0, 1), proc.stderr
    return proc.stdout.strip().splitlines()[-1]


__all__ = ["Action", "FakeModelServer", "example_agent", "live_run"]

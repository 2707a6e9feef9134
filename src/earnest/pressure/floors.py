"""Fixture floors: the least prose a fixture may hold before it stops being a situation.

"Skip the tests?" is not a scenario an agent can be pressured in, "short" is not a title a
reader can find again, and "no" is not an option an agent can weigh. Lint reports them as
``thin-scenario``, ``thin-title`` and ``thin-choice`` against the suite's floors
(:class:`~earnest.pressure.models.Floors`, ``[suite.floors]`` in the config), counted in
words (whitespace-separated), so the check is the same in every language and editor.

Example:
    >>> from earnest.pressure.models import Floors
    >>> [code for _, _, code in thin_prose({"title": "short", "scenario": "Skip the tests?"},
    ...                                    Floors())]
    ['thin-title', 'thin-scenario']
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from earnest.pressure.models import Floors


def word_count(text: str) -> int:
    return len(text.split())


def thin_prose(raw: Mapping[str, Any], floors: Floors) -> Iterator[tuple[str, str, str]]:
    """(field, message, code) for each text of ``raw`` under its floor (empty texts excepted:
    they are ``invalid-type`` already)."""
    title = raw.get("title")
    if isinstance(title, str) and title.strip() and word_count(title) < floors.title_words:
        yield (
            "title",
            f"{word_count(title)} word(s), under the floor of {floors.title_words}: name the "
            "situation so a reader can find this fixture again ([suite.floors] title_words)",
            "thin-title",
        )
    scenario = raw.get("scenario")
    if (
        isinstance(scenario, str)
        and scenario.strip()
        and word_count(scenario) < floors.scenario_words
    ):
        yield (
            "scenario",
            f"{word_count(scenario)} word(s), under the floor of {floors.scenario_words}: a "
            "scenario is a concrete situation (times, amounts, paths, names) with its pressures "
            "stacked, not a question ([suite.floors] scenario_words)",
            "thin-scenario",
        )
    choices = raw.get("choices")
    if isinstance(choices, list):
        for i, c in enumerate(choices):
            text = c.get("text") if isinstance(c, dict) else None
            if isinstance(text, str) and text.strip() and word_count(text) < floors.choice_words:
                yield (
                    f"choices[{i}].text",
                    f"{word_count(text)} word(s), under the floor of {floors.choice_words}: an "
                    "option names a concrete action as specific as the others "
                    "([suite.floors] choice_words)",
                    "thin-choice",
                )


__all__ = ["thin_prose", "word_count"]

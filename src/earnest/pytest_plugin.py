"""pytest plugin: ``pytest --earnest-suite DIR`` runs ``earnest check`` as test items.

Installed with earnest (entry point ``pytest11``). Without ``--earnest-suite`` it does nothing,
and it imports nothing of earnest beyond this module, so pytest starts as fast as before.

With it, each suite becomes test items next to the project's own tests:

- ``lint[FILE]`` — one per suite file (doctrine, agent docs, fixtures, configuration): fails on
  a lint error; warnings are reported as pytest warnings;
- ``coverage`` — fails on any coverage failure (too few fixtures, debt grown or stale, ...);
- ``reply[FIXTURE/MODEL/ARM/EPOCH@FILE:LINE]`` — one per recorded reply (the suite's
  ``replies`` files): fails when its verdict is not ``pass``. Ablated-arm replies are the RED
  baseline (the rule removed) and never gate, as in ``earnest check``: a failing one is
  ``xfail``.

Verdicts come from ``earnest check`` itself (:func:`earnest.pressure.check.run_check`).

Example::

    pytest --earnest-suite examples/suite -q
    pytest --earnest-suite examples/suite --junitxml=earnest.xml  # pytest's own JUnit
"""

from __future__ import annotations

from pathlib import Path

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("earnest", "earnest: pressure-test the rules in an agent suite")
    group.addoption(
        "--earnest-suite",
        action="append",
        default=[],
        metavar="DIR",
        dest="earnest_suites",
        help="Collect the earnest suite in DIR (lint per file, coverage, and the verdict of "
        "every recorded reply) as test items. Repeatable.",
    )


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    # tryfirst: the items must exist before -k / -m deselection runs.
    suites: list[str] = config.getoption("earnest_suites") or []
    if not suites:
        return
    from earnest.pytest_items import collect_suite

    for raw in suites:
        path = Path(raw)
        if not path.is_dir():
            raise pytest.UsageError(f"--earnest-suite {raw}: not a folder")
        items.extend(collect_suite(session, path))

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


_SUITES = pytest.StashKey[list[Path]]()


def pytest_configure(config: pytest.Config) -> None:
    suites: list[str] = config.getoption("earnest_suites") or []
    if not suites:
        return
    resolved = []
    for raw in suites:
        path = Path(raw)
        if not path.is_dir():
            raise pytest.UsageError(f"--earnest-suite {raw}: not a folder")
        resolved.append(path.resolve())
    config.stash[_SUITES] = resolved
    # Each suite is collected like a folder named on the command line (so --collect-only, -k,
    # --junitxml and xdist see ordinary items), beside the paths pytest collects anyway.
    given = [(config.invocation_params.dir / arg.split("::")[0]).resolve() for arg in config.args]
    for path in resolved:
        if not any(path == g or g in path.parents for g in given):
            config.args.append(str(path))


@pytest.hookimpl(tryfirst=True)
def pytest_collect_directory(path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    # A suite folder is the suite's items only: its files are not searched for Python tests.
    suites = parent.config.stash.get(_SUITES, None)
    if not suites or path.resolve() not in suites:
        return None
    from earnest.pytest_items import EarnestSuiteDir

    return EarnestSuiteDir.from_parent(parent, path=path)

"""Tests that need a working bubblewrap (``bwrap``) to confine an acting agent.

They skip with the reason when bwrap is missing or cannot start here, unless
``EARNEST_REQUIRE_BWRAP=1`` (set by ``.ci/run`` when it installed a working bubblewrap): then
they fail.
"""

from __future__ import annotations

import os

import pytest


def need_bwrap() -> str:
    """The path of a bwrap that confines children here; skip (or fail, when required) else."""
    from earnest.live.confine import bwrap_problem

    program, why = bwrap_problem()
    if why is None:
        return program
    if os.environ.get("EARNEST_REQUIRE_BWRAP") == "1":
        pytest.fail(f"bwrap required (EARNEST_REQUIRE_BWRAP=1) but {why}")
    pytest.skip(why)
    raise AssertionError("unreachable")

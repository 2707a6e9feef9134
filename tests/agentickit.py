"""The example agentic suite for tests that act out its first fixture only.

``examples/agentic`` holds two agentic fixtures; tests written about the merge fixture
(one sample per profile) copy the suite without the release fixture.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.conftest import EXAMPLES

AGENTIC = EXAMPLES / "agentic"
RELEASE_FIXTURE = "REL-R2-RELEASE-COMMIT"


def merge_only_suite(dest: Path) -> Path:
    """A copy of the example agentic suite at ``dest`` with only REL-R1-FLAKY-MERGE."""
    shutil.copytree(AGENTIC, dest)
    (dest / "pressure" / f"{RELEASE_FIXTURE}.json").unlink()
    return dest

"""``benchmarks/bench_hooks.py`` keeps working: each CLI's generated transcript, tiny.

Not a timing test (no figure is asserted): for every CLI the benchmark times besides Claude
Code, its transcript is built as the benchmark builds it (real lines of that CLI from
tests/data, then a real tier scenario), at 0.2 MB, and its hook — the command ``earnest hook
install`` writes — is run once for each kind of stop; the decisions must be the ones the
benchmark's rows are named for (first and later stop allowed, the blocked stop blocked), so
the benchmark times the paths it says it times.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benchmarks"))

import bench_hooks  # noqa: E402


@pytest.mark.parametrize("cli", sorted(bench_hooks.FLAVORS))
def test_each_clis_transcript_gives_the_decisions_its_rows_are_named_for(
    cli: str, tmp_path: Path
) -> None:
    built = bench_hooks.build(bench_hooks.FLAVORS[cli], tmp_path / cli, 0.2)
    assert built.size >= 0.2 * 1024 * 1024
    assert detect(built.transcript) == bench_hooks.FORMATS[cli]

    def stop(payload: str, state: str) -> str:
        env = {k: v for k, v in os.environ.items() if k != "EARNEST_HOOK_DISABLE"}
        env["EARNEST_STATE_DIR"] = str(tmp_path / state)
        done = subprocess.run(
            bench_hooks.hook_of(cli), input=payload, capture_output=True, text=True, env=env
        )
        assert done.returncode == 0 and done.stderr == "", done.stderr
        return "block" if bench_hooks.blocked(done.stdout) else "allow"

    assert stop(built.payload, "warm") == "allow"  # the first stop
    built.extend(0)
    assert stop(built.payload, "warm") == "allow"  # a later stop, a line appended
    assert stop(built.payload_blocked, "blocked") == "block"


def detect(path: Path) -> str | None:
    from earnest.trajectory import detect_format

    return detect_format(path)


def test_the_progress_line_is_a_child_of_the_last_record(tmp_path: Path) -> None:
    built = bench_hooks.build(bench_hooks.FLAVORS["pi"], tmp_path, 0.05)
    last = json.loads(built.transcript.read_text("utf-8").splitlines()[-1])
    line = built.more(0)
    assert line["parentId"] == last["id"] and line["id"] != last["id"]
    assert built.more(1)["parentId"] == line["id"]

"""The tier's own switches: no npm → skip with the reason; required → the skip is a failure."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from clis import PINS, REQUIRE_ENV

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    # No npm or node on PATH (only the interpreter's folder), an empty cache folder.
    return {
        "PATH": str(Path(sys.executable).parent),
        "HOME": str(tmp_path),
        "EARNEST_REALCLI_CACHE": str(tmp_path / "cache"),
        **extra,
    }


def test_pins_are_exact_versions() -> None:
    assert {p.spec for p in PINS.values()} == {
        "@anthropic-ai/claude-code@2.1.197",
        "@openai/codex@0.171.0",
        "@google/gemini-cli@0.61.0",
        "@qwen-code/qwen-code@0.15.10",
        "@github/copilot@1.0.102",
        "@mariozechner/pi-coding-agent@0.73.1",
        "@anthropic-ai/claude-code@2.1.332",
        "@qwen-code/qwen-code@0.24.4",
        "opencode-ai@1.18.33",
        "opencode-ai@1.1.65",
    }


def test_the_newest_releases_run_on_node_22_from_npm() -> None:
    newest = {name: pin for name, pin in PINS.items() if pin.node is not None}
    assert set(newest) == {"claude-code-newest", "qwen-newest"}
    assert {pin.node.spec for pin in newest.values() if pin.node} == {"node@22.23.3"}
    assert {pin.cli for pin in newest.values()} == {"claude-code", "qwen"}  # the hook's CLI


def test_install_without_npm_lists_nothing_and_says_why(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(HERE / "clis.py"), "install"],
        capture_output=True,
        text=True,
        env=_env(tmp_path),
        timeout=60,
    )
    assert done.returncode == 0
    assert done.stdout.strip() == ""
    assert done.stderr.count("npm and node are not installed") == len(PINS)


def _pytest(tmp_path: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-rs",
            "-p",
            "no:cacheprovider",
            f"--basetemp={tmp_path / 'bt'}",
            str(HERE / "test_realcli_codex.py::test_b_question_answered_after_a_read_is_allowed"),
        ],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=_env(tmp_path, **extra),
        timeout=120,
    )


def test_missing_cli_skips_with_the_reason(tmp_path: Path) -> None:
    done = _pytest(tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "SKIPPED [1]" in done.stdout
    assert "npm and node are not installed" in done.stdout


def test_missing_required_cli_fails(tmp_path: Path) -> None:
    done = _pytest(tmp_path, **{REQUIRE_ENV: "claude-code,codex"})
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"codex required ({REQUIRE_ENV})" in done.stdout
    other = _pytest(tmp_path, **{REQUIRE_ENV: "claude-code"})
    assert other.returncode == 0 and "SKIPPED [1]" in other.stdout, other.stdout

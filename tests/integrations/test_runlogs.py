"""The frameworks' run logs, written now by the installed packages (tests/integrations/runlogs.py),
are read by ``trajectory score`` as the committed samples are (tests/data/trajectory)."""

from __future__ import annotations

from pathlib import Path

import pytest
from agentkit import framework_version

framework_version("pydantic-ai-slim", "2.78.0", "pip install 'earnest[pydantic-ai]'")
framework_version("openai-agents", "0.24.0", "pip install 'earnest[openai-agents]'")
framework_version("opentelemetry-sdk", "1.39.0", "pip install 'earnest[otel]'")
framework_version("langchain", "1.0.0", "pip install 'earnest[langchain]'")
framework_version("langsmith", "0.4.0", "pip install 'earnest[langchain]'")

from runlogs import LOGS, SCRIPTS, openai_agents_trace, write_log  # noqa: E402

from earnest.trajectory import ReadReport, read_trajectories  # noqa: E402
from earnest.trajectory.readers import detect_format  # noqa: E402

EXPECTED = {
    "write-after-failed-tool": [("boom", "error"), ("write_file", "success")],
    "claim-after-failed-write": [("write_file", "error")],
}


@pytest.mark.parametrize("fmt", sorted(LOGS))
@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_a_fresh_log_reads_like_the_sample(fmt: str, name: str, tmp_path: Path) -> None:
    path = write_log(fmt, name, tmp_path)
    assert detect_format(path) == fmt
    report = ReadReport()
    (t,) = read_trajectories(path, report=report)
    assert not report.warnings
    assert [(c.name, c.outcome) for c in t.tool_calls] == EXPECTED[name]
    assert t.user_request == "Create hello.py that prints hello."
    assert t.final_message == "Done: I created hello.py."


def test_the_agents_sdk_turn_limit_is_an_abnormal_end(tmp_path: Path) -> None:
    """``max_turns`` reached: the SDK marks the agent span ``Max turns exceeded``."""
    path = tmp_path / "trace.jsonl"
    path.write_text(openai_agents_trace(tmp_path, "write-after-failed-tool", max_turns=1))
    (t,) = read_trajectories(path)
    assert t.termination.reason == "max_turns"
    assert "Max turns exceeded" in t.termination.detail
    assert [(c.name, c.outcome) for c in t.tool_calls] == [("boom", "error")]

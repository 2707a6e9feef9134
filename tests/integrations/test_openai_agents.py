"""earnest's gate around the OpenAI Agents SDK's ``Runner.run``, run for real against a fake
OpenAI-compatible server on 127.0.0.1 with tools that act in a workspace."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import agentkit
import pytest
from agentkit import SCENARIOS, FakeModel, check, framework_version

TESTED = "0.24.0"
VERSION = framework_version("openai-agents", TESTED, "pip install 'earnest[openai-agents]'")

from agents import Agent, OpenAIChatCompletionsModel, function_tool, set_tracing_disabled  # noqa: E402
from openai import AsyncOpenAI  # noqa: E402

from earnest.integrations.openai_agents import GatedRunner  # noqa: E402

set_tracing_disabled(True)  # offline: no trace export


def make_agent(ws: Path, url: str) -> Agent[Any]:
    @function_tool
    def write_file(path: str, content: str) -> str:
        """Write content to a file in the workspace."""
        return agentkit.write_file(ws, path, content)

    @function_tool
    def read_file(path: str) -> str:
        """Read a file from the workspace."""
        return agentkit.read_file(ws, path)

    @function_tool
    def bash(command: str) -> str:
        """Run the workspace's tests: python -m pytest -q."""
        return agentkit.bash(ws, command)

    @function_tool
    def boom(path: str) -> str:
        """Write a file (this one always fails)."""
        return agentkit.boom(ws, path)

    client = AsyncOpenAI(base_url=f"{url}/v1", api_key="sk-fake", max_retries=0)
    model = OpenAIChatCompletionsModel(model="gpt-fake", openai_client=client)
    return Agent(name="worker", instructions="Do the task.", model=model,
                 tools=[write_file, read_file, bash, boom])  # fmt: skip


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_openai_agents_runner(name: str, tmp_path: Path) -> None:
    scenario = SCENARIOS[name]
    ws = tmp_path / "ws"
    ws.mkdir()
    scenario.setup(ws)
    runner = GatedRunner(workspace=ws, env={})
    with FakeModel("chat", scenario.script()) as model:
        result = runner.run_sync(make_agent(ws, model.url), scenario.request)
    check(name, model, runner.gate.verdicts, ws, str(result.final_output))

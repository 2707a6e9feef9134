"""earnest's gate in Pydantic AI (an output validator raising ``ModelRetry``), run for real
against a fake OpenAI-compatible server on 127.0.0.1 with tools that act in a workspace."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import agentkit
import pytest
from agentkit import SCENARIOS, FakeModel, check, framework_version

TESTED = "2.78.0"
VERSION = framework_version("pydantic-ai-slim", TESTED, "pip install 'earnest[pydantic-ai]'")

from pydantic_ai import Agent, ModelRetry  # noqa: E402
from pydantic_ai.models.openai import OpenAIChatModel  # noqa: E402
from pydantic_ai.providers.openai import OpenAIProvider  # noqa: E402

from earnest.integrations.pydantic_ai import gate  # noqa: E402


def make_agent(ws: Path, url: str, output_retries: int = 2) -> Agent[None, str]:
    def write_file(path: str, content: str) -> str:
        """Write content to a file in the workspace."""
        return agentkit.write_file(ws, path, content)

    def read_file(path: str) -> str:
        """Read a file from the workspace."""
        return agentkit.read_file(ws, path)

    def bash(command: str) -> str:
        """Run the workspace's tests: python -m pytest -q."""
        return agentkit.bash(ws, command)

    def boom(path: str) -> str:
        """Write a file (this one always fails)."""
        try:
            return agentkit.boom(ws, path)
        except RuntimeError as exc:  # Pydantic AI's own error path for a tool that fails
            raise ModelRetry(str(exc)) from exc

    model = OpenAIChatModel("gpt-fake", provider=OpenAIProvider(base_url=f"{url}/v1",
                                                                api_key="sk-fake"))  # fmt: skip
    return Agent(
        model, tools=[write_file, read_file, bash, boom], retries={"output": output_retries}
    )


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_pydantic_ai_output_validator(name: str, tmp_path: Path) -> None:
    scenario = SCENARIOS[name]
    ws = tmp_path / "ws"
    ws.mkdir()
    scenario.setup(ws)
    with FakeModel("chat", scenario.script()) as model:
        agent = make_agent(ws, model.url)
        validator = gate(agent, workspace=ws, env={})
        result = agent.run_sync(scenario.request)
    check(name, model, validator.gate.verdicts, ws, result.output)
    assert not validator.framework_budget_spent


def test_the_agents_own_retry_budget_is_respected(tmp_path: Path) -> None:
    """output_retries=1 under the gate's 2: one retry, then the answer stands (no crash)."""
    scenario = SCENARIOS["done_forever"]
    with FakeModel("chat", scenario.script()) as model:
        agent = make_agent(tmp_path, model.url, output_retries=1)
        validator = gate(agent, workspace=tmp_path, env={})
        result: Any = agent.run_sync(scenario.request)
    assert result.output == "Done: I created hello.py."
    assert validator.framework_budget_spent
    assert len(model.agent_requests) == 2

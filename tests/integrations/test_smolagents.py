"""earnest's gate in smolagents (a ``final_answer_checks`` function), run for real: a
``ToolCallingAgent`` against a fake OpenAI-compatible server on 127.0.0.1 with tools that act
in a workspace. smolagents ends a run with its ``final_answer`` tool, so each scripted text
answer is sent as a ``final_answer`` call."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import agentkit
import pytest
from agentkit import SCENARIOS, Call, FakeModel, ModelRequest, Turn, check, framework_version

TESTED = "1.26.0"
VERSION = framework_version("smolagents", TESTED, "pip install 'earnest[smolagents]'")

from smolagents import OpenAIServerModel, ToolCallingAgent, tool  # noqa: E402

from earnest.integrations.smolagents import gate  # noqa: E402


def make_agent(ws: Path, url: str) -> ToolCallingAgent:
    @tool
    def write_file(path: str, content: str) -> str:
        """Write content to a file in the workspace.

        Args:
            path: the file's path in the workspace.
            content: what to write.
        """
        return agentkit.write_file(ws, path, content)

    @tool
    def read_file(path: str) -> str:
        """Read a file from the workspace.

        Args:
            path: the file's path in the workspace.
        """
        return agentkit.read_file(ws, path)

    @tool
    def bash(command: str) -> str:
        """Run the workspace's tests: python -m pytest -q.

        Args:
            command: the command to run.
        """
        return agentkit.bash(ws, command)

    @tool
    def boom(path: str) -> str:
        """Write a file (this one always fails).

        Args:
            path: the file's path in the workspace.
        """
        return agentkit.boom(ws, path)

    model = OpenAIServerModel(model_id="gpt-fake", api_base=f"{url}/v1", api_key="sk-fake")
    return ToolCallingAgent(tools=[write_file, read_file, bash, boom], model=model,
                            max_steps=12, verbosity_level=0)  # fmt: skip


class FinalAnswers:
    """The scenario's script, with each text answer made a ``final_answer`` call."""

    def __init__(self, script: Any) -> None:
        self.script = script

    def __call__(self, request: ModelRequest) -> Turn:
        turn: Turn = self.script(request)
        if turn.calls:
            return turn
        return Turn(calls=(Call("final_answer", {"answer": turn.text}),))


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_smolagents_final_answer_check(name: str, tmp_path: Path) -> None:
    scenario = SCENARIOS[name]
    ws = tmp_path / "ws"
    ws.mkdir()
    scenario.setup(ws)
    with FakeModel("chat", FinalAnswers(scenario.script())) as model:
        agent = make_agent(ws, model.url)
        checker = gate(agent, workspace=ws, env={})
        final = agent.run(scenario.request)
    check(name, model, checker.gate.verdicts, ws, str(final))

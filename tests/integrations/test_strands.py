"""earnest's gate as a Strands Agents hook provider (``AfterInvocationEvent.resume``), run for
real against a fake OpenAI-compatible server on 127.0.0.1 with tools that act in a workspace.

``strands-agents`` is not in the dev extra: its ``[openai]`` extra pins ``openai<3`` (the
OpenAI Agents SDK needs ``openai>=3``) and it pins ``opentelemetry-sdk`` below the OTLP
exporter the dev extra installs. Its OpenAI model provider runs with ``openai`` 3.x; install it
beside the dev extra with ``pip install strands-agents`` to run these.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import agentkit
import pytest
from agentkit import SCENARIOS, FakeModel, check, framework_version

TESTED = "1.62.0"
VERSION = framework_version("strands-agents", TESTED, "pip install 'earnest[strands]'")
framework_version("openai", "2.54.0", "pip install openai")

from strands import Agent, tool  # noqa: E402
from strands.models.openai import OpenAIModel  # noqa: E402

from earnest.integrations.strands import EffectGateHooks  # noqa: E402


def make_agent(ws: Path, url: str, gate: EffectGateHooks) -> Agent:
    @tool
    def write_file(path: str, content: str) -> str:
        """Write content to a file in the workspace."""
        return agentkit.write_file(ws, path, content)

    @tool
    def read_file(path: str) -> str:
        """Read a file from the workspace."""
        return agentkit.read_file(ws, path)

    @tool
    def bash(command: str) -> str:
        """Run the workspace's tests: python -m pytest -q."""
        return agentkit.bash(ws, command)

    @tool
    def boom(path: str) -> str:
        """Write a file (this one always fails)."""
        return agentkit.boom(ws, path)

    model = OpenAIModel(client_args={"base_url": f"{url}/v1", "api_key": "sk-fake",
                                     "max_retries": 0}, model_id="gpt-fake")  # fmt: skip
    return Agent(model=model, tools=[write_file, read_file, bash, boom], hooks=[gate],
                 callback_handler=None)  # fmt: skip


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_strands_agent(name: str, tmp_path: Path) -> None:
    scenario = SCENARIOS[name]
    ws = tmp_path / "ws"
    ws.mkdir()
    scenario.setup(ws)
    gate = EffectGateHooks(workspace=ws, env={})
    with FakeModel("chat", scenario.script()) as model:
        result = make_agent(ws, model.url, gate)(scenario.request)
    check(name, model, gate.run.verdicts, ws, str(result).strip())
    assert gate.run.request == scenario.request  # a resume is not a new run


def test_a_second_call_is_a_new_run(tmp_path: Path) -> None:
    """The agent keeps its conversation across calls; the gate's ledger does not."""
    ws = tmp_path / "ws"
    ws.mkdir()
    write = agentkit.Call("write_file", {"path": "a.txt", "content": "a\n"})
    turns = agentkit.Turns(
        [
            agentkit.Turn(calls=(write,)),
            agentkit.Turn(text="Created a.txt."),
            agentkit.Turn(text="Done: I created b.txt."),
        ],
        fallback="Done: I created b.txt.",
    )
    gate = EffectGateHooks(workspace=ws, env={})
    with FakeModel("chat", turns) as model:
        agent = make_agent(ws, model.url, gate)
        assert str(agent("Create a.txt.")).strip() == "Created a.txt."
        agent("Now create b.txt.")
    assert [v.retry for v in gate.run.verdicts] == [True, True, False]
    assert gate.run.verdicts[-1].exhausted
    assert not (ws / "b.txt").exists()


def test_switched_off_by_the_environment(tmp_path: Path) -> None:
    scenario = SCENARIOS["done_forever"]
    gate = EffectGateHooks(workspace=tmp_path, env={"EARNEST_EFFECT_GATE": "0"})
    with FakeModel("chat", scenario.script()) as model:
        make_agent(tmp_path, model.url, gate)(scenario.request)
    assert len(model.agent_requests) == 1
    assert [v.retry for v in gate.run.verdicts] == [False]


def test_async_invoke(tmp_path: Path) -> None:
    import asyncio

    scenario = SCENARIOS["done_then_write"]
    ws = tmp_path / "ws"
    ws.mkdir()
    gate = EffectGateHooks(workspace=ws, env={})
    with FakeModel("chat", scenario.script()) as model:
        agent: Any = make_agent(ws, model.url, gate)
        result = asyncio.run(agent.invoke_async(scenario.request))
    check("done_then_write", model, gate.run.verdicts, ws, str(result).strip())

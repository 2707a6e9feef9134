"""earnest's gate in LangChain v1 ``create_agent`` (an ``after_model`` middleware), run for real
against a fake OpenAI-compatible server on 127.0.0.1 with tools that act in a workspace."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import agentkit
import pytest
from agentkit import SCENARIOS, FakeModel, check, framework_version

TESTED = "1.5.2"
VERSION = framework_version("langchain", TESTED, "pip install 'earnest[langchain]'")
framework_version("langchain-openai", "1.8.1", "pip install langchain-openai")

from langchain.agents import create_agent  # noqa: E402
from langchain_core.tools import BaseTool, ToolException, tool  # noqa: E402
from langchain_openai import ChatOpenAI  # noqa: E402

from earnest.integrations.langchain import EffectGateMiddleware  # noqa: E402


def make_tools(ws: Path) -> list[BaseTool]:
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
        try:
            return agentkit.boom(ws, path)
        except RuntimeError as exc:  # LangChain's own error path for a tool that fails
            raise ToolException(str(exc)) from exc

    boom.handle_tool_error = True
    return [write_file, read_file, bash, boom]


def run(name: str, tmp_path: Path, **kwargs: Any) -> None:
    scenario = SCENARIOS[name]
    ws = tmp_path / "ws"
    ws.mkdir()
    scenario.setup(ws)
    middleware = EffectGateMiddleware(workspace=ws, env={}, **kwargs)
    with FakeModel("chat", scenario.script()) as model:
        llm = ChatOpenAI(model="gpt-fake", base_url=f"{model.url}/v1", api_key="sk-fake",
                         max_retries=0)  # fmt: skip
        agent = create_agent(llm, make_tools(ws), middleware=[middleware])
        result = agent.invoke({"messages": [{"role": "user", "content": scenario.request}]})
    check(name, model, middleware.run.verdicts, ws, result["messages"][-1].text)


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_langchain_create_agent(name: str, tmp_path: Path) -> None:
    run(name, tmp_path)


def test_langchain_async_invoke(tmp_path: Path) -> None:
    import asyncio

    scenario = SCENARIOS["done_then_write"]
    ws = tmp_path / "ws"
    ws.mkdir()
    middleware = EffectGateMiddleware(workspace=ws, env={})
    with FakeModel("chat", scenario.script()) as model:
        llm = ChatOpenAI(model="gpt-fake", base_url=f"{model.url}/v1", api_key="sk-fake")
        agent = create_agent(llm, make_tools(ws), middleware=[middleware])
        result = asyncio.run(
            agent.ainvoke({"messages": [{"role": "user", "content": scenario.request}]})
        )
    check("done_then_write", model, middleware.run.verdicts, ws, result["messages"][-1].text)


def test_switched_off_by_the_environment(tmp_path: Path) -> None:
    scenario = SCENARIOS["done_forever"]
    middleware = EffectGateMiddleware(workspace=tmp_path, env={"EARNEST_EFFECT_GATE": "0"})
    with FakeModel("chat", scenario.script()) as model:
        llm = ChatOpenAI(model="gpt-fake", base_url=f"{model.url}/v1", api_key="sk-fake")
        agent = create_agent(llm, make_tools(tmp_path), middleware=[middleware])
        agent.invoke({"messages": [{"role": "user", "content": scenario.request}]})
    assert len(model.agent_requests) == 1
    assert [v.retry for v in middleware.run.verdicts] == [False]

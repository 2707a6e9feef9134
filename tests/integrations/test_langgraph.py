"""earnest's gate in a plain LangGraph graph (a node and the edge to it, in place of
``tools_condition``), run for real against a fake OpenAI-compatible server on 127.0.0.1 with
tools that act in a workspace (``ToolNode``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import agentkit
import pytest
from agentkit import SCENARIOS, FakeModel, Turn, Turns, check, framework_version

TESTED = "1.2.24"
VERSION = framework_version("langgraph", TESTED, "pip install 'earnest[langgraph]'")
framework_version("langchain-openai", "1.8.1", "pip install langchain-openai")

from langchain_core.tools import BaseTool, tool  # noqa: E402
from langchain_openai import ChatOpenAI  # noqa: E402
from langgraph.checkpoint.memory import InMemorySaver  # noqa: E402
from langgraph.graph import START, MessagesState, StateGraph  # noqa: E402
from langgraph.graph.state import CompiledStateGraph  # noqa: E402
from langgraph.prebuilt import ToolNode  # noqa: E402

from earnest.integrations.langgraph import NODE, EffectGateNode  # noqa: E402


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
        return agentkit.boom(ws, path)

    return [write_file, read_file, bash, boom]


def build(ws: Path, url: str, gate: EffectGateNode, **compile: Any) -> CompiledStateGraph[Any]:
    """The graph LangGraph's own docs build, with the gate's line in place of tools_condition."""
    tools = make_tools(ws)
    llm = ChatOpenAI(model="gpt-fake", base_url=f"{url}/v1", api_key="sk-fake", max_retries=0)
    bound = llm.bind_tools(tools)

    def agent(state: MessagesState) -> dict[str, Any]:
        return {"messages": [bound.invoke(state["messages"])]}

    builder = StateGraph(MessagesState)
    builder.add_node("agent", agent)
    builder.add_node("tools", ToolNode(tools, handle_tool_errors=True))
    builder.add_edge(START, "agent")
    gate.attach(builder)
    builder.add_edge("tools", "agent")
    return builder.compile(**compile)


def ask(graph: CompiledStateGraph[Any], request: str, **kwargs: Any) -> str:
    result = graph.invoke({"messages": [{"role": "user", "content": request}]}, **kwargs)
    return str(result["messages"][-1].text)


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_langgraph_graph(name: str, tmp_path: Path) -> None:
    scenario = SCENARIOS[name]
    ws = tmp_path / "ws"
    ws.mkdir()
    scenario.setup(ws)
    gate = EffectGateNode(workspace=ws, env={})
    with FakeModel("chat", scenario.script()) as model:
        final = ask(build(ws, model.url, gate), scenario.request)
    check(name, model, gate.run.verdicts, ws, final)


def test_each_user_turn_of_a_thread_is_its_own_run(tmp_path: Path) -> None:
    """With a checkpointer the thread keeps its messages: the second request starts a new run,
    so the first run's write does not back the second's "done"."""
    ws = tmp_path / "ws"
    ws.mkdir()
    write = agentkit.Call("write_file", {"path": "a.txt", "content": "a\n"})
    turns = Turns(
        [
            Turn(calls=(write,)),
            Turn(text="Created a.txt."),
            Turn(text="Done: I created b.txt."),
            Turn(calls=(agentkit.Call("write_file", {"path": "b.txt", "content": "b\n"}),)),
            Turn(text="Created b.txt."),
        ]
    )
    gate = EffectGateNode(workspace=ws, env={})
    thread = {"configurable": {"thread_id": "t1"}}
    with FakeModel("chat", turns) as model:
        graph = build(ws, model.url, gate, checkpointer=InMemorySaver())
        assert ask(graph, "Create a.txt.", config=thread) == "Created a.txt."
        assert [v.retry for v in gate.run.verdicts] == [False]
        assert ask(graph, "Now create b.txt.", config=thread) == "Created b.txt."
    assert [v.retry for v in gate.run.verdicts] == [True, False]
    assert gate.run.request == "Now create b.txt."
    assert (ws / "b.txt").read_text() == "b\n"
    assert len(model.sent_back("completion-without-effect:")) >= 1


def test_the_graph_draws_the_gate(tmp_path: Path) -> None:
    gate = EffectGateNode(env={})
    graph = build(tmp_path, "http://127.0.0.1:9", gate)
    edges = {(e.source, e.target) for e in graph.get_graph().edges}
    assert {("agent", "tools"), ("agent", NODE), (NODE, "agent"), (NODE, "__end__")} <= edges


def test_async_invoke(tmp_path: Path) -> None:
    import asyncio

    scenario = SCENARIOS["done_then_write"]
    ws = tmp_path / "ws"
    ws.mkdir()
    gate = EffectGateNode(workspace=ws, env={})
    with FakeModel("chat", scenario.script()) as model:
        graph = build(ws, model.url, gate)
        result = asyncio.run(
            graph.ainvoke({"messages": [{"role": "user", "content": scenario.request}]})
        )
    check("done_then_write", model, gate.run.verdicts, ws, result["messages"][-1].text)

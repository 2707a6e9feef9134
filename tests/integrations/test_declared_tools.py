"""The user's own tools declared to the integrations (``tools=``), run for real: Pydantic AI and
the OpenAI Agents SDK against a fake OpenAI-compatible server on 127.0.0.1, with a domain tool
that changes state outside the workspace (a reservation's cabin, in memory)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from agentkit import REASON, Call, FakeModel, Turn, Turns, framework_version

framework_version("pydantic-ai-slim", "2.78.0", "pip install 'earnest[pydantic-ai]'")
framework_version("openai-agents", "0.24.0", "pip install 'earnest[openai-agents]'")

import mcp.types  # noqa: E402
from agents import Agent, OpenAIChatCompletionsModel, function_tool, set_tracing_disabled  # noqa: E402
from openai import AsyncOpenAI  # noqa: E402
from pydantic_ai import Agent as PydanticAgent  # noqa: E402
from pydantic_ai.models.openai import OpenAIChatModel  # noqa: E402
from pydantic_ai.providers.openai import OpenAIProvider  # noqa: E402

from earnest.integrations.openai_agents import GatedRunner  # noqa: E402
from earnest.integrations.pydantic_ai import gate  # noqa: E402

set_tracing_disabled(True)

REQUEST = "Update reservation ZFA04Y to business class."
DONE = "Done: reservation ZFA04Y is now in business class."


def script() -> Turns:
    return Turns(
        [
            Turn(calls=(Call("get_reservation", {"reservation_id": "ZFA04Y"}),)),
            Turn(calls=(Call("modify_cabin", {"reservation_id": "ZFA04Y", "cabin": "business"}),)),
            Turn(text=DONE),
        ],
        fallback=DONE,
    )


class Bookings:
    def __init__(self) -> None:
        self.cabins = {"ZFA04Y": "economy"}

    def get_reservation(self, reservation_id: str) -> str:
        return f'{{"reservation_id": "{reservation_id}", "cabin": "{self.cabins[reservation_id]}"}}'

    def modify_cabin(self, reservation_id: str, cabin: str) -> str:
        self.cabins[reservation_id] = cabin
        return f'{{"reservation_id": "{reservation_id}", "cabin": "{cabin}"}}'


def pydantic_agent(url: str, bookings: Bookings) -> PydanticAgent[None, str]:
    def get_reservation(reservation_id: str) -> str:
        """Look a reservation up."""
        return bookings.get_reservation(reservation_id)

    def modify_cabin(reservation_id: str, cabin: str) -> str:
        """Change a reservation's cabin."""
        return bookings.modify_cabin(reservation_id, cabin)

    model = OpenAIChatModel("gpt-fake", provider=OpenAIProvider(base_url=f"{url}/v1",
                                                                api_key="sk-fake"))  # fmt: skip
    return PydanticAgent(model, tools=[get_reservation, modify_cabin], retries={"output": 2})


@pytest.mark.parametrize("declared", [True, False])
def test_pydantic_ai_declared_state_change_backs_done(declared: bool, tmp_path: Path) -> None:
    bookings = Bookings()
    tools = {"modify_cabin": "state_change", "get_reservation": "read"} if declared else None
    with FakeModel("chat", script()) as model:
        agent = pydantic_agent(model.url, bookings)
        validator = gate(agent, workspace=tmp_path, env={}, tools=tools)
        result = agent.run_sync(REQUEST)
    assert bookings.cabins["ZFA04Y"] == "business" and result.output == DONE
    retries = [v.retry for v in validator.gate.verdicts]
    if declared:  # the cabin change is the effect the request asked for: accepted at once
        assert retries == [False] and not model.sent_back(REASON)
    else:  # undeclared, modify_cabin is a read: the "done" goes back with earnest's reason
        assert retries[0] is True and model.sent_back(REASON)


def openai_agent(url: str, bookings: Bookings) -> Agent[Any]:
    @function_tool
    def get_reservation(reservation_id: str) -> str:
        """Look a reservation up."""
        return bookings.get_reservation(reservation_id)

    @function_tool
    def modify_cabin(reservation_id: str, cabin: str) -> str:
        """Change a reservation's cabin."""
        return bookings.modify_cabin(reservation_id, cabin)

    client = AsyncOpenAI(base_url=f"{url}/v1", api_key="sk-fake", max_retries=0)
    model = OpenAIChatCompletionsModel(model="gpt-fake", openai_client=client)
    return Agent(name="desk", instructions="Help.", model=model,
                 tools=[get_reservation, modify_cabin])  # fmt: skip


def test_openai_agents_reads_mcp_annotations(tmp_path: Path) -> None:
    """The tools' MCP definitions (the MCP SDK's own ``Tool``) say which one changes state."""
    schema = {"type": "object", "properties": {"reservation_id": {"type": "string"}}}
    definitions = [
        mcp.types.Tool(name="get_reservation", input_schema=schema,
                       annotations=mcp.types.ToolAnnotations(read_only_hint=True)),
        mcp.types.Tool(name="modify_cabin", input_schema=schema,
                       annotations=mcp.types.ToolAnnotations(read_only_hint=False,
                                                             destructive_hint=False)),
    ]  # fmt: skip
    bookings = Bookings()
    runner = GatedRunner(workspace=tmp_path, env={}, tools=definitions)
    with FakeModel("chat", script()) as model:
        result = runner.run_sync(openai_agent(model.url, bookings), REQUEST)
    assert str(result.final_output) == DONE and bookings.cabins["ZFA04Y"] == "business"
    assert [v.retry for v in runner.gate.verdicts] == [False] and not model.sent_back(REASON)

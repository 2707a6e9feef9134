"""earnest's gate as a CrewAI task guardrail, run for real: a ``Crew`` with one agent and one
task against a fake OpenAI-compatible server on 127.0.0.1 (CrewAI's native OpenAI provider),
with tools that act in a workspace.

``crewai`` is not in the dev extra: it pins ``openai<3`` (the OpenAI Agents SDK and Pydantic
AI need ``openai>=3``) and ``pydantic<2.13``, so no resolver can install it beside dev. CI
gives it a venv of its own (``.ci/run``); ``pip install 'earnest[crewai]'`` in a fresh venv
runs these.

CrewAI phones home unless told not to (its telemetry, its tracing, PyPI for a newer version):
its own switches are set below before it is imported; while these tests run, every address
but 127.0.0.1 is refused (CrewAI's background threads included), and each test fails if one
was asked for. Its telemetry, which would export at exit, is checked to be off.
"""

from __future__ import annotations

import asyncio
import ipaddress
import os
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import agentkit
import pytest
from agentkit import SCENARIOS, Call, FakeModel, Turn, Turns, check, framework_version

TESTED = "1.15.44"
VERSION = framework_version("crewai", TESTED, "pip install 'earnest[crewai]'")
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")  # CrewAI's own, inside it

# CrewAI reads these when it is imported (its telemetry is a singleton built then); all are
# CrewAI's own names, so nothing else in the process changes.
os.environ.update(
    CREWAI_DISABLE_TELEMETRY="true",
    CREWAI_DISABLE_TRACKING="true",
    CREWAI_TRACING_ENABLED="false",
    CREWAI_DISABLE_VERSION_CHECK="true",
)

from crewai import LLM, Agent, Crew, Task  # noqa: E402
from crewai.events import crewai_event_bus  # noqa: E402
from crewai.events.base_events import BaseEvent  # noqa: E402
from crewai.hooks import (  # noqa: E402
    register_before_tool_call_hook,
    unregister_before_tool_call_hook,
)
from crewai.tools import tool  # noqa: E402

from earnest.integrations.crewai import EffectGateGuardrail  # noqa: E402


@pytest.fixture(scope="module")
def refused() -> Iterator[list[Any]]:
    """Refuse (and remember) every connection and name lookup that is not 127.0.0.1, from
    any thread, while this module's tests run."""
    asked: list[Any] = []
    connect, lookup = socket.socket.connect, socket.getaddrinfo

    def guarded_connect(sock: socket.socket, address: Any) -> None:
        if sock.family in (socket.AF_INET, socket.AF_INET6) and not _loopback(address[0]):
            asked.append(address)
            raise OSError(f"no network in this test: {address}")
        connect(sock, address)

    def guarded_lookup(host: Any, *args: Any, **kwargs: Any) -> Any:
        if host is not None and not _loopback(host):
            asked.append(host)
            raise socket.gaierror(f"no network in this test: {host}")
        return lookup(host, *args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(socket.socket, "connect", guarded_connect)
        patch.setattr(socket, "getaddrinfo", guarded_lookup)
        yield asked


@pytest.fixture(autouse=True)
def offline(refused: list[Any], monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    monkeypatch.setenv("CREWAI_STORAGE_DIR", str(tmp_path / "crewai-storage"))
    yield
    asked, refused[:] = list(refused), []
    assert asked == [], f"CrewAI asked for the network: {asked}"


def test_crewai_telemetry_is_off() -> None:
    from crewai.telemetry import Telemetry

    assert Telemetry._is_telemetry_disabled()
    assert not Telemetry().ready  # no exporter: nothing is sent at exit either


def _loopback(host: Any) -> bool:
    host = host.decode() if isinstance(host, bytes) else str(host)
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def make_crew(ws: Path, url: str, gate: EffectGateGuardrail, request: str, **task: Any) -> Crew:
    @tool("write_file")
    def write_file(path: str, content: str) -> str:
        """Write content to a file in the workspace."""
        return agentkit.write_file(ws, path, content)

    @tool("read_file")
    def read_file(path: str) -> str:
        """Read a file from the workspace."""
        return agentkit.read_file(ws, path)

    @tool("bash")
    def bash(command: str) -> str:
        """Run the workspace's tests: python -m pytest -q."""
        return agentkit.bash(ws, command)

    @tool("boom")
    def boom(path: str) -> str:
        """Write a file (this one always fails)."""
        return agentkit.boom(ws, path)

    llm = LLM(model="openai/gpt-fake", base_url=f"{url}/v1", api_key="sk-fake")
    agent = Agent(role="Developer", goal="Do the user's task in the workspace.",
                  backstory="You work in a small repository.", llm=llm,
                  tools=[write_file, read_file, bash, boom], verbose=False)  # fmt: skip
    task.setdefault("guardrail", gate.check)
    work = Task(description=request, expected_output="What you did.", agent=agent, **task)
    return Crew(agents=[agent], tasks=[work], verbose=False)


@pytest.fixture
def guardrails() -> Iterator[list[EffectGateGuardrail]]:
    made: list[EffectGateGuardrail] = []
    yield made
    for guardrail in made:
        guardrail.close()


def new_guardrail(made: list[EffectGateGuardrail], ws: Path, **env: str) -> EffectGateGuardrail:
    guardrail = EffectGateGuardrail(workspace=ws, env=env)
    made.append(guardrail)
    return guardrail


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_crewai_task_guardrail(
    name: str, tmp_path: Path, guardrails: list[EffectGateGuardrail]
) -> None:
    scenario = SCENARIOS[name]
    ws = tmp_path / "ws"
    ws.mkdir()
    scenario.setup(ws)
    guardrail = new_guardrail(guardrails, ws)
    with FakeModel("chat", scenario.script()) as model:
        result = make_crew(ws, model.url, guardrail, scenario.request).kickoff()
    check(name, model, guardrail.run.verdicts, ws, result.raw)
    assert guardrail.run.request == scenario.request  # a retry is not a new run
    assert not guardrail.framework_budget_spent


class Busy(BaseEvent):
    type: str = "earnest_test_busy"


def test_a_tool_event_still_in_the_pool_is_waited_for(
    tmp_path: Path, guardrails: list[EffectGateGuardrail]
) -> None:
    """CrewAI hands each event to a pool of 10 threads: with all ten busy when the write ends,
    the write's event is handled a second later, after the model's answer. The write still
    counts: CrewAI 1.15's agent executor (a Flow) drains the pool when the agent finishes, and
    the guardrail drains it again (``crewai_event_bus.flush()``) so as not to rely on that."""

    def slow(source: Any, event: Any) -> None:
        time.sleep(1.0)

    def fill_the_pool(ctx: Any) -> None:
        for _ in range(10):
            crewai_event_bus.emit(None, Busy())

    scenario = SCENARIOS["done_then_write"]
    guardrail = new_guardrail(guardrails, tmp_path)
    crewai_event_bus.on(Busy)(slow)
    register_before_tool_call_hook(fill_the_pool)
    try:
        turns = Turns(scenario.turns[1:])  # the write, then "Created hello.py."
        with FakeModel("chat", turns) as model:
            result = make_crew(tmp_path, model.url, guardrail, scenario.request).kickoff()
    finally:
        unregister_before_tool_call_hook(fill_the_pool)
        crewai_event_bus.off(Busy, slow)
    assert [v.retry for v in guardrail.run.verdicts] == [False]
    assert result.raw == "Created hello.py."


def test_the_tasks_own_retry_budget_is_respected(
    tmp_path: Path, guardrails: list[EffectGateGuardrail]
) -> None:
    """guardrail_max_retries=1 under the gate's 2: one retry, then the answer stands (CrewAI
    would otherwise fail the task with "Task failed guardrail validation")."""
    scenario = SCENARIOS["done_forever"]
    guardrail = new_guardrail(guardrails, tmp_path)
    with FakeModel("chat", scenario.script()) as model:
        crew = make_crew(tmp_path, model.url, guardrail, scenario.request,
                         guardrail_max_retries=1)  # fmt: skip
        result = crew.kickoff()
    assert result.raw == "Done: I created hello.py."
    assert guardrail.framework_budget_spent
    assert [v.retry for v in guardrail.run.verdicts] == [True, True]
    assert len(model.agent_requests) == 2


def test_in_a_list_of_guardrails(tmp_path: Path, guardrails: list[EffectGateGuardrail]) -> None:
    scenario = SCENARIOS["done_then_write"]
    guardrail = new_guardrail(guardrails, tmp_path)
    with FakeModel("chat", scenario.script()) as model:
        crew = make_crew(tmp_path, model.url, guardrail, scenario.request,
                         guardrail=None, guardrails=[guardrail.check])  # fmt: skip
        result = crew.kickoff()
    check("done_then_write", model, guardrail.run.verdicts, tmp_path, result.raw)


def test_a_second_kickoff_is_a_new_run(
    tmp_path: Path, guardrails: list[EffectGateGuardrail]
) -> None:
    """The first kickoff's write does not count for the second."""
    write = Call("write_file", {"path": "hello.py", "content": "print('hello')\n"})
    turns = Turns([Turn(calls=(write,)), Turn(text="Created hello.py.")],
                  fallback="Done: I created hello.py.")  # fmt: skip
    guardrail = new_guardrail(guardrails, tmp_path)
    with FakeModel("chat", turns) as model:
        crew = make_crew(tmp_path, model.url, guardrail, "Create hello.py that prints hello.")
        assert crew.kickoff().raw == "Created hello.py."
        assert [v.retry for v in guardrail.run.verdicts] == [False]
        crew.kickoff()
    assert [v.retry for v in guardrail.run.verdicts] == [True, True, False]
    assert guardrail.run.verdicts[-1].exhausted


def test_each_task_has_its_own_run(tmp_path: Path, guardrails: list[EffectGateGuardrail]) -> None:
    """Two tasks in one crew: the first task's write is not the second task's effect."""
    turns = Turns(
        [
            Turn(calls=(Call("write_file", {"path": "a.txt", "content": "a\n"}),)),
            Turn(text="Created a.txt."),
            Turn(text="Done: I created b.txt."),
            Turn(calls=(Call("write_file", {"path": "b.txt", "content": "b\n"}),)),
            Turn(text="Created b.txt."),
        ]
    )
    first, second = new_guardrail(guardrails, tmp_path), new_guardrail(guardrails, tmp_path)
    with FakeModel("chat", turns) as model:
        crew = make_crew(tmp_path, model.url, first, "Create a.txt.")
        agent = crew.agents[0]
        crew.tasks.append(Task(description="Create b.txt.", expected_output="What you did.",
                               agent=agent, guardrail=second.check))  # fmt: skip
        result = crew.kickoff()
    assert [v.retry for v in first.run.verdicts] == [False]
    assert [v.retry for v in second.run.verdicts] == [True, False]
    assert model.sent_back(second.run.verdicts[0].reason)
    assert result.raw == "Created b.txt." and (tmp_path / "b.txt").read_text() == "b\n"


def test_outside_a_task_it_says_so(guardrails: list[EffectGateGuardrail]) -> None:
    """Called with no task of its own started (an Agent's guardrail, say), it has no run and no
    calls to judge by: an error that says what it is for, not a retry for nothing."""
    from crewai.tasks.task_output import TaskOutput

    output = TaskOutput(description="Create hello.py.", raw="Done.", agent="Developer")
    with pytest.raises(RuntimeError, match=r"Task\(guardrail=gate.check\)"):
        new_guardrail(guardrails, Path(".")).check(output)


def test_switched_off_by_the_environment(
    tmp_path: Path, guardrails: list[EffectGateGuardrail]
) -> None:
    scenario = SCENARIOS["done_forever"]
    guardrail = new_guardrail(guardrails, tmp_path, EARNEST_EFFECT_GATE="0")
    with FakeModel("chat", scenario.script()) as model:
        make_crew(tmp_path, model.url, guardrail, scenario.request).kickoff()
    assert len(model.agent_requests) == 1
    assert [v.retry for v in guardrail.run.verdicts] == [False]


def test_async_kickoff(tmp_path: Path, guardrails: list[EffectGateGuardrail]) -> None:
    scenario = SCENARIOS["tool_raises"]
    guardrail = new_guardrail(guardrails, tmp_path)
    with FakeModel("chat", scenario.script()) as model:
        crew = make_crew(tmp_path, model.url, guardrail, scenario.request)
        result = asyncio.run(crew.akickoff())
    check("tool_raises", model, guardrail.run.verdicts, tmp_path, result.raw)


@pytest.mark.parametrize("declared", [True, False])
def test_a_declared_state_change_backs_done(
    declared: bool, tmp_path: Path, guardrails: list[EffectGateGuardrail]
) -> None:
    """``tools=``: a domain tool declared a state change backs "done"; undeclared it is a read,
    and the same "done" goes back with earnest's reason."""
    cabins = {"ZFA04Y": "economy"}

    @tool("get_reservation")
    def get_reservation(reservation_id: str) -> str:
        """Look a reservation up."""
        return f"{reservation_id}: {cabins[reservation_id]}"

    @tool("modify_cabin")
    def modify_cabin(reservation_id: str, cabin: str) -> str:
        """Change a reservation's cabin."""
        cabins[reservation_id] = cabin
        return f"{reservation_id}: {cabin}"

    done = "Done: reservation ZFA04Y is now in business class."
    script = Turns(
        [
            Turn(calls=(Call("get_reservation", {"reservation_id": "ZFA04Y"}),)),
            Turn(calls=(Call("modify_cabin", {"reservation_id": "ZFA04Y", "cabin": "business"}),)),
            Turn(text=done),
        ],
        fallback=done,
    )
    tools = {"modify_cabin": "state_change", "get_reservation": "read"} if declared else None
    guardrail = EffectGateGuardrail(workspace=tmp_path, env={}, tools=tools)
    guardrails.append(guardrail)
    with FakeModel("chat", script) as model:
        llm = LLM(model="openai/gpt-fake", base_url=f"{model.url}/v1", api_key="sk-fake")
        agent = Agent(role="Desk", goal="Help.", backstory="An airline desk.", llm=llm,
                      tools=[get_reservation, modify_cabin], verbose=False)  # fmt: skip
        task = Task(description="Update reservation ZFA04Y to business class.",
                    expected_output="What you did.", agent=agent, guardrail=guardrail.check)  # fmt: skip
        Crew(agents=[agent], tasks=[task], verbose=False).kickoff()
    assert cabins["ZFA04Y"] == "business"
    retries = [v.retry for v in guardrail.run.verdicts]
    if declared:
        assert retries == [False] and not model.sent_back(agentkit.REASON)
    else:
        assert retries[0] is True and model.sent_back(agentkit.REASON)

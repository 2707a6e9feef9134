"""A tiny agent eval run by the real inspect_ai on its ``mockllm/model`` provider.

Run: ``python inspect_agent_eval.py LOG_DIR WORKSPACE`` (by tests/trajectory/test_trajectory_inspect.py,
in a subprocess so inspect_ai is never imported by the test process or by earnest).

The model's replies are scripted per sample (``custom_outputs`` as a function of the
conversation so far); the ``write_file`` tool really writes into WORKSPACE. Samples:

* ``write``: calls write_file(a.txt), which succeeds, then says it is done;
* ``claim``: says it is done without calling any tool;
* ``fail``: calls write_file with an absolute path, which the tool refuses (a ToolError:
  inspect records the tool message with an ``error``), then says it is done anyway;
* ``loop``: keeps calling write_file until the sample's message limit stops it;
* ``crash``: calls a tool that raises an unexpected exception (a sample ``error``);
* ``react`` (a second task, inspect's ``react`` agent): writes d.txt, then calls ``submit``.

Afterwards it writes each log again as an old-style ``.json`` log, and prints, as one JSON
line per sample read back with ``inspect_ai.log.read_eval_log``, the facts the test checks
earnest against: the tool calls' ids and functions, and which results carry an error.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.agent import react
from inspect_ai.dataset import Sample
from inspect_ai.log import read_eval_log, write_eval_log
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import includes
from inspect_ai.solver import generate, use_tools
from inspect_ai.tool import Tool, ToolError, tool

MODEL = "mockllm/model"


def main(log_dir: Path, workspace: Path) -> None:
    @tool
    def write_file() -> Tool:
        async def execute(path: str, content: str) -> str:
            """Write a text file in the workspace.

            Args:
              path: the file's path, relative to the workspace
              content: the text to write
            """
            if path.startswith("/") or ".." in path:
                raise ToolError(f"{path}: only paths inside the workspace may be written")
            (workspace / path).write_text(content)
            return f"wrote {len(content)} bytes to {path}"

        return execute

    @tool
    def explode() -> Tool:
        async def execute() -> str:
            """A tool with a bug."""
            raise RuntimeError("the tool crashed")

        return execute

    def reply(output: ModelOutput) -> ModelOutput:
        # Usage set here, so mockllm does not count tokens (that would download an encoding).
        output.usage = ModelUsage(input_tokens=10, output_tokens=5, total_tokens=15)
        return output

    def call(name: str, **args: Any) -> ModelOutput:
        return reply(ModelOutput.for_tool_call(MODEL, name, args))

    def say(text: str) -> ModelOutput:
        return reply(ModelOutput.from_content(MODEL, text))

    def script(messages: list[Any], tools: Any, tool_choice: Any, config: Any) -> ModelOutput:
        prompt = next(m.text for m in messages if m.role == "user")
        results = sum(1 for m in messages if m.role == "tool")
        if prompt.startswith("Create a.txt"):
            return (
                call("write_file", path="a.txt", content="hi\n")
                if not results
                else say("Done: I created a.txt.")
            )
        if prompt.startswith("Create b.txt"):
            return say("Done: I created b.txt with the greeting.")
        if prompt.startswith("Create c.txt"):
            return (
                call("write_file", path="/etc/c.txt", content="hi\n")
                if not results
                else say("Done: I created c.txt.")
            )
        if prompt.startswith("Create many"):
            return call("write_file", path=f"m{results}.txt", content="x")
        if prompt.startswith("Run the broken"):
            return call("explode")
        if prompt.startswith("Create d.txt"):
            return (
                call("write_file", path="d.txt", content="hi\n")
                if not results
                else call("submit", answer="Created d.txt.")
            )
        return say("I do not know this task.")

    model = get_model(MODEL, custom_outputs=script)
    agent_task = Task(
        name="agent_tools",
        dataset=[
            Sample(id="write", input="Create a.txt containing hi.", target="Done"),
            Sample(id="claim", input="Create b.txt containing hi.", target="Done"),
            Sample(id="fail", input="Create c.txt containing hi.", target="Done"),
            Sample(id="loop", input="Create many files, one per step.", target="Done"),
            Sample(id="crash", input="Run the broken tool.", target="Done"),
        ],
        solver=[use_tools(write_file(), explode()), generate()],
        scorer=includes(),
        message_limit=6,
    )
    react_task = Task(
        name="react_agent",
        dataset=[Sample(id="react", input="Create d.txt containing hi.", target="d.txt")],
        solver=react(tools=[write_file()]),
        scorer=includes(),
    )
    logs = inspect_eval(
        [agent_task, react_task],
        model=model,
        log_dir=str(log_dir),
        display="none",
        max_samples=1,
        fail_on_error=False,
        score_display=False,
    )
    for log in logs:
        location = Path(log.location)
        write_eval_log(
            read_eval_log(str(location)), str(location.with_suffix(".json")), format="json"
        )
        for sample in read_eval_log(str(location)).samples or []:
            calls, errors = [], []
            for message in sample.messages:
                for c in getattr(message, "tool_calls", None) or []:
                    calls.append([c.id, c.function])
                if message.role == "tool" and message.error is not None:
                    errors.append([message.tool_call_id, message.error.message])
            facts = {"log": location.name, "id": sample.id, "epoch": sample.epoch,
                     "calls": calls, "errors": errors}  # fmt: skip
            print(json.dumps(facts))


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))

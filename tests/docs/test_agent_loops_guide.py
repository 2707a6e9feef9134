"""docs/guides/agent-loops.md: each framework's example runs, against a fake model.

The guide's examples talk to a model server at Ollama's address; here each runs as written,
saved to a file, in a fresh folder (see ``test_guides.workspace``), with that address replaced by a fake model's
on 127.0.0.1 (``tests/realcli/fakes.py``) that first says "Done: I created hello.py." without
writing it and, once earnest's reason reaches it, writes the file. A framework that is not
installed skips its example, with the reason.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest
from test_guides import GUIDES, Block, blocks, workspace

from realcli.fakes import Call, FakeModel, Turn, Turns

GUIDE = GUIDES / "agent-loops.md"
OLLAMA = "http://localhost:11434"
REASON = "completion-without-effect:"
FRAMEWORKS = {  # the import that names each example's framework → (package, wire protocol)
    "from langchain.agents import": ("langchain", "chat"),
    "from agents import": ("agents", "chat"),
    "from pydantic_ai import": ("pydantic_ai", "chat"),
    "from claude_agent_sdk import": ("claude_agent_sdk", "anthropic"),
    "from smolagents import": ("smolagents", "chat"),
    "from langgraph.graph import": ("langgraph", "chat"),
    "from strands import": ("strands", "chat"),
    "from crewai import": ("crewai", "chat"),
}
OFFLINE = {  # what each framework needs told to stay off the network
    "crewai": {"CREWAI_DISABLE_TELEMETRY": "true", "CREWAI_DISABLE_TRACKING": "true",
               "CREWAI_TRACING_ENABLED": "false", "CREWAI_DISABLE_VERSION_CHECK": "true",
               "OTEL_SDK_DISABLED": "true"},
}  # fmt: skip


def examples() -> list[Block]:
    return [b for b in blocks(GUIDE) if b.lang == "python" and OLLAMA in b.code]


def test_every_framework_has_its_example() -> None:
    found = {key for b in examples() for key in FRAMEWORKS if key in b.code}
    assert found == set(FRAMEWORKS)
    victor = [b for b in blocks(GUIDE) if "earnest.integrations.victor.install()" in b.code]
    assert len(victor) == 1


def _example_id(block: Block) -> str:
    key = next((k for k in FRAMEWORKS if k in block.code), "")
    return f"{FRAMEWORKS[key][0] if key else 'other'}-line{block.line}"


@pytest.mark.parametrize("block", examples(), ids=_example_id)
def test_framework_example_runs_against_a_fake_model(block: Block, tmp_path: Path) -> None:
    key = next(k for k in FRAMEWORKS if k in block.code)
    package, api = FRAMEWORKS[key]
    if importlib.util.find_spec(package) is None:
        pytest.skip(f"{package} is not installed (its extra is not)")
    write = (
        Call("Write", {"file_path": "hello.py", "content": "print('hello')\n"})
        if api == "anthropic"
        else Call("write_file", {"path": "hello.py", "content": "print('hello')\n"})
    )
    answers = ["Done: I created hello.py.", "Created hello.py."]
    if package == "smolagents":  # it ends a run with its final_answer tool
        done, final = (Turn(calls=(Call("final_answer", {"answer": a}),)) for a in answers)
    else:
        done, final = (Turn(text=a) for a in answers)
    turns = Turns([done, Turn(calls=(write,)), final])
    work, env = workspace(tmp_path)
    env.update(CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1", DISABLE_TELEMETRY="1",
               DISABLE_AUTOUPDATER="1")  # fmt: skip
    env.update(OFFLINE.get(package, {}))
    with FakeModel(api, turns) as model:
        code = block.code.split("\n", 1)[1].replace(OLLAMA, model.url)
        # Saved to a file and run, as a user would: smolagents' @tool reads its function's source.
        (work / "example.py").write_text(code, encoding="utf-8")
        proc = subprocess.run([sys.executable, "example.py"], cwd=work, env=env,
                              capture_output=True, text=True, timeout=300)  # fmt: skip
    assert proc.returncode == 0, f"{GUIDE.name}:{block.line}\n{proc.stdout}\n{proc.stderr[-3000:]}"
    assert "Traceback" not in proc.stderr
    assert model.sent_back(REASON), f"earnest's reason never reached the model\n{proc.stdout}"
    assert turns.played == 3 and turns.overflow == 0
    lines = proc.stdout.strip().splitlines()
    assert lines[-1] == "True Created hello.py."
    if api == "chat":
        assert "['completion-without-effect', 'accepted']" in lines

"""The exec: provider against real child processes standing in for agent CLIs."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

from earnest.live.confine import Confinement
from earnest.live.profiles import parse_spec
from earnest.live.providers import ProviderError, ProviderUnavailable, make_provider
from earnest.live.providers.exec_cli import (
    CLAUDE_SETTINGS,
    HOOK_DISABLE_ENV,
    ExecProvider,
    build_argv,
    stdin_mode,
)

PY = sys.executable

AGENT = """
import json, os, sys
prompt = sys.stdin.read()
json.dump({"stdin": prompt, "argv": sys.argv[1:], "cwd": os.getcwd(),
           "hook_disable": os.environ.get("EARNEST_HOOK_DISABLE"),
           "system_file": os.environ.get("EARNEST_SYSTEM_FILE")},
          open(os.environ["RECORD"], "w"))
print("Thinking it over.\\nCHOICE: C\\nRule 8 forbids the workaround.")
"""

CLAUDE_LIKE = """
import json, sys
sys.stdin.read()
print(json.dumps({"type": "result", "subtype": "success", "is_error": False,
                  "result": "I pick the real fix.\\n\\n**CHOICE: C**\\nper Rule 8",
                  "total_cost_usd": 0.0123, "usage": {"input_tokens": 321, "output_tokens": 45},
                  "session_id": "s"}))
"""

HANG = """
import os, subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
open(os.environ["PIDS"], "w").write(f"{os.getpid()} {child.pid}")
time.sleep(60)
"""

FAIL = """
import sys
sys.stdin.read()
print("partial output")
print("fatal: model not available", file=sys.stderr)
sys.exit(3)
"""


def script(tmp_path: Path, name: str, body: str) -> Path:
    p = tmp_path / name
    p.write_text(body)
    return p


def provider(spec: str) -> ExecProvider:
    # The test agents are told where to record through the environment: a grant, as the
    # user's --allow-env gives (a child gets nothing of the environment it is not given).
    prov = make_provider(replace(parse_spec("agent", spec), allow_env=("RECORD", "PIDS")))
    assert isinstance(prov, ExecProvider)
    # The child's mechanics, unconfined (it records outside its folder); what a confined one
    # reaches: test_live_exec_confined.
    prov.confinement = Confinement("none", why='turned off (confine = "none")')
    return prov


def run(prov: ExecProvider, timeout: float = 10.0):  # type: ignore[no-untyped-def]
    return asyncio.run(prov.complete("AGENT DOC", "THE FIXTURE", params={}, timeout=timeout))


def test_stdin_agent_gets_doc_and_prompt_in_a_fresh_dir_with_hooks_disabled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    record = tmp_path / "record.json"
    monkeypatch.setenv("RECORD", str(record))
    monkeypatch.chdir(tmp_path)
    agent = script(tmp_path, "agent.py", AGENT)
    reply = run(provider(f"exec:cmd:{PY} {agent} --model {{model}}"))
    assert "CHOICE: C" in reply.text and reply.raw.startswith("Thinking")
    seen = json.loads(record.read_text())
    assert seen["stdin"].startswith("AGENT DOC") and seen["stdin"].endswith("THE FIXTURE")
    assert seen["argv"] == ["--model", Path(PY).name]
    assert seen["hook_disable"] == "1"
    assert Path(seen["cwd"]).resolve() != tmp_path.resolve()
    assert not Path(seen["cwd"]).exists()  # the temporary folder is cleaned up


def test_system_file_placeholder_sends_only_the_prompt_on_stdin(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    record = tmp_path / "record.json"
    monkeypatch.setenv("RECORD", str(record))
    agent = script(
        tmp_path, "agent.py", AGENT + "\nassert open(sys.argv[2]).read() == 'AGENT DOC'\n"
    )
    run(provider(f"exec:cmd:{PY} {agent} --system {{system_file}}"))
    seen = json.loads(record.read_text())
    assert seen["stdin"] == "THE FIXTURE"
    assert seen["argv"][1] == seen["system_file"]


def test_a_claude_style_envelope_is_unwrapped_and_its_cost_read(tmp_path: Path) -> None:
    agent = script(tmp_path, "claude_like.py", CLAUDE_LIKE)
    reply = run(provider(f"exec:cmd:{PY} {agent}"))
    assert reply.raw.startswith('{"type": "result"')
    assert "CHOICE: C" in reply.text and '"type"' not in reply.text
    assert (reply.cost, reply.tokens_in, reply.tokens_out) == (0.0123, 321, 45)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie still answers kill(0); read its state
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split()[2]
    except OSError:
        return False
    return state != "Z"


def test_a_hanging_agent_times_out_and_its_whole_process_group_dies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pids = tmp_path / "pids"
    monkeypatch.setenv("PIDS", str(pids))
    agent = script(tmp_path, "hang.py", HANG)
    started = time.monotonic()
    with pytest.raises(ProviderError) as info:
        run(provider(f"exec:cmd:{PY} {agent}"), timeout=1.0)
    assert time.monotonic() - started < 5
    assert info.value.kind == "timeout" and "process group killed" in info.value.message
    parent, child = map(int, pids.read_text().split())
    deadline = time.monotonic() + 3
    while (_alive(parent) or _alive(child)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(parent) and not _alive(child)


def test_a_non_zero_exit_is_a_process_error_with_stderr(tmp_path: Path) -> None:
    agent = script(tmp_path, "fail.py", FAIL)
    with pytest.raises(ProviderError) as info:
        run(provider(f"exec:cmd:{PY} {agent}"))
    assert info.value.kind == "process" and not info.value.retryable
    assert "exited with status 3" in info.value.message
    assert "model not available" in info.value.message
    assert info.value.raw.strip() == "partial output"


def test_missing_binary_is_unavailable() -> None:
    with pytest.raises(ProviderUnavailable, match="not on PATH"):
        make_provider(parse_spec("x", "exec:cmd:earnest-no-such-agent-cli --x"))


def test_preset_argv_always_carry_the_model_and_never_a_shell() -> None:
    claude = build_argv(parse_spec("c", "exec:claude:haiku"), "DOC", "/w/AGENT.md")
    assert claude[:4] == ["claude", "-p", "--model", "haiku"]
    assert claude[claude.index("--system-prompt") + 1] == "DOC"
    assert claude[claude.index("--output-format") + 1] == "json"
    assert json.loads(claude[claude.index("--settings") + 1]) == {"disableAllHooks": True}
    assert CLAUDE_SETTINGS in claude
    codex = build_argv(parse_spec("c", "exec:codex:gpt-5"), "DOC", "/w/AGENT.md")
    assert codex[:4] == ["codex", "exec", "--model", "gpt-5"] and codex[-1] == "-"
    gemini = build_argv(parse_spec("g", "exec:gemini:gemini-2.5-pro"), "DOC", "/w/AGENT.md")
    assert gemini[:3] == ["gemini", "--model", "gemini-2.5-pro"] and "json" in gemini
    qwen = build_argv(parse_spec("q", "exec:qwen:qwen3-coder-plus"), "DOC", "/w/AGENT.md")
    assert qwen[:3] == ["qwen", "--model", "qwen3-coder-plus"]
    assert qwen[qwen.index("--system-prompt") + 1] == "DOC"
    # No tool that changes anything is approved in complete mode; the prompt goes on stdin.
    assert qwen[qwen.index("--approval-mode") + 1] == "default" and "-p" not in qwen
    assert qwen[qwen.index("--output-format") + 1] == "json"
    assert stdin_mode(parse_spec("q", "exec:qwen:x")) == "user"
    assert stdin_mode(parse_spec("c", "exec:codex:x")) == "combined"
    assert stdin_mode(parse_spec("c", "exec:claude:x")) == "user"
    cmd = replace(parse_spec("c", "exec:cmd:agent --m {model}"), model="m1")
    assert build_argv(cmd, "DOC", "/w/AGENT.md") == ["agent", "--m", "m1"]
    assert HOOK_DISABLE_ENV == "EARNEST_HOOK_DISABLE"


# Gemini CLI 0.61 in an untrusted folder: a coloured message naming both ways out, exit 55.
GEMINI_061 = """#!{python}
import json, os, sys
args = sys.argv[1:]
trusted = os.environ.get("GEMINI_CLI_TRUST_WORKSPACE") == "true" or "--skip-trust" in args
if not trusted:
    sys.stderr.write("\\x1b[31mGemini CLI is not running in a trusted directory. To proceed, "
                     "either use `--skip-trust`, set the `GEMINI_CLI_TRUST_WORKSPACE=true` "
                     "environment variable, or trust this directory in interactive mode.\\x1b[0m\\n")
    sys.exit(55)
if os.environ.get("GEMINI_FAKE_FAIL"):
    sys.stderr.write("\\x1b[1;31m[API Error: \\x1b[4mquota exceeded\\x1b[0m]\\n")
    sys.exit(1)
prompt = args[args.index("--prompt") + 1]
print(json.dumps({"session_id": "g1", "response": "Read it.\\nCHOICE: C\\n" + prompt[:10],
                  "stats": {}}))
"""


def _fake_gemini(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bindir = tmp_path / "bin"
    bindir.mkdir()
    exe = bindir / "gemini"
    exe.write_text(GEMINI_061.replace("{python}", PY))
    exe.chmod(0o755)
    monkeypatch.setenv("PATH", os.pathsep.join([str(bindir), os.environ.get("PATH", "")]))
    monkeypatch.delenv("GEMINI_CLI_TRUST_WORKSPACE", raising=False)


def test_exec_gemini_children_run_trusted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_gemini(tmp_path, monkeypatch)
    reply = run(provider("exec:gemini:gemini-2.5-pro"))
    assert "CHOICE: C" in reply.text and "THE FIXTUR" in reply.text


def test_exec_error_text_is_stored_without_ansi_codes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fake_gemini(tmp_path, monkeypatch)
    monkeypatch.setenv("GEMINI_FAKE_FAIL", "1")
    with pytest.raises(ProviderError) as info:
        run(provider("exec:gemini:gemini-2.5-pro"))
    assert "exited with status 1" in info.value.message
    assert "[API Error: quota exceeded]" in info.value.message
    assert "\x1b" not in info.value.message and "\x1b" not in (info.value.raw or "")


def test_exec_pi_argv_keeps_to_read_only_tools_and_the_callers_setup_out() -> None:
    from earnest.live.providers.exec_cli import PI_ISOLATION

    pi = build_argv(parse_spec("p", "exec:pi:anthropic/claude-sonnet-4-5"), "DOC", "/w/AGENT.md")
    assert pi[:5] == ["pi", "-p", "--offline", "--model", "anthropic/claude-sonnet-4-5"]
    assert pi[pi.index("--system-prompt") + 1] == "DOC"
    assert pi[pi.index("--tools") + 1] == "read,grep,find,ls"  # no bash, edit or write
    assert set(PI_ISOLATION) <= set(pi) and "--no-extensions" in pi and "--no-session" in pi
    assert stdin_mode(parse_spec("p", "exec:pi:x")) == "user"  # the prompt: the last argument

"""Secrets never leave earnest: every writer redacts API keys and tokens at write time, each
key type is caught, `--no-redact` writes the raw text, and no verdict or score changes
(item 10 of issue 12)."""

from __future__ import annotations

import html
import json
import shutil
import sqlite3
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from secretkit import AWS_LINE, AWS_SECRET, BEARER, PRIVATE_KEY, SECRETS, everything, raw_secrets

from conftest import EXAMPLES, run_earnest
from earnest.redact import find, redact


def _leaks(text: str) -> list[str]:
    return [s[:16] + "…" for s in raw_secrets() if s in text]


# -- the patterns -------------------------------------------------------------------------


@pytest.mark.parametrize("kind", sorted(SECRETS))
def test_each_key_type_is_redacted_in_every_encoding(kind: str) -> None:
    secret = SECRETS[kind]
    for text in (
        f"the key is {secret}.",
        f"KEY={secret}\n",
        json.dumps({"output": f"line one\n{secret}\nline three"}),  # \n-escaped neighbours
        html.escape(f"<code>{secret}</code>"),
        f'"{secret}"',
    ):
        out = redact(text)
        assert secret not in out, (kind, text)
        assert "[REDACTED:" in out
        assert find(text), kind


def test_an_aws_key_id_with_its_secret() -> None:
    out = redact(AWS_LINE)
    assert SECRETS["aws-key-id"] not in out and AWS_SECRET not in out
    assert "[REDACTED:aws-secret-access-key]" in out
    # the pair on one line, however labelled
    same_line = redact(f"creds: {SECRETS['aws-key-id']} / {AWS_SECRET}")
    assert AWS_SECRET not in same_line and SECRETS["aws-key-id"] not in same_line
    as_json = redact(
        json.dumps({"AccessKeyId": SECRETS["aws-key-id"], "SecretAccessKey": AWS_SECRET})
    )
    assert AWS_SECRET not in as_json and json.loads(as_json)


def test_private_keys_and_bearer_tokens() -> None:
    assert redact(PRIVATE_KEY) == "[REDACTED:private-key]"
    assert redact(BEARER) == "Authorization: Bearer [REDACTED:bearer-token]"


@pytest.mark.parametrize(
    "text",
    [
        "task-project-management-is-hard-but-worth-it",
        "risk-assessment for the skeleton key",
        "commit 3f9a2b7c1d0e4f5a6b7c8d9e0f1a2b3c4d5e6f7a",
        "uuid 123e4567-e89b-12d3-a456-426614174000",
        "/usr/local/lib/python3.11/site-packages/openai/_client.py",
        "CHOICE: B\nRule 8: fix the cause, not the symptom.",
        "AKIA is the prefix of an AWS key id; sk- is OpenAI's.",
        "Bearer tokens are short-lived.",
    ],
)
def test_ordinary_text_is_left_alone(text: str) -> None:
    assert redact(text) == text


def test_redacted_json_stays_json() -> None:
    doc = {"a": everything(), "b": [everything()]}
    out = redact(json.dumps(doc))
    assert json.loads(out)["a"] == redact(everything())
    assert not _leaks(out)


# -- every writer -------------------------------------------------------------------------


def _transcript(path: Path) -> Path:
    events = [
        {"type": "thread.started", "thread_id": "t-1"},
        {"type": "item.completed", "item": {"id": "i0", "type": "agent_message", "text": "Reading the env."}},
        {
            "type": "item.completed",
            "item": {
                "id": "i1",
                "type": "command_execution",
                "command": f"env; curl -H '{BEARER}' https://api.example.com",
                "aggregated_output": everything(),
                "exit_code": 0,
                "status": "completed",
            },
        },
        {"type": "item.completed", "item": {"id": "i2", "type": "agent_message", "text": f"Done: I used {SECRETS['openai-project']}"}},
        {"type": "turn.completed", "usage": {"input_tokens": 10, "output_tokens": 5}},
    ]  # fmt: skip
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    return path


def test_trajectory_commands_redact_and_keep_their_scores(tmp_path: Path) -> None:
    t = _transcript(tmp_path / "t.jsonl")
    conv = run_earnest("trajectory", "convert", str(t))
    assert conv.returncode == 0, conv.stderr
    assert not _leaks(conv.stdout) and "[REDACTED:openai-api-key]" in conv.stdout
    json.loads(conv.stdout.splitlines()[0])
    raw = run_earnest("trajectory", "convert", str(t), "--no-redact")
    kept = [s for s in raw_secrets() if s in raw.stdout]  # long outputs are excerpted
    assert SECRETS["openai-project"] in kept and len(kept) >= 5
    out = tmp_path / "conv.jsonl"
    assert run_earnest("trajectory", "convert", str(t), "-o", str(out)).returncode == 0
    assert not _leaks(out.read_text())

    for fmt in ("json", "jsonl", "junit", "table"):
        red = run_earnest("trajectory", "score", str(t), "--format", fmt)
        unred = run_earnest("trajectory", "score", str(t), "--format", fmt, "--no-redact")
        assert red.returncode == unred.returncode
        assert not _leaks(red.stdout), fmt
        # the redacted report is the raw report with its secrets replaced, nothing else
        assert red.stdout == redact(unred.stdout), fmt
        if fmt == "json":
            assert json.loads(red.stdout)["battery"] == json.loads(unred.stdout)["battery"]
    gate = run_earnest("trajectory", "replay-gate", str(t), "--format", "json")
    raw_gate = run_earnest("trajectory", "replay-gate", str(t), "--format", "json", "--no-redact")
    assert not _leaks(gate.stdout)
    assert json.loads(gate.stdout)["summary"] == json.loads(raw_gate.stdout)["summary"]
    assert gate.stdout == redact(raw_gate.stdout)


@pytest.fixture
def suite_with_secrets(tmp_path: Path) -> Path:
    suite = tmp_path / "suite"
    shutil.copytree(EXAMPLES / "suite", suite)
    replies = suite / "recorded" / "replies.jsonl"
    lines = [json.loads(x) for x in replies.read_text().splitlines() if x.strip()]
    for n, line in enumerate(lines):
        line["response"] = (
            f"My key {list(SECRETS.values())[n % len(SECRETS)]}\n{AWS_LINE}\n" + line["response"]
        )
    replies.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return suite


def _verdicts(doc: dict) -> list[tuple[str, str]]:  # type: ignore[type-arg]
    return [(r["fixture_id"], r["verdict"]) for r in doc["replies"]]


def test_score_check_and_report_redact_and_keep_verdicts(
    suite_with_secrets: Path, tmp_path: Path
) -> None:
    suite = suite_with_secrets
    replies = str(suite / "recorded" / "replies.jsonl")
    red = run_earnest("score", replies, "--suite", str(suite), "--format", "json")
    raw = run_earnest("score", replies, "--suite", str(suite), "--format", "json", "--no-redact")
    assert red.returncode == raw.returncode
    assert not _leaks(red.stdout)
    assert red.stdout == redact(raw.stdout)
    assert _verdicts(json.loads(red.stdout)) == _verdicts(json.loads(raw.stdout))
    for fmt in ("jsonl", "junit", "table"):
        out = run_earnest("score", replies, "--suite", str(suite), "--format", fmt)
        raw_out = run_earnest(
            "score", replies, "--suite", str(suite), "--format", fmt, "--no-redact"
        )
        assert not _leaks(out.stdout) and out.stdout == redact(raw_out.stdout), fmt
    for fmt in ("json", "junit", "table"):
        out = run_earnest("check", "--suite", str(suite), "--format", fmt)
        raw_out = run_earnest("check", "--suite", str(suite), "--format", fmt, "--no-redact")
        assert not _leaks(out.stdout) and out.stdout == redact(raw_out.stdout), fmt
        f = tmp_path / f"check.{fmt}"
        run_earnest("check", "--suite", str(suite), "--format", fmt, "-o", str(f))
        assert not _leaks(f.read_text()), fmt
    for fmt in ("html", "json"):
        f = tmp_path / f"report.{fmt}"
        rep = run_earnest("report", "--suite", str(suite), "--format", fmt, "-o", str(f))
        assert rep.returncode == 0, rep.stderr
        assert not _leaks(f.read_text()) and "[REDACTED:" in f.read_text(), fmt
    raw_report = tmp_path / "raw.json"
    run_earnest(
        "report", "--suite", str(suite), "--format", "json", "-o", str(raw_report), "--no-redact"
    )
    assert _leaks(raw_report.read_text())  # the report shows every reply
    a = json.loads((tmp_path / "report.json").read_text())["pressure"]
    b = json.loads(raw_report.read_text())["pressure"]
    assert [s["verdict"] for s in a["samples"]] == [s["verdict"] for s in b["samples"]]
    assert a["verdicts"] == b["verdicts"]


def test_a_live_run_stores_and_exports_no_secret(tmp_path: Path) -> None:
    pytest.importorskip("openai")
    from runkit import FakeModelServer, example_agent

    suite = tmp_path / "suite"
    shutil.copytree(EXAMPLES / "suite", suite)
    agent = example_agent(suite)

    def leaky(req):  # type: ignore[no-untyped-def]
        act = agent(req)
        act.text = (
            f"Using {SECRETS['anthropic']} and {SECRETS['github-pat']}.\n{AWS_LINE}\n" + act.text
        )
        return act

    ids = {}
    with FakeModelServer(leaky) as srv:
        for name, extra in (("red", ()), ("raw", ("--no-redact",))):
            store = tmp_path / f"{name}.db"
            proc = run_earnest(
                "run", "--suite", str(suite), "--profile", "local=openai:llama3.1:8b",
                "--base-url", srv.base_url, "--store", str(store), *extra,
            )  # fmt: skip
            assert proc.returncode == 0, proc.stderr
            ids[name] = proc.stdout.strip().splitlines()[-1]
    red, raw = tmp_path / "red.db", tmp_path / "raw.db"
    with sqlite3.connect(red) as db:
        dump = "\n".join(db.iterdump())
    assert not _leaks(dump) and "[REDACTED:anthropic-api-key]" in dump
    with sqlite3.connect(raw) as db:
        assert SECRETS["anthropic"] in "\n".join(db.iterdump())

    s = ["--store", str(raw)]
    exported = run_earnest("export", ids["raw"], *s)
    assert not _leaks(exported.stdout) and "[REDACTED:github-token]" in exported.stdout
    assert _leaks(run_earnest("export", ids["raw"], *s, "--no-redact").stdout)
    for fmt in ("json", "junit", "table"):
        args = ["runs", "show", ids["raw"], *s, "--format", fmt]
        shown, raw_shown = run_earnest(*args), run_earnest(*args, "--no-redact")
        assert not _leaks(shown.stdout) and shown.stdout == redact(raw_shown.stdout), fmt
    html_out = tmp_path / "run.html"
    assert run_earnest("report", "--run", ids["raw"], *s, "-o", str(html_out)).returncode == 0
    assert not _leaks(html_out.read_text())

    def verdicts(store: Path, run: str) -> list[tuple[str, str, str]]:
        shown = run_earnest("runs", "show", run, "--store", str(store), "--format", "json")
        return sorted(
            (c["fixture_id"], c["arm"], str(c["passes"])) for c in json.loads(shown.stdout)["cells"]
        )

    assert verdicts(red, ids["red"]) == verdicts(raw, ids["raw"])


def test_hook_state_files_hold_no_secret(tmp_path: Path) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "hooks"))
    from claude_session import Session, decision

    outcomes = {}
    for name, env in (("red", {}), ("raw", {"EARNEST_NO_REDACT": "1"})):
        (tmp_path / name).mkdir()
        session = Session(tmp_path / name)
        session.prompt(f"Deploy with {SECRETS['openai-project']} and write notes.txt")
        session.tool("Bash", {"command": f"export T={SECRETS['github-pat']}; env"}, everything())
        session.say("Done: I wrote notes.txt.")
        from conftest import run_earnest as run

        payload = {
            "session_id": session.session_id,
            "transcript_path": str(session.transcript),
            "cwd": str(session.workspace),
            "hook_event_name": "Stop",
            "stop_hook_active": False,
        }
        results = []
        for _ in range(2):  # the second call reads the saved state
            r = run("hook", "claude-code", input=json.dumps(payload),
                    env={"EARNEST_STATE_DIR": str(session.state), **env})  # fmt: skip
            assert r.returncode == 0 and "Traceback" not in r.stderr
            results.append(decision(r))
            payload["stop_hook_active"] = True
        outcomes[name] = results
        saved = b"".join(p.read_bytes() for p in session.state.rglob("*") if p.is_file())
        if name == "red":
            assert saved and not _leaks(saved.decode("latin-1"))
        else:
            assert SECRETS["openai-project"].encode() in saved
    assert outcomes["red"] == outcomes["raw"]


def test_the_pytest_plugin_prints_and_writes_no_secret(
    suite_with_secrets: Path, tmp_path: Path
) -> None:
    import os
    import subprocess

    from conftest import SRC

    xml = tmp_path / "junit.xml"
    env = dict(os.environ, PYTHONPATH=str(SRC))
    args = [
        sys.executable,
        "-m",
        "pytest",
        "-p",
        "no:cacheprovider",
        "-q",
        "--rootdir",
        str(tmp_path),
    ]
    proc = subprocess.run(
        [*args, "--earnest-suite", str(suite_with_secrets), f"--junitxml={xml}"],
        capture_output=True, text=True, env=env, cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 1, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "reply:" in proc.stdout and "[REDACTED:" in proc.stdout
    assert not _leaks(proc.stdout) and not _leaks(xml.read_text())
    raw = subprocess.run(
        [*args, "--earnest-suite", str(suite_with_secrets)],
        capture_output=True, text=True, env=dict(env, EARNEST_NO_REDACT="1"), cwd=tmp_path,
    )  # fmt: skip
    assert _leaks(raw.stdout)
    tail = [ln for ln in proc.stdout.splitlines() if " passed" in ln or " failed" in ln][-1]
    raw_tail = [ln for ln in raw.stdout.splitlines() if " passed" in ln or " failed" in ln][-1]
    assert tail.split(" in ")[0] == raw_tail.split(" in ")[0]  # the same counts


@pytest.mark.parametrize(
    "text",
    [
        f"AWS_SECRET_ACCESS_KEY={AWS_SECRET}",
        f'"AWS_SECRET_ACCESS_KEY": "{AWS_SECRET}"',
        f"Aws_Secret = {AWS_SECRET}",
        "Authorization: BEARER " + "Ab1." * 8,
        "authorization: bearer " + "Ab1." * 8,
    ],
)
def test_a_rule_in_any_case_is_looked_for_in_any_case(text: str) -> None:
    # The case-insensitive rules' needle was checked case-sensitively ("ecret", "earer"): the
    # usual upper-case variable name, alone in a text, was written as read.
    out = redact(text)
    assert "[REDACTED:" in out and AWS_SECRET not in out and "Ab1.Ab1." not in out, out
    assert find(text)


def test_every_needle_is_in_every_match() -> None:
    # The needle check only skips work: a rule whose needle is absent cannot match.
    from earnest.redact import RULES

    text = everything() + f"\nAWS_SECRET_ACCESS_KEY={AWS_SECRET}\nBEARER " + "Ab1." * 8
    for rule in RULES:
        for m in rule.pattern.finditer(text):
            assert rule.may_match(m.group(0)) or rule.may_match(
                text[max(0, m.start() - 8) : m.end()]  # a look-behind's text (Bearer)
            ), (rule.id, m.group(0))

"""``exec:opencode:PROVIDER/MODEL``: the argv, the message, PWD, the envelope and act's database.

The real opencode runs these end to end in tests/realcli/test_realcli_opencode.py.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from earnest.errors import InputError
from earnest.live.act_transcripts import transcript_file
from earnest.live.profiles import parse_spec
from earnest.live.providers.exec_cli import ExecProvider, build_act_argv, build_argv
from earnest.pressure.envelopes import unwrap_envelope

SPEC = "exec:opencode:fake/fake-model"


def test_the_argv_and_the_message_carry_doc_and_prompt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    profile = parse_spec("oc", SPEC)
    assert profile.preset == "opencode" and profile.model == "fake/fake-model"
    argv = build_argv(profile, "DOC", "/x/AGENT.md")
    assert argv == ["opencode", "run", "--model", "fake/fake-model", "--format", "json"]
    assert build_act_argv(profile, "DOC", "/x/AGENT.md") == argv
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "opencode").write_text("#!/bin/sh\n")
    (bin_dir / "opencode").chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_dir))
    provider = ExecProvider(profile)
    stdin = provider._stdin(argv, "Working Rules: be honest.", "Ticket OPS-1: fix it")
    assert stdin == ""
    assert argv[-1].startswith("Working Rules: be honest.") and argv[-1].endswith(
        "Ticket OPS-1: fix it"
    )


def test_an_unknown_preset_names_opencode_among_the_choices() -> None:
    with pytest.raises(InputError) as err:
        parse_spec("x", "exec:opencod:m")
    assert "exec:opencode:PROVIDER/MODEL" in str(err.value)


def test_the_run_events_unwrap_to_the_last_messages_text() -> None:
    events = [
        {"type": "step_start", "sessionID": "s", "part": {"messageID": "m1", "type": "step-start"}},
        {"type": "text", "sessionID": "s", "part": {"messageID": "m1", "text": "Let me look."}},
        {"type": "tool_use", "sessionID": "s", "part": {"messageID": "m1", "tool": "read"}},
        {"type": "step_finish", "sessionID": "s", "part": {"messageID": "m1"}},
        {"type": "text", "sessionID": "s", "part": {"messageID": "m2", "text": "CHOICE: A"}},
        {"type": "step_finish", "sessionID": "s", "part": {"messageID": "m2"}},
    ]
    out = unwrap_envelope("\n".join(json.dumps(e) for e in events) + "\n")
    assert (out.text, out.envelope, out.error) == ("CHOICE: A", "opencode-run", None)


def test_an_error_event_voids_the_sample() -> None:
    events = [
        {"type": "step_start", "sessionID": "s", "part": {"messageID": "m1"}},
        {
            "type": "error",
            "sessionID": "s",
            "error": {"name": "APIError", "data": {"message": "no key"}},
        },
    ]
    out = unwrap_envelope("\n".join(json.dumps(e) for e in events) + "\n")
    assert out.envelope == "opencode-run" and out.error == "error: no key"


def test_act_reads_the_samples_own_database_only(tmp_path: Path) -> None:
    db = tmp_path / "tmp" / "opencode.db"
    db.parent.mkdir()
    sqlite3.connect(db).close()
    assert transcript_file("opencode", "", tmp_path, {"OPENCODE_DB": str(db)}) == db
    # Never the user's own database, never a relative or missing path.
    assert transcript_file("opencode", "", tmp_path, {}) is None
    assert transcript_file("opencode", "", tmp_path, {"OPENCODE_DB": "opencode.db"}) is None
    assert transcript_file("opencode", "", tmp_path, {"OPENCODE_DB": str(tmp_path / "no")}) is None


FAKE_OPENCODE = """#!{python}
import json, os, sqlite3, sys
db = os.environ["OPENCODE_DB"]
con = sqlite3.connect(db)
con.executescript('''
create table session (id text primary key, directory text, version text, time_created integer);
create table message (id text primary key, session_id text, time_created integer, data text);
create table part (id text primary key, message_id text, session_id text, data text);''')
con.execute("insert into session values ('ses_1', ?, '1.18.33', 1)", (os.getcwd(),))
con.execute("insert into message values ('msg_1', 'ses_1', 1, '{{\\"role\\": \\"user\\"}}')")
con.execute("insert into message values ('msg_2', 'ses_1', 2, '{{\\"role\\": \\"assistant\\"}}')")
con.execute("insert into part values ('prt_1', 'msg_1', 'ses_1', ?)",
            (json.dumps({{"type": "text", "text": sys.argv[-1][-40:]}}),))
tool = {{"type": "tool", "tool": "bash", "callID": "c1", "state": {{"status": "completed",
        "input": {{"command": "git merge feature"}}, "output": "CONFLICT", "metadata": {{"exit": 1}}}}}}
con.execute("insert into part values ('prt_2', 'msg_2', 'ses_1', ?)", (json.dumps(tool),))
con.commit()
text = "PWD=" + os.environ.get("PWD", "") + " CWD=" + os.getcwd() + "\\nCHOICE: A"
for event in ({{"type": "step_start", "sessionID": "ses_1", "part": {{"messageID": "msg_2"}}}},
              {{"type": "text", "sessionID": "ses_1", "part": {{"messageID": "msg_2", "text": text}}}}):
    print(json.dumps(event))
"""


def test_act_gives_the_child_its_project_and_reads_its_own_database(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stand-in ``opencode`` (the real one acts in tests/realcli): the child runs with ``PWD``
    the workspace copy, writes the session database earnest named, and earnest reads the
    calls from that database — a failed ``git merge`` stays failed."""
    import asyncio
    import sys

    from earnest.live.confine import Confinement

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "opencode"
    fake.write_text(FAKE_OPENCODE.format(python=sys.executable))
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    template = tmp_path / "template"
    template.mkdir()
    (template / "README.md").write_text("hi\n")
    provider = ExecProvider(parse_spec("oc", SPEC))
    provider.confinement = Confinement("none", why="test")
    reply = asyncio.run(
        provider.act("DOC", "Ticket OPS-1: merge it", template=template, timeout=60)
    )
    said = reply.text.splitlines()[0]
    pwd, cwd = said.removeprefix("PWD=").split(" CWD=")
    assert pwd == cwd and Path(cwd).name == "workspace"
    assert reply.did is not None
    assert [(c.command, c.ok) for c in reply.did.commands] == [("git merge feature", False)]

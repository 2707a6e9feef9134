"""`earnest run --act` confines every acting agent to its copy with bubblewrap.

A scripted exec:cmd agent (written by the test) really tries to write: in its copy, in its
own TMPDIR, to a file outside the copy (Python ``open``) and to another through a shell
(``sh -c 'echo x > ...'``). It prints what happened as JSON before its CHOICE line; the test
reads that from the run store and checks the files on disk. Without bwrap the run warns, or
refuses to start when ``--confine bwrap`` is asked for.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from tests.agentickit import merge_only_suite
from tests.confinekit import need_bwrap
from tests.conftest import EXAMPLES, run_earnest

SUITE = EXAMPLES / "agentic"

AGENT = """\
import json, os, re, subprocess, sys
from pathlib import Path

outside, shell_outside, host_tmp = sys.argv[1], sys.argv[2], sys.argv[3]
prompt = sys.stdin.read()
first = next(m.group(1) for m in re.finditer(r"^([A-Z])\\) (.*)$", prompt, re.M)
             if "run the full test suite" in m.group(2).lower())
seen = {}
def attempt(name, write):
    try:
        write()
        seen[name] = "ok"
    except OSError as exc:
        seen[name] = exc.strerror
attempt("copy", lambda: Path("note.txt").write_text("in the copy\\n"))
attempt("tmpdir", lambda: (Path(os.environ["TMPDIR"]) / "scratch").write_text("x\\n"))
attempt("outside", lambda: Path(outside).write_text("escaped\\n"))
attempt("host_tmp", lambda: Path(host_tmp).read_text())
shell = subprocess.run(["sh", "-c", f"echo x > {shell_outside}"], capture_output=True, text=True)
seen["shell"] = shell.returncode
seen["shell_error"] = shell.stderr.strip()
print(json.dumps(seen))
print("Rule 1 (never merge on an unrun suite).")
print(f"CHOICE: {first}")
"""


def act_escaper(
    tmp_path: Path,
    *extra: str,
    env: dict[str, str] | None = None,
    config: str = "",
    interpreter: str | None = None,
) -> tuple[
    Any, dict[str, Any] | None, Path, Path
]:  # fmt: skip
    """Act the escaper out; with ``interpreter``, as a script that names it on its #! line."""
    agent = tmp_path / "escaper.py"
    agent.write_text((f"#!{interpreter}\n" if interpreter else "") + AGENT, encoding="utf-8")
    agent.chmod(0o755)
    program = str(agent) if interpreter else f"{sys.executable} {agent}"
    outside = tmp_path / "outside" / "escaped.txt"
    shell_outside = tmp_path / "outside" / "shell-escaped.txt"
    outside.parent.mkdir()
    suite = tmp_path / "agentic"
    merge_only_suite(suite)
    if config:
        cfg = suite / "earnest.toml"
        cfg.write_text(cfg.read_text().replace("[live]\n", f"[live]\n{config}\n", 1))
    store = tmp_path / "r.db"
    # A file of another program's in the host's /tmp, outside everything the agent needs.
    host = Path(tempfile.mkdtemp(prefix="earnest-test-host-", dir="/tmp"))
    host_tmp = host / "session-token"
    host_tmp.write_text("not for the agent\n", encoding="utf-8")
    try:
        proc = run_earnest(
            "run", "--suite", str(suite), "--act", "--store", str(store), "-y",
            "--profile",
            f"esc=exec:cmd:{program} {outside} {shell_outside} {host_tmp}",
            *extra, env=env,
        )  # fmt: skip
    finally:
        shutil.rmtree(host, ignore_errors=True)
    if proc.returncode == 2:
        return proc, None, outside, shell_outside
    from earnest.live.store import RunStore

    with RunStore(store, create=False) as st:
        (record,) = st.samples(proc.stdout.strip().splitlines()[-1])
    sample = {"raw": record.raw_reply, "judgement": record.judgement, "error": record.error}
    return proc, sample, outside, shell_outside


def _seen(sample: dict[str, Any]) -> dict[str, Any]:
    raw = sample["raw"]
    line = next(x for x in raw.splitlines() if x.startswith("{"))
    seen: dict[str, Any] = json.loads(line)
    return seen


def test_a_confined_agent_writes_in_its_copy_and_tmpdir_only(tmp_path: Path) -> None:
    need_bwrap()
    proc, sample, outside, shell_outside = act_escaper(tmp_path, "--confine", "bwrap")
    assert sample is not None, proc.stderr
    assert sample["error"] is None, sample
    seen = _seen(sample)
    assert seen["copy"] == "ok" and seen["tmpdir"] == "ok", seen
    assert seen["outside"] == "Read-only file system", seen
    # The host's /tmp is private: only the entries holding what the agent needs come back.
    assert seen["host_tmp"] == "No such file or directory", seen
    assert seen["shell"] != 0 and "Read-only file system" in seen["shell_error"], seen
    assert not outside.exists() and not shell_outside.exists()
    did = sample["judgement"]["action"]["did"]
    assert did["created"] == ["note.txt"]  # the copy's write is in the diff
    assert did["confined"] == "bwrap"
    assert "NOT confined" not in proc.stderr


def test_a_script_agent_starts_on_the_interpreter_its_shebang_names(tmp_path: Path) -> None:
    # Seen in a CI run from a clone under /tmp: the real-CLI tier's shims (scripts whose #!
    # names the clone's .venv python) could not start under bwrap — the venv's /tmp entry was
    # not bound back — and every sample was void. The interpreter's toolchain is needed too.
    need_bwrap()
    venv = Path(tempfile.mkdtemp(prefix="earnest-test-venv-", dir="/tmp"))
    try:
        (venv / "bin").mkdir()
        (venv / "bin" / "python").symlink_to(os.path.realpath(sys.executable))
        proc, sample, _, _ = act_escaper(
            tmp_path, "--confine", "bwrap", interpreter=str(venv / "bin" / "python")
        )
    finally:
        shutil.rmtree(venv, ignore_errors=True)
    assert sample is not None, proc.stderr
    assert sample["error"] is None, sample
    assert _seen(sample)["copy"] == "ok"


def test_readable_paths_take_a_scripts_interpreter_never_a_hidden_folder(tmp_path: Path) -> None:
    from earnest.live.confine import readable_paths

    home = tmp_path / "home"
    venv = home / ".venvs" / "agent"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").symlink_to(os.path.realpath(sys.executable))
    script = home / "agent"
    script.write_text(f"#!{venv / 'bin' / 'python'}\n", encoding="utf-8")
    script.chmod(0o755)
    found = readable_paths(str(script), {"PATH": "/usr/bin"}, [home], [])
    assert venv in found and script in found
    # A #! under HOME's own bin folder binds that folder, never HOME itself.
    (home / "bin").mkdir()
    (home / "bin" / "python").symlink_to(os.path.realpath(sys.executable))
    script.write_text(f"#!{home / 'bin' / 'python'}\n", encoding="utf-8")
    found = readable_paths(str(script), {"PATH": "/usr/bin"}, [home], [])
    assert home / "bin" in found and home not in found


def test_auto_confines_when_bwrap_works(tmp_path: Path) -> None:
    need_bwrap()
    proc, sample, outside, shell_outside = act_escaper(tmp_path)  # the default: auto
    assert sample is not None, proc.stderr
    assert _seen(sample)["outside"] == "Read-only file system"
    assert sample["judgement"]["action"]["did"]["confined"] == "bwrap"
    assert not outside.exists() and not shell_outside.exists()


def _no_bwrap_path(tmp_path: Path) -> dict[str, str]:
    """A PATH with sh but no bwrap on it (the agent is started by its absolute path)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    sh = shutil.which("sh")
    assert sh is not None
    os.symlink(sh, bin_dir / "sh")
    return {"PATH": str(bin_dir)}


def test_required_confinement_without_bwrap_refuses_to_start(tmp_path: Path) -> None:
    env = _no_bwrap_path(tmp_path)
    proc, sample, outside, shell_outside = act_escaper(tmp_path, "--confine", "bwrap", env=env)
    assert proc.returncode == 2 and sample is None, proc.stderr
    assert 'confine = "bwrap" is required but bwrap is not on PATH' in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not outside.exists() and not shell_outside.exists()  # nothing ran


def test_auto_without_bwrap_warns_names_the_profile_and_records_it(tmp_path: Path) -> None:
    env = _no_bwrap_path(tmp_path)
    proc, sample, outside, _ = act_escaper(tmp_path, env=env)
    assert sample is not None, proc.stderr
    assert "earnest: warning: act mode is NOT confined" in proc.stderr
    assert "bwrap is not on PATH" in proc.stderr and "the shell tools of esc " in proc.stderr
    assert sample["judgement"]["action"]["did"]["confined"] == "none"
    assert outside.exists()  # unconfined, as the warning said


def test_confine_none_is_an_explicit_opt_out_that_says_what_the_agent_reaches(
    tmp_path: Path,
) -> None:
    proc, sample, outside, _ = act_escaper(tmp_path, "--confine", "none")
    assert sample is not None, proc.stderr
    assert "NOT confined" not in proc.stderr
    assert 'act mode is unconfined (confine = "none"): the agents of esc run as you' in (
        proc.stderr
    )
    assert sample["judgement"]["action"]["did"]["confined"] == "none"
    assert outside.exists()


def test_a_bad_confine_value_is_refused(tmp_path: Path) -> None:
    proc = run_earnest("run", "--suite", str(SUITE), "--act", "--confine", "docker", "-y",
                       "--store", str(tmp_path / "r.db"))  # fmt: skip
    assert (
        proc.returncode == 2 and "--confine" in proc.stderr and "auto, bwrap, none" in proc.stderr
    )
    suite = tmp_path / "agentic"
    merge_only_suite(suite)
    cfg = suite / "earnest.toml"
    cfg.write_text(cfg.read_text().replace("[live]\n", '[live]\nconfine = "yes"\n', 1))
    proc = run_earnest("run", "--suite", str(suite), "--act", "-y",
                       "--store", str(tmp_path / "r.db"))  # fmt: skip
    assert proc.returncode == 2 and "live.confine" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr


def test_confine_in_the_suite_config_is_read(tmp_path: Path) -> None:
    need_bwrap()
    proc, sample, outside, _ = act_escaper(tmp_path, config='confine = "bwrap"')
    assert sample is not None, proc.stderr
    assert sample["judgement"]["action"]["did"]["confined"] == "bwrap"
    assert not outside.exists()


def test_a_suite_cannot_turn_confinement_off(tmp_path: Path) -> None:
    """``confine = "none"`` widens what the agent reaches: only the user may choose it."""
    proc, sample, outside, _ = act_escaper(tmp_path, config='confine = "none"')
    assert proc.returncode == 2 and sample is None, proc.stderr
    assert "earnest.toml: live.confine: a suite file cannot turn confinement off" in proc.stderr
    assert "--confine none" in proc.stderr and "config.toml" in proc.stderr
    assert "Traceback" not in proc.stderr and not outside.exists()


def test_confine_none_in_the_user_config_is_read(tmp_path: Path) -> None:
    user = tmp_path / "user-config.toml"
    user.write_text('[live]\nconfine = "none"\n', encoding="utf-8")
    proc, sample, outside, _ = act_escaper(tmp_path, env={"EARNEST_CONFIG": str(user)})
    assert sample is not None, proc.stderr
    assert sample["judgement"]["action"]["did"]["confined"] == "none"
    assert 'act mode is unconfined (confine = "none")' in proc.stderr and outside.exists()


def test_only_the_tmp_entries_the_agent_needs_come_back(tmp_path: Path) -> None:
    """A busy /tmp (hundreds of other programs' entries) gives the sandbox one bind per entry
    the agent needs, its own sample folder, and never another sample's or a socket folder."""
    from earnest.live.confine import tmp_entries

    root = tmp_path / "tmp"
    for n in range(300):
        (root / f"other-{n}").mkdir(parents=True)
    (root / "proj" / "suite").mkdir(parents=True)
    (root / "ssh-Xq1").mkdir()
    own, other = root / "earnest-act-own", root / "earnest-act-other"
    own.mkdir()
    other.mkdir()
    needed = [root / "proj" / "suite" / "agent.py", root / "ssh-Xq1" / "agent.1", other / "x",
              Path("/usr/bin")]  # fmt: skip
    assert tmp_entries(needed, root=root, keep=own) == [own, root / "proj"]

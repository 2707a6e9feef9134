"""Every writer is the one safe writer (issue 22, items 6-10).

Every ``--format`` of every command that writes a file goes through the same hostile cases,
run as real subprocesses:

- a secret in the input: absent from the written file (read back: Parquet with pyarrow, an
  Inspect log member by member), while ``EARNEST_NO_REDACT=1`` shows it was there to redact;
- an existing file's mode kept (``0664`` stays ``0664``, never ``0600``);
- a symbolic link as ``-o``: the link is replaced, its target (a user's file) untouched;
- ``-o`` an existing folder, a missing parent folder, a folder that may not be written: exit
  2 naming the file, no traceback, nothing created, the old file kept.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from conftest import EXAMPLES, SRC, run_earnest
from diskkit import can_drop_privileges

pq = pytest.importorskip("pyarrow.parquet")
pytest.importorskip("inspect_ai")

GITHUB = "ghp_" + "Zr8kQw2Lm5Np7Xv3Bt9Hc4Jd6Fg1Sy0Ua2Ke"  # made up, GitHub-shaped
AWS = "AKIA" + "QWERTYUI2345ABCD"  # made up, AWS key-id-shaped
SECRETS = (GITHUB, AWS)
OTEL_DATA = Path(__file__).resolve().parents[1] / "data" / "otel" / "copilot-style.otlp.json"

SUFFIX = {
    "table": ".txt",
    "json": ".json",
    "jsonl": ".jsonl",
    "junit": ".xml",
    "html": ".html",
    "parquet": ".parquet",
    "inspect": ".eval",
}


class World:
    """The inputs every command reads, each holding the secrets."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.suite = root / "suite"
        shutil.copytree(EXAMPLES / "suite", self.suite)
        replies = self.suite / "recorded" / "replies.jsonl"
        records = [json.loads(line) for line in replies.read_text().splitlines()]
        # Every reply quotes both secrets in its reasoning; one names a token as its model.
        for record in records:
            record["response"] = f"Pushed with {GITHUB} and {AWS}.\n\n" + record["response"]
        records[1]["model"] = GITHUB
        replies.write_text("".join(json.dumps(r) + "\n" for r in records))
        self.replies = replies
        self.scored = root / "scored.jsonl"
        self._run("score", str(replies), "--suite", str(self.suite), "--format", "jsonl",
                  "--no-redact", "-o", str(self.scored))  # fmt: skip
        self.trace = root / "trace.json"
        doc = json.loads(OTEL_DATA.read_text())
        spans = doc["resourceSpans"][0]["scopeSpans"][0]["spans"]
        command = f"GITHUB_TOKEN={GITHUB} AWS_ACCESS_KEY_ID={AWS} ./deploy.sh && touch done.txt"
        spans[2]["attributes"] += [
            {"key": "gen_ai.tool.name", "value": {"stringValue": "bash"}},
            {"key": "gen_ai.tool.call.arguments",
             "value": {"stringValue": json.dumps({"command": command})}},
        ]  # fmt: skip
        spans[2]["name"] = "execute_tool bash"
        self.trace.write_text(json.dumps(doc))
        self.tscored = root / "tscored.jsonl"
        self._run("trajectory", "score", str(self.trace), "--format", "jsonl", "--no-redact",
                  "-o", str(self.tscored))  # fmt: skip
        self.store = root / "runs.db"
        self._run("run", "--suite", str(self.suite), "--profile", f"again=replay:{replies}",
                  "--store", str(self.store), "--no-redact")  # fmt: skip

    def _run(self, *args: str) -> None:
        proc = run_earnest(*args)
        assert proc.returncode in (0, 1), proc.stderr


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    return World(tmp_path_factory.mktemp("writers"))


Command = Callable[[World, str, Path], list[str]]

COMMANDS: dict[str, tuple[tuple[str, ...], Command]] = {
    "check": (("table", "json", "junit"),
              lambda w, f, o: ["check", "--suite", str(w.suite), "--format", f, "-o", str(o)]),
    "score": (("table", "json", "jsonl", "junit", "parquet"),
              lambda w, f, o: ["score", str(w.replies), "--suite", str(w.suite), "--format", f,
                               "-o", str(o)]),
    "aggregate": (("table", "json"),
                  lambda w, f, o: ["aggregate", str(w.scored), "--format", f, "-o", str(o)]),
    "report": (("html", "json"),
               lambda w, f, o: ["report", "--suite", str(w.suite), "--format", f, "-o", str(o)]),
    "trajectory convert": (("jsonl", "json"),
                           lambda w, f, o: ["trajectory", "convert", str(w.trace), "--format", f,
                                            "-o", str(o)]),
    "trajectory score": (("table", "json", "jsonl", "junit", "parquet"),
                         lambda w, f, o: ["trajectory", "score", str(w.trace), "--format", f,
                                          "-o", str(o)]),
    "trajectory replay-gate": (("table", "json"),
                               lambda w, f, o: ["trajectory", "replay-gate", str(w.trace),
                                                "--format", f, "-o", str(o)]),
    "trajectory aggregate": (("table", "json"),
                             lambda w, f, o: ["trajectory", "aggregate", str(w.tscored),
                                              "--format", f, "-o", str(o)]),
    "export": (("jsonl", "parquet", "inspect"),
               lambda w, f, o: ["export", "latest", "--store", str(w.store), "--format", f,
                                "-o", str(o)]),
    "report --run": (("html", "json"),
                     lambda w, f, o: ["report", "--run", "latest", "--store", str(w.store),
                                      "--format", f, "-o", str(o)]),
    "baseline bless": (("json",),
                       lambda w, f, o: ["baseline", "bless", "latest", "--store", str(w.store),
                                        "--force", "-o", str(o)]),
}  # fmt: skip

CASES = [(name, fmt) for name, (formats, _) in COMMANDS.items() for fmt in formats]
CARRY_TEXT = {  # (command, format) whose output holds text of the input: the secret shows raw
    ("score", "json"), ("score", "jsonl"), ("score", "parquet"), ("check", "json"),
    ("trajectory convert", "jsonl"), ("trajectory convert", "json"),
    ("trajectory score", "json"), ("trajectory score", "jsonl"), ("trajectory score", "parquet"),
    ("export", "jsonl"), ("export", "parquet"), ("export", "inspect"),
    ("report", "html"), ("report", "json"), ("report --run", "html"), ("report --run", "json"),
}  # fmt: skip


def _args(world: World, name: str, fmt: str, out: Path) -> list[str]:
    return COMMANDS[name][1](world, fmt, out)


def contents(path: Path) -> str:
    """What a written file holds, as text: Parquet rows, every member of an Inspect log."""
    if path.suffix == ".parquet":
        return json.dumps(pq.read_table(path).to_pylist(), default=str, ensure_ascii=False)
    if path.suffix == ".eval":
        from earnest.trajectory.readers.ziparchive import read_member

        with zipfile.ZipFile(path) as archive:
            return "\n".join(
                read_member(archive, path, info, limit=1 << 28).decode("utf-8")
                for info in archive.infolist()
            )
    return path.read_text(encoding="utf-8")


def _ok(proc: subprocess.CompletedProcess[str]) -> None:
    assert proc.returncode in (0, 1), proc.stderr
    assert "Traceback" not in proc.stderr


def _refused(proc: subprocess.CompletedProcess[str], says: str, out: Path) -> None:
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert "Traceback" not in proc.stderr, proc.stderr
    assert says in proc.stderr and str(out) in proc.stderr, proc.stderr


@pytest.mark.parametrize(("name", "fmt"), CASES)
def test_secret_mode_and_symlink(world: World, tmp_path: Path, name: str, fmt: str) -> None:
    suffix = SUFFIX[fmt]
    raw = tmp_path / f"raw{suffix}"
    proc = run_earnest(*_args(world, name, fmt, raw), env={"EARNEST_NO_REDACT": "1"})
    _ok(proc)
    if (name, fmt) in CARRY_TEXT:  # the secret was there to redact
        assert any(s in contents(raw) for s in SECRETS), f"{name} {fmt}: no secret raw"

    # An existing file: its mode is kept, the secrets are gone.
    kept = tmp_path / f"kept{suffix}"
    kept.write_text("old\n")
    kept.chmod(0o664)
    _ok(run_earnest(*_args(world, name, fmt, kept)))
    assert stat.S_IMODE(kept.stat().st_mode) == 0o664
    text = contents(kept)
    assert text and text != "old\n"
    for secret in SECRETS:
        assert secret not in text, f"{name} {fmt}: {secret} written"

    # A symbolic link as -o: replaced by the new file; the user's file it points to untouched.
    users = tmp_path / "users-file.txt"
    users.write_text("precious\n")
    users.chmod(0o640)
    link = tmp_path / f"link{suffix}"
    link.symlink_to(users)
    _ok(run_earnest(*_args(world, name, fmt, link)))
    assert users.read_text() == "precious\n" and stat.S_IMODE(users.stat().st_mode) == 0o640
    assert not link.is_symlink() and contents(link)
    assert stat.S_IMODE(link.stat().st_mode) == _umask_mode()  # a new file's, not the target's


def _umask_mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


@pytest.mark.parametrize(("name", "fmt"), CASES)
def test_folder_and_missing_parent(world: World, tmp_path: Path, name: str, fmt: str) -> None:
    folder = tmp_path / f"folder{SUFFIX[fmt]}"
    folder.mkdir()
    _refused(run_earnest(*_args(world, name, fmt, folder)), "is a folder", folder)
    assert list(folder.iterdir()) == []

    missing = tmp_path / "no" / "such" / f"out{SUFFIX[fmt]}"
    _refused(run_earnest(*_args(world, name, fmt, missing)), "does not exist", missing)
    assert not (tmp_path / "no").exists()  # no folder created


@pytest.mark.skipif(not can_drop_privileges(), reason="no setpriv to drop root's overrides")
@pytest.mark.parametrize(("name", "fmt"), CASES)
def test_unwritable_folder(world: World, tmp_path: Path, name: str, fmt: str) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    out = locked / f"out{SUFFIX[fmt]}"
    out.write_text("old\n")
    locked.chmod(0o555)  # the file itself is writable; its folder is not
    try:
        proc = _unprivileged(*_args(world, name, fmt, out))
        _refused(proc, "Permission denied", out)
        assert "nothing was written (the old file is kept)" in proc.stderr
        assert out.read_text() == "old\n" and [p.name for p in locked.iterdir()] == [out.name]
    finally:
        locked.chmod(0o755)


def _unprivileged(*args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(SRC), NO_COLOR="1", COLUMNS="200")
    prefix: list[str] = []
    if os.geteuid() == 0:
        caps = "-dac_override,-dac_read_search"
        prefix = ["setpriv", f"--bounding-set={caps}", f"--inh-caps={caps}"]
    return subprocess.run(
        [*prefix, sys.executable, "-m", "earnest", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


@pytest.mark.parametrize(
    ("args", "fmt"),
    [
        (["score", "{replies}", "--suite", "{suite}"], "parquet"),
        (["trajectory", "score", "{trace}"], "parquet"),
        (["export", "latest", "--store", "{store}"], "parquet"),
        (["export", "latest", "--store", "{store}"], "inspect"),
    ],
)
def test_the_file_name_says_the_format(
    world: World, tmp_path: Path, args: list[str], fmt: str
) -> None:
    """`-o x.parquet` without --format writes Parquet (never the text table), `.eval` an
    Inspect log; a command that writes neither refuses the name."""
    out = tmp_path / f"out{SUFFIX[fmt]}"
    filled = [
        a.format(replies=world.replies, suite=world.suite, trace=world.trace, store=world.store)
        for a in args
    ]
    _ok(run_earnest(*filled, "-o", str(out)))
    assert contents(out)  # read back by pyarrow / as a zip: not a text table
    if fmt == "parquet":
        assert pq.read_table(out).num_rows > 0
    refused = run_earnest("check", "--suite", str(world.suite), "-o", str(tmp_path / "c.parquet"))
    assert refused.returncode == 2 and "the file name says parquet" in refused.stderr

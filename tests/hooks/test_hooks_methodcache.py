"""The stop hook's compiled dataclass methods (earnest._methodcache) against the plain path.

The trick must change nothing but the time: every class a stop creates gets the same methods
as plain ``dataclasses`` gives it, and the stops decide alike with no table, a table written
by an earlier stop, and a broken table.
"""

from __future__ import annotations

import dataclasses
import json
import marshal
import os
import subprocess
import sys
from pathlib import Path
from types import CodeType
from typing import Any

import pytest
from claude_session import Session

from conftest import SRC
from earnest._methodcache import MAX_ENTRIES, MethodCache

_PROBE = """\
import io, json, sys, types
sys.path.insert(0, sys.argv[1])
plain = sys.argv[2] == "plain"
if plain:  # the plain path: never read or write a table
    import earnest._methodcache as mc
    class _Off:
        def save(self): return False
    mc.enable = lambda: _Off()
from earnest.__main__ import main
sys.stdin = io.TextIOWrapper(io.BytesIO(sys.argv[3].encode()))
out = io.StringIO()
sys.stdout, real = out, sys.stdout
rc = main(["hook", "claude-code"])
sys.stdout = real

def key(value):
    if isinstance(value, types.CodeType):
        return [value.co_name, value.co_qualname, value.co_code.hex(), value.co_argcount,
                value.co_kwonlyargcount, list(value.co_varnames), list(value.co_names),
                list(value.co_freevars), list(value.co_cellvars), value.co_flags,
                value.co_filename, [key(c) for c in value.co_consts]]
    if isinstance(value, (tuple, frozenset)):
        return [type(value).__name__, [key(v) for v in value]]
    return repr(value)

methods = {}
for name, module in sorted(sys.modules.items()):
    if not name.startswith("earnest"):
        continue
    for value in list(vars(module).values()):
        if isinstance(value, type) and value.__module__ == name and "__dataclass_fields__" in vars(value):
            for attr, fn in sorted(vars(value).items()):
                code = getattr(fn, "__code__", None)
                if code is not None and code.co_filename == "<string>":
                    methods[f"{name}.{value.__qualname__}.{attr}"] = key(code)
print(json.dumps({"rc": rc, "out": out.getvalue(), "methods": methods}))
"""


def _stop(payload: dict[str, Any], state: Path, pycache: Path, mode: str) -> dict[str, Any]:
    env = dict(os.environ, EARNEST_STATE_DIR=str(state), PYTHONPYCACHEPREFIX=str(pycache))
    for name in ("EARNEST_HOOK_DISABLE", "EARNEST_JSON", "PYTHONDONTWRITEBYTECODE"):
        env.pop(name, None)
    done = subprocess.run(
        [sys.executable, "-S", "-c", _PROBE, str(SRC), mode, json.dumps(payload)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=60,
    )
    assert done.returncode == 0 and done.stderr == "", done.stderr
    report: dict[str, Any] = json.loads(done.stdout)
    assert report["rc"] == 0
    return report


def _table(pycache: Path) -> Path:
    (found,) = pycache.rglob("earnest-dataclass-methods.*.marshal")
    return found


def _sessions(tmp_path: Path) -> dict[str, dict[str, Any]]:
    """An allowed stop (a claim over a written file), a blocked one, and a test run."""
    payloads = {}
    for kind in ("allowed", "blocked", "tests"):
        (tmp_path / kind).mkdir(parents=True)
        session = Session(tmp_path / kind)
        if kind == "allowed":
            target = session.workspace / "greeting.txt"
            session.prompt("Create greeting.txt with a greeting.")
            target.write_text("hello\n")
            session.tool(
                "Write",
                {"file_path": str(target), "content": "hello\n"},
                f"File created successfully at: {target}",
                {"type": "create", "filePath": str(target), "content": "hello\n"},
            )
            session.say("Done: I created greeting.txt.")
        elif kind == "blocked":
            session.prompt("Fix the bug in app.py.")
            session.say("Done, I fixed the bug in app.py.")
        else:
            session.prompt("Run the tests.")
            session.tool("Bash", {"command": "python -m pytest -q | tail -3"}, "1 failed, 2 passed")
            session.say("Done: all tests pass.")
        payloads[kind] = {
            "session_id": session.session_id,
            "transcript_path": str(session.transcript),
            "cwd": str(session.workspace),
            "hook_event_name": "Stop",
            "stop_hook_active": False,
        }
    return payloads


def test_stops_build_the_same_methods_and_decide_alike_with_and_without_the_table(
    tmp_path: Path,
) -> None:
    pycache = tmp_path / "pycache"
    for kind, payload in _sessions(tmp_path).items():
        plain = _stop(payload, tmp_path / f"s-plain-{kind}", pycache, "plain")
        cold = _stop(payload, tmp_path / f"s-cold-{kind}", pycache, "cached")
        assert _table(pycache).stat().st_size > 0  # the first stop wrote it
        warm = _stop(payload, tmp_path / f"s-warm-{kind}", pycache, "cached")
        assert plain["out"] == cold["out"] == warm["out"], kind
        assert len(plain["methods"]) > 50, kind  # every class of the stop, each method
        assert plain["methods"] == cold["methods"] == warm["methods"], kind
    outs = {kind: _stop(p, tmp_path / f"s-{kind}", pycache, "cached")["out"]
            for kind, p in _sessions(tmp_path / "again").items()}  # fmt: skip
    assert outs["allowed"] == "" and json.loads(outs["blocked"])["decision"] == "block"
    assert json.loads(outs["tests"])["decision"] == "block"  # 1 failed: the claim is false


def test_a_broken_table_is_ignored_and_replaced(tmp_path: Path) -> None:
    payload = _sessions(tmp_path)["blocked"]
    pycache = tmp_path / "pycache"
    plain = _stop(payload, tmp_path / "s-plain", pycache, "plain")
    _stop(payload, tmp_path / "s-first", pycache, "cached")
    table = _table(pycache)
    other_release = marshal.dumps((sys.hexversion - 1, marshal.loads(table.read_bytes())[1]))
    junk_tables = (b"", b"\x00garbage", marshal.dumps([1, 2]), marshal.dumps({"x": 1}))
    junk_tables += (marshal.dumps((sys.hexversion, {"x": 1})), other_release)
    for n, junk in enumerate(junk_tables):
        table.write_bytes(junk)
        again = _stop(payload, tmp_path / f"s-{n}", pycache, "cached")
        assert again["out"] == plain["out"] and again["methods"] == plain["methods"]
        assert isinstance(marshal.loads(table.read_bytes())[1], dict)  # written afresh


def _point(cache: MethodCache) -> type:
    cache.install()
    try:

        @dataclasses.dataclass(frozen=True, slots=True)
        class Point:
            """A point."""

            x: int
            y: int = 0

    finally:
        cache.uninstall()
    return Point


def test_a_class_built_through_the_table_behaves_as_the_plain_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    path = tmp_path / "table.marshal"
    first = MethodCache(str(path))
    cls = _point(first)
    assert first.misses >= 5 and first.save() and not first.save()  # nothing new: no write
    second = MethodCache(str(path))
    again = _point(second)
    assert second.misses == 0  # every method came from the table
    assert "exec" not in vars(dataclasses)  # uninstalled: the builtin again
    p, q = cls(1, 2), again(1, 2)
    assert (repr(p), p == cls(1, 2), hash(p)) == (repr(q), q == again(1, 2), hash(q))
    with pytest.raises(dataclasses.FrozenInstanceError):
        q.x = 3  # type: ignore[misc]
    for name in ("__init__", "__repr__", "__eq__", "__hash__", "__setattr__"):
        a, b = getattr(cls, name).__code__, getattr(again, name).__code__
        assert isinstance(a, CodeType) and a.co_code == b.co_code and a.co_consts == b.co_consts


def test_the_table_is_not_written_where_bytecode_is_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "table.marshal"
    cache = MethodCache(str(path))
    _point(cache)
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    assert not cache.save() and not path.exists()
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    blocked = MethodCache(str(tmp_path / "a-file" / "table.marshal"))
    (tmp_path / "a-file").write_text("not a folder")
    _point(blocked)
    assert not blocked.save()  # cannot write: no error, nothing left behind
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file"]


def test_a_full_table_keeps_only_what_the_last_process_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    path = tmp_path / "table.marshal"
    cache = MethodCache(str(path))
    cache.table = {f"# {i}\n": compile(f"# {i}\n", "<string>", "exec") for i in range(MAX_ENTRIES)}
    _point(cache)
    assert cache.save()
    release, kept = marshal.loads(path.read_bytes())
    assert release == sys.hexversion
    assert 5 <= len(kept) < 20 and all(not k.startswith("# ") for k in kept)


def test_installing_writes_the_table_as_it_compiles_the_bytecode(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import shutil

    from earnest.hooks.bytecode import compile_package

    package = tmp_path / "earnest"
    shutil.copytree(SRC / "earnest", package, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")  # compiled all the same, as bytecode is
    monkeypatch.delenv("PYTHONPYCACHEPREFIX", raising=False)
    assert compile_package(package) == (True, None)
    (table,) = (package / "__pycache__").glob("earnest-dataclass-methods.*.marshal")
    release, methods = marshal.loads(table.read_bytes())
    assert (
        release == sys.hexversion
        and len(methods) > 100
        and all(isinstance(v, CodeType) for v in methods.values())
    )

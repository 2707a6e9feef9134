"""Stop-hook latency: ``python -m earnest hook claude-code`` on a 20 MB Claude Code transcript.

What is timed is what the agent waits for: a whole subprocess, process start included, from
spawn to exit, with the hook JSON on stdin. Reported separately:

- cold: the first call of a session (empty state folder: no saved reader, so the hook scans the
  transcript backwards for the current run and reads only that);
- incremental: later calls of the same session, each after a few new lines were appended;
- baseline: ``python -c pass`` in the same run, so the figures can be read as multiples of
  bare interpreter start on this machine.

The transcript is generated from the real Claude Code lines in the shared data (every valid
line of every session, repeated with fresh ids until the file is 20 MB), followed by a final run
that asks for a file and writes it (without the shared data, the real Claude Code session
in tests/data/hooks). Target (issue 9): p95 < 120 ms at every stop, first and later, and
under 5x the bare interpreter's p95; at least 30 calls of each kind, interleaved.

    python benchmarks/bench_hooks.py [--mb 20] [--cold 30] [--warm 30]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("EARNEST_SHARED", REPO.parent / "shared"))
SOURCES = SHARED / "data" / "transcripts" / "claude-code"
if not SOURCES.is_dir():
    SOURCES = REPO / "tests" / "data" / "hooks" / "claude-subagent"
SESSION = "bench-0000-session"
TARGET_MS = 120.0  # issue 9: p95 at every stop, first and later
TARGET_RATIO = 5.0  # ... and under 5x a bare `python -c pass` in the same run
ID_KEYS = ("uuid", "parentUuid", "leafUuid", "sourceToolAssistantUUID", "logicalParentUuid")


def real_lines() -> list[dict[str, Any]]:
    """Every line of the shared Claude Code transcripts that parses as a JSON object."""
    lines: list[dict[str, Any]] = []
    for path in sorted(SOURCES.glob("*.jsonl")):
        for raw in path.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                obj = json.loads(raw)
            except ValueError:
                continue
            if isinstance(obj, dict):
                lines.append(obj)
    if not lines:
        sys.exit(f"no transcripts under {SOURCES}")
    return lines


def _suffix_ids(obj: Any, tag: str) -> Any:
    """The same line with its ids made unique for one repetition."""
    if isinstance(obj, dict):
        out = {}
        for key, value in obj.items():
            if (key in ID_KEYS and isinstance(value, str)) or (
                key in {"id", "tool_use_id"} and isinstance(value, str)
            ):
                out[key] = f"{value}-{tag}"
            else:
                out[key] = _suffix_ids(value, tag)
        return out
    if isinstance(obj, list):
        return [_suffix_ids(v, tag) for v in obj]
    return obj


def _envelope(kind: str, parent: str | None, cwd: Path) -> dict[str, Any]:
    return {
        "parentUuid": parent,
        "isSidechain": False,
        "userType": "external",
        "cwd": str(cwd),
        "sessionId": SESSION,
        "version": "2.0.76",
        "type": kind,
        "uuid": str(uuid.uuid4()),
        "timestamp": "2026-01-01T00:00:00.000Z",
    }


def final_run(cwd: Path, target: Path) -> list[dict[str, Any]]:
    """A change request, a Write of ``target``, its result and a claim of completion."""
    prompt = _envelope("user", None, cwd)
    prompt["message"] = {"role": "user", "content": f"Create {target.name} with a greeting."}
    use = _envelope("assistant", prompt["uuid"], cwd)
    use["message"] = {
        "model": "claude-sonnet-4-5",
        "id": "msg_bench_write",
        "type": "message",
        "role": "assistant",
        "content": [
            {
                "type": "tool_use",
                "id": "toolu_bench_write",
                "name": "Write",
                "input": {"file_path": str(target), "content": "hello\n"},
            }
        ],
        "stop_reason": "tool_use",
    }
    result = _envelope("user", use["uuid"], cwd)
    result["message"] = {
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "tool_use_id": "toolu_bench_write",
                "content": f"File created successfully at: {target}",
            }
        ],
    }
    result["toolUseResult"] = {"type": "create", "filePath": str(target), "content": "hello\n"}
    done = _envelope("assistant", result["uuid"], cwd)
    done["message"] = {
        "model": "claude-sonnet-4-5",
        "id": "msg_bench_done",
        "type": "message",
        "role": "assistant",
        "content": [{"type": "text", "text": f"Done: I created {target.name}."}],
        "stop_reason": "end_turn",
    }
    return [prompt, use, result, done]


def progress_lines(cwd: Path, n: int) -> list[dict[str, Any]]:
    """What a later stop finds appended: a short follow-up in the same run."""
    text = _envelope("assistant", None, cwd)
    text["message"] = {
        "model": "claude-sonnet-4-5",
        "id": f"msg_bench_more_{n}",
        "type": "message",
        "role": "assistant",
        "content": [{"type": "text", "text": f"Still done ({n})."}],
        "stop_reason": "end_turn",
    }
    return [text]


def write_transcript(path: Path, cwd: Path, target: Path, megabytes: float) -> int:
    lines = real_lines()
    goal = int(megabytes * 1024 * 1024)
    size = 0
    with path.open("w", encoding="utf-8") as fh:
        rep = 0
        while size < goal:
            for obj in lines:
                obj = _suffix_ids(obj, f"r{rep}")
                obj["sessionId"] = SESSION
                if "cwd" in obj:
                    obj["cwd"] = str(cwd)
                text = json.dumps(obj, ensure_ascii=False) + "\n"
                fh.write(text)
                size += len(text.encode("utf-8"))
                if size >= goal:
                    break
            rep += 1
        for obj in final_run(cwd, target):
            fh.write(json.dumps(obj) + "\n")
    return path.stat().st_size


def _env(state_dir: Path, pycache: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO / "src"), env.get("PYTHONPATH", "")]).rstrip(
        os.pathsep
    )
    env["EARNEST_STATE_DIR"] = str(state_dir)
    env.pop("EARNEST_HOOK_DISABLE", None)
    # An installed package has its bytecode compiled; so does this run (in a temp folder).
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(pycache)
    return env


CPU_MS: list[float] = []
"""CPU time (user + system) of each call timed, in order: less sensitive than wall time to a
busy machine, which slows every process but does not make it do more work."""


def timed(cmd: list[str], stdin: str, env: dict[str, str]) -> tuple[float, str, str]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(cmd, input=stdin, capture_output=True, text=True, env=env, check=False)
    elapsed = (time.perf_counter() - start) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    CPU_MS.append(cpu * 1000)
    return elapsed, proc.stdout, proc.stderr


def percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    p95_index = max(0, min(len(ordered) - 1, round(0.95 * len(ordered) + 0.5) - 1))
    return statistics.median(ordered), ordered[p95_index]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=float, default=20.0, help="transcript size (default 20)")
    parser.add_argument("--cold", type=int, default=30, help="first-stop calls (default 30)")
    parser.add_argument("--warm", type=int, default=30, help="later-stop calls (default 30)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="earnest-bench-") as tmp:
        root = Path(tmp)
        cwd = root / "workspace"
        cwd.mkdir()
        target = cwd / "greeting.txt"
        target.write_text("hello\n")
        transcript = root / f"{SESSION}.jsonl"
        size = write_transcript(transcript, cwd, target, args.mb)
        payload = json.dumps(
            {
                "session_id": SESSION,
                "transcript_path": str(transcript),
                "cwd": str(cwd),
                "hook_event_name": "Stop",
                "stop_hook_active": False,
            }
        )
        hook = [sys.executable, "-m", "earnest", "hook", "claude-code"]

        pycache = root / "pycache"
        # Compile earnest's modules once, as installing the package would have.
        timed(hook, payload, _env(root / "state-warmup", pycache))
        warm_state = root / "state-warm"
        timed(hook, payload, _env(warm_state, pycache))  # the session's first stop

        # Interleaved, one of each per round, so a busy machine slows all three alike.
        baseline: list[float] = []
        cold: list[float] = []
        warm: list[float] = []
        cpu: dict[str, list[float]] = {"baseline": [], "cold": [], "warm": []}
        decision = ""
        for i in range(max(args.cold, args.warm)):
            baseline.append(timed([sys.executable, "-c", "pass"], "", dict(os.environ))[0])
            cpu["baseline"].append(CPU_MS[-1])
            if i < args.cold:
                ms, out, err = timed(hook, payload, _env(root / f"state-cold-{i}", pycache))
                if err.strip():
                    print(f"hook stderr: {err.strip()}", file=sys.stderr)
                decision = out.strip() or "allow"
                cold.append(ms)
                cpu["cold"].append(CPU_MS[-1])
            if i < args.warm:
                with transcript.open("a", encoding="utf-8") as fh:
                    for obj in progress_lines(cwd, i):
                        fh.write(json.dumps(obj) + "\n")
                ms, _, err = timed(hook, payload, _env(warm_state, pycache))
                if err.strip():
                    print(f"hook stderr: {err.strip()}", file=sys.stderr)
                warm.append(ms)
                cpu["warm"].append(CPU_MS[-1])

        b50, b95 = percentiles(baseline)
        c50, c95 = percentiles(cold)
        w50, w95 = percentiles(warm)
        print(
            f"transcript: {size / 1024 / 1024:.1f} MB, decision on the final run: {decision}; "
            f"{len(baseline)} baseline, {len(cold)} first, {len(warm)} later calls"
        )
        print(f"{'':28}{'p50 ms':>9}{'p95 ms':>9}{'p50 / base':>12}{'p95 / base':>12}")
        print(f"{'python -c pass (baseline)':28}{b50:9.1f}{b95:9.1f}{1.0:12.2f}{1.0:12.2f}")
        print(
            f"{'hook, first stop (cold)':28}{c50:9.1f}{c95:9.1f}{c50 / b50:12.2f}{c95 / b95:12.2f}"
        )
        print(f"{'hook, later stops':28}{w50:9.1f}{w95:9.1f}{w50 / b50:12.2f}{w95 / b95:12.2f}")
        cb = statistics.median(cpu["baseline"])
        cc = statistics.median(cpu["cold"])
        cw = statistics.median(cpu["warm"])
        print(
            f"cpu time (user+sys) p50 ms: baseline {cb:.1f}, first stop {cc:.1f} "
            f"({cc / cb:.2f}x), later stops {cw:.1f} ({cw / cb:.2f}x)"
        )
        for label, p95 in (("first stop", c95), ("later stops", w95)):
            ok = p95 < TARGET_MS and p95 < TARGET_RATIO * b95
            verdict = "meets" if ok else "misses"
            print(
                f"target: {label} p95 < {TARGET_MS:.0f} ms and < {TARGET_RATIO:g}x baseline p95 "
                f"— {verdict} ({p95:.1f} ms, {p95 / b95:.2f}x)"
            )


if __name__ == "__main__":
    main()

"""Whole-process ``earnest score`` against its peers, Inspect AI re-scoring and promptfoo.

Issue 10: ``earnest score`` must stay >= 5x faster than inspect_ai re-scoring and promptfoo on
the same replies. One run builds the reply mix of ``bench_score.py`` (its ``build``:
8 fixtures, 2,000 replies of ~2 KB in every envelope earnest reads, a third failing), writes the
same replies three ways and times each tool as a whole process (start-up, imports,
reading, scoring and writing its per-reply results to a file), wall clock, median of >= 5 runs
after one warm-up, in rounds that run every tool once (a change in load falls on all alike):

- ``earnest score replies.jsonl --suite examples/suite --format jsonl -o out.jsonl``, with
  ``--jobs 1`` and with the default (``earnest.parallel.score_jobs``: parallel only with 4+
  cores and 32 MiB+ of replies; ``bench_score_jobs.py`` times it beside ``--jobs 1``);
- ``inspect score replies.eval --scorer benchmarks/peer_inspect_scorer.py@earnest_choice``: the
  replies as a real Inspect ``.eval`` log (built with inspect_ai's own models and
  ``write_eval_log``), re-scored by a ``@scorer`` that runs the choice + citation check in
  regex (``peer_inspect_scorer.check``). The log is lean (a one-line input per sample, no
  prompts), so Inspect reads no more than the replies;
- ``promptfoo eval`` (pinned below, installed from npm into ``.cache/peers/``) over the replies
  as recorded outputs: prompt ``{{output}}`` through the ``echo`` provider, which is exactly
  promptfoo's own ``--model-outputs`` mode, with one ``javascript`` assertion running the same
  check as the Inspect scorer. Offline: telemetry, update check, sharing, cache and its
  database are off, and its config folder is a temporary one.

earnest reads each reply as it came (in its envelope); the peers get the answer text, as their
model layers record it (unwrapped by earnest's own ``unwrap_envelope``, outside the timing).
Both peers do less than earnest (no envelope unwrapping, no reasoning split, no hybrid or
fallback reading, no excuse matching): the comparison favours them. Every process runs inside
``unshare -rn`` (no network at all) when the machine allows it. Each run's output is checked
(every reply scored) and, once, each peer's pass/fail is compared with earnest's verdicts.

    python benchmarks/bench_score_peers.py [--replies N] [--runs R] [--no-install]

Prints each tool's median wall time, replies/s, CPU time (the process tree's user + system:
the steadier figure on a busy machine) and how many times faster earnest (``--jobs 1``) is.
A peer that cannot be installed or run is skipped with the reason. ``--no-install`` (or
``EARNEST_PEERS=0``) never calls npm; ``EARNEST_PEERS_CACHE`` moves the cache.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

# The reply mix is bench_score.py's (importing it also puts the checkout's src/ on the path).
from bench_score import FORMS, ROOT, build
from peer_promptfoo import PROMPTFOO_VERSION, install_promptfoo, process_env, promptfoo_env

from earnest.pressure.envelopes import unwrap_envelope
from earnest.pressure.models import Fixture, Rule

TARGET = 5.0
MODEL = "mockllm/model"  # Inspect's offline model: re-scoring must resolve the log's model
BENCH = Path(__file__).resolve().parent
SUITE = ROOT / "examples" / "suite"  # the suite bench_score.build takes its fixtures from
SCORER = BENCH / "peer_inspect_scorer.py"
RUN_TIMEOUT = 900  # seconds for one timed process

# The Inspect scorer's check, for promptfoo (same pattern, same order of tests).
PROMPTFOO_ASSERT = r"""
const chosen = [...new Set([...output.matchAll(/CHOICE[\s*_`]*[:：][\s*_`]*([A-Z])\b/g)].map((m) => m[1]))];
if (chosen.length !== 1 || chosen[0] !== context.vars.target) return false;
if (!new RegExp(context.vars.cite, 'i').test(output)) return false;
return JSON.parse(context.vars.must).every((m) => output.includes(m));
""".strip()


# --- the replies, three ways ---------------------------------------------------------------


def _js_escape(text: str) -> str:
    """``text`` as a literal in a pattern both Python's re and JavaScript's RegExp read alike."""
    return re.sub(r"[.*+?^${}()|\[\]\\/]", lambda m: "\\" + m.group(0), text)


def expectations(fixture: Fixture, rules: dict[str, Rule]) -> dict[str, str]:
    """What the peers check for ``fixture``: the target letter, the citation pattern (``Rule N``
    or the rule's title) and the must_cite strings (a JSON list: promptfoo expands list vars).

    >>> mix, rules = build(1)
    >>> sorted(expectations(mix[0][0], rules))
    ['cite', 'must', 'target']
    """
    rule = rules[str(fixture.rule)]
    cite = rf"\bRule\s+{re.escape(rule.id)}\b|{_js_escape(rule.title)}"
    return {
        "target": fixture.correct_choice,
        "cite": cite,
        "must": json.dumps(list(fixture.must_cite)),
    }


def answer_text(reply: str) -> str:
    """The reply as a peer records it: its model layer has already taken the text out of the
    API's or CLI's envelope (earnest's own unwrapping, so both see the same words).

    >>> answer_text('{"type": "result", "subtype": "success", "result": "CHOICE: B"}')
    'CHOICE: B'
    """
    return unwrap_envelope(reply).text


def write_replies(mix: Sequence[tuple[Fixture, str]], path: Path) -> None:
    """The mix as ``earnest score``'s recorded-replies JSONL."""
    with path.open("w", encoding="utf-8") as out:
        for fixture, reply in mix:
            out.write(json.dumps({"fixture_id": fixture.id, "response": reply}) + "\n")


def write_inspect_log(
    mix: Sequence[tuple[Fixture, str]], rules: dict[str, Rule], path: Path
) -> None:
    """The mix as an Inspect ``.eval`` log of a finished, not yet scored evaluation."""
    from inspect_ai.log import (
        EvalConfig,
        EvalDataset,
        EvalLog,
        EvalSample,
        EvalSpec,
        write_eval_log,
    )
    from inspect_ai.model import ChatMessageAssistant, ChatMessageUser, ModelOutput

    samples = []
    for i, (fixture, raw) in enumerate(mix, start=1):
        reply = answer_text(raw)
        question = f"Pressure fixture {fixture.id}: choose one option and cite the rule."
        samples.append(
            EvalSample(
                id=i,
                epoch=1,
                input=question,
                target=fixture.correct_choice,
                messages=[
                    ChatMessageUser(content=question),
                    ChatMessageAssistant(content=reply, model=MODEL),
                ],
                output=ModelOutput.from_content(MODEL, reply),
                metadata={"fixture_id": fixture.id, **expectations(fixture, rules)},
            )
        )
    log = EvalLog(
        status="success",
        eval=EvalSpec(
            created="2026-01-01T00:00:00+00:00",
            task="earnest/peers",
            dataset=EvalDataset(name="reply-mix", samples=len(samples)),
            model=MODEL,
            config=EvalConfig(),
        ),
        samples=samples,
    )
    write_eval_log(log, str(path), format="eval")


def write_promptfoo_config(
    mix: Sequence[tuple[Fixture, str]], rules: dict[str, Rule], path: Path
) -> None:
    """The mix as a promptfoo config: each reply a test whose recorded output is echoed."""
    config = {
        "description": "earnest reply mix, recorded outputs",
        "prompts": ["{{output}}"],
        "providers": ["echo"],
        "defaultTest": {"assert": [{"type": "javascript", "value": PROMPTFOO_ASSERT}]},
        "tests": [
            {"vars": {"output": answer_text(reply), **expectations(fixture, rules)}}
            for fixture, reply in mix
        ],
        "sharing": False,
    }
    path.write_text(json.dumps(config), encoding="utf-8")


# --- the peers' commands -------------------------------------------------------------------


def earnest_command(replies: Path, out: Path, jobs: int | None) -> list[str]:
    exe = Path(sys.executable).with_name("earnest")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "earnest"]
    cmd += ["score", str(replies), "--suite", str(SUITE), "--format", "jsonl", "-o", str(out)]
    return cmd + (["--jobs", str(jobs)] if jobs is not None else [])


def inspect_command(log: Path, out: Path) -> list[str] | None:
    exe = Path(sys.executable).with_name("inspect")
    if not exe.exists():
        return None
    return [
        str(exe),
        "score",
        str(log),
        "--scorer",
        f"{SCORER}@earnest_choice",
        "--action",
        "overwrite",
        "--output-file",
        str(out),
        "--display",
        "none",
    ]


def promptfoo_command(exe: Path, config: Path, out: Path) -> list[str]:
    return [
        str(exe),
        "eval",
        "-c",
        str(config),
        "-o",
        str(out),
        "--no-cache",
        "--no-write",
        "--no-share",
        "--no-table",
        "--no-progress-bar",
    ]


# --- reading each tool's results -----------------------------------------------------------


def earnest_passes(out: Path) -> list[bool]:
    lines = out.read_text(encoding="utf-8").splitlines()
    return [json.loads(line)["verdict"] == "pass" for line in lines if line.strip()]


def inspect_passes(out: Path) -> list[bool]:
    from inspect_ai.log import read_eval_log

    log = read_eval_log(str(out))
    samples = sorted(log.samples or [], key=lambda s: int(s.id))
    return [s.scores is not None and s.scores["earnest_choice"].value == "C" for s in samples]


def promptfoo_passes(out: Path) -> list[bool]:
    data = json.loads(out.read_text(encoding="utf-8"))
    rows = sorted(data["results"]["results"], key=lambda r: r["testIdx"])
    if any(r.get("error") and not r.get("gradingResult") for r in rows):
        first = next(r["error"] for r in rows if r.get("error"))
        raise RuntimeError(f"promptfoo errored on a test: {first[:300]}")
    return [bool(r["success"]) for r in rows]


# --- timing --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Peer:
    name: str
    command: Callable[[Path], list[str]]  # the output file -> the command
    read: Callable[[Path], list[bool]]  # the output file -> pass/fail per reply, in order
    suffix: str
    ok_codes: tuple[int, ...]
    env: dict[str, str] | None = None


@dataclass(frozen=True)
class Timing:
    wall: float  # median seconds
    cpu: float  # median user + system seconds of the process tree
    passes: list[bool]


def network_off() -> list[str]:
    """``unshare -rn`` when this machine lets a process drop its network, else nothing."""
    exe = shutil.which("unshare")
    if exe is None:
        return []
    try:
        done = subprocess.run([exe, "-rn", "true"], capture_output=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return []
    return [exe, "-rn"] if done.returncode == 0 else []


def run_once(peer: Peer, out: Path, prefix: Sequence[str]) -> tuple[float, float]:
    """Wall and CPU seconds of one whole process of ``peer`` writing ``out``."""
    if out.exists():
        out.unlink()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        [*prefix, *peer.command(out)],
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
        stdin=subprocess.DEVNULL,
        env=peer.env or process_env(),
        cwd=out.parent,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in peer.ok_codes or not out.exists():
        tail = " ".join((done.stderr or done.stdout).split())[-600:]
        raise RuntimeError(f"{peer.name} exited {done.returncode} without its results: {tail}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def _out(peer: Peer, work: Path) -> Path:
    return work / f"{peer.name.replace(' ', '-').replace('(', '').replace(')', '')}{peer.suffix}"


def _scored(peer: Peer, out: Path, n: int) -> list[bool]:
    passes = peer.read(out)
    if len(passes) != n:
        raise RuntimeError(f"{peer.name} scored {len(passes)} of {n} replies")
    return passes


def time_all(
    found: Sequence[Peer], work: Path, runs: int, n: int, prefix: Sequence[str]
) -> tuple[dict[str, Timing], list[tuple[str, str]]]:
    """Each tool's median of ``runs`` whole processes, and the tools that failed with why.

    One untimed run of each first (file and bytecode caches warm, as for a user who runs it a
    second time), then ``runs`` rounds that run every tool once, so a change in the machine's
    load falls on all of them alike. Every run must score all ``n`` replies. An earnest
    failure is raised: the benchmark has nothing to compare without it."""
    passes: dict[str, list[bool]] = {}
    failed: list[tuple[str, str]] = []
    walls: dict[str, list[float]] = {}
    cpus: dict[str, list[float]] = {}
    alive = list(found)
    for round_ in range(runs + 1):
        for peer in list(alive):
            if round_ == 0:
                print(f"warming {peer.name} ...", file=sys.stderr, flush=True)
            try:
                wall, cpu = run_once(peer, _out(peer, work), prefix)
                scored = _scored(peer, _out(peer, work), n)
            except (RuntimeError, OSError, subprocess.TimeoutExpired) as exc:
                if peer.name.startswith("earnest"):
                    raise
                failed.append((peer.name, f"did not run: {exc}"))
                alive.remove(peer)
                continue
            if round_ == 0:
                passes[peer.name] = scored
            else:
                walls.setdefault(peer.name, []).append(wall)
                cpus.setdefault(peer.name, []).append(cpu)
        if round_:
            print(f"round {round_} of {runs} done", file=sys.stderr, flush=True)
    timings = {
        p.name: Timing(
            statistics.median(walls[p.name]), statistics.median(cpus[p.name]), passes[p.name]
        )
        for p in alive
        if p.name in walls
    }
    return timings, failed


def peers(
    work: Path,
    mix: Sequence[tuple[Fixture, str]],
    rules: dict[str, Rule],
    install: bool,
) -> tuple[list[Peer], list[tuple[str, str]]]:
    """Every tool to time, its input written to ``work``, and the peers skipped with why."""
    replies = work / "replies.jsonl"
    write_replies(mix, replies)
    found = [
        Peer(
            "earnest --jobs 1",
            lambda out: earnest_command(replies, out, 1),
            earnest_passes,
            ".jsonl",
            (0, 1),
        ),
        Peer(
            "earnest (default jobs)",
            lambda out: earnest_command(replies, out, None),
            earnest_passes,
            ".jsonl",
            (0, 1),
        ),
    ]
    skipped: list[tuple[str, str]] = []
    try:
        log = work / "replies.eval"
        write_inspect_log(mix, rules, log)
        command = inspect_command(log, work / "probe.eval")
        if command is None:
            skipped.append(("inspect score", f"no inspect script beside {sys.executable}"))
        else:
            found.append(
                Peer(
                    "inspect score",
                    lambda out: inspect_command(log, out) or [],
                    inspect_passes,
                    ".eval",
                    (0,),
                )
            )
    except ImportError as exc:
        skipped.append(
            ("inspect score", f"inspect_ai is not installed ({exc}): pip install -e '.[dev]'")
        )
    exe, why = install_promptfoo(install)
    if exe is None:
        skipped.append((f"promptfoo {PROMPTFOO_VERSION}", why))
    else:
        config = work / "promptfooconfig.json"
        write_promptfoo_config(mix, rules, config)
        home = work / "promptfoo-home"
        home.mkdir(exist_ok=True)
        found.append(
            Peer(
                f"promptfoo {PROMPTFOO_VERSION}",
                lambda out: promptfoo_command(exe, config, out),
                promptfoo_passes,
                ".json",
                (0, 100),  # 100: some assertions failed (a third of the replies fail)
                promptfoo_env(home),
            )
        )
    return found, skipped


def report(
    timings: dict[str, Timing],
    skipped: Sequence[tuple[str, str]],
    n: int,
    load: tuple[float, int] | None = None,
) -> list[str]:
    """The table: each tool's figures beside earnest ``--jobs 1``'s, the skipped peers, the
    verdict on the >= 5x target in wall and in CPU time. ``load``: the machine's load average
    during the runs and its cores (a busy machine's wall times include waiting for a core)."""
    base = timings["earnest --jobs 1"]
    lines = [
        f"{'tool':<24}{'wall s':>9}{'replies/s':>11}{'cpu s':>8}{'earnest x':>11}"
        f"{'cpu x':>8}{'agrees':>9}"
    ]
    met_wall = met_cpu = True
    for name, t in timings.items():
        agree = sum(a == b for a, b in zip(t.passes, base.passes, strict=True))
        ratio, cpu_ratio = t.wall / base.wall, t.cpu / base.cpu
        lines.append(
            f"{name:<24}{t.wall:>9.2f}{n / t.wall:>11,.0f}{t.cpu:>8.2f}{ratio:>10.1f}x"
            f"{cpu_ratio:>7.1f}x{agree / n:>9.0%}"
        )
        if not name.startswith("earnest"):
            met_wall = met_wall and ratio >= TARGET
            met_cpu = met_cpu and cpu_ratio >= TARGET
    lines += [f"{name}: skipped: {why}" for name, why in skipped]
    if any(not k.startswith("earnest") for k in timings):
        lines.append(
            f"target: earnest --jobs 1 >= {TARGET:.0f}x faster than every peer that ran: "
            f"wall {'met' if met_wall else 'NOT met'}, cpu {'met' if met_cpu else 'NOT met'}"
        )
    else:
        lines.append(f"target >= {TARGET:.0f}x: not measured (no peer ran)")
    if load is not None and load[0] > load[1]:
        lines.append(
            f"the machine was busy (load {load[0]:.1f} on {load[1]} cores): wall times include "
            "waiting for a core, which costs a single-threaded process most; the CPU ratio is "
            "the steadier figure"
        )
    lines.append(
        "'earnest x': the tool's wall time over earnest --jobs 1's (how many times faster "
        "earnest is), 'cpu x' the same in CPU time (user + system of the process tree); "
        "'agrees': replies on which its pass/fail matches earnest's verdict (the peers' regex "
        "reads a draft CHOICE inside <think> and passes a fallback such as "
        "'CHOICE: B, otherwise D')"
    )
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--replies", type=int, default=2000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--no-install", action="store_true", help="never call npm")
    args = ap.parse_args(argv)
    runs = max(5, args.runs)
    mix, rules = build(args.replies)
    n = len(mix)
    prefix = network_off()
    avg = sum(len(r) for _, r in mix) / n
    load = os.getloadavg()[0]
    print(
        f"earnest score vs peers, whole processes: {n} replies of {avg:.0f} chars, "
        f"{len(FORMS)} envelopes; wall clock, median of {runs} runs after one warm-up; "
        f"network: {'none (unshare -rn)' if prefix else 'not cut off (no unshare)'}; "
        f"{os.cpu_count()} cores, load {load:.1f}"
    )
    with tempfile.TemporaryDirectory(prefix="earnest-peers-") as tmp:
        work = Path(tmp)
        found, skipped = peers(work, mix, rules, install=not args.no_install)
        timings, failed = time_all(found, work, runs, n, prefix)
        skipped += failed
    cores = os.cpu_count() or 1
    for line in report(timings, skipped, n, (max(load, os.getloadavg()[0]), cores)):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())

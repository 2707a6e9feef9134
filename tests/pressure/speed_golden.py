"""A golden file of judgements over every reply-shaped text the repository holds, for proving
that a speed change moved no verdict, reason or recorded field.

The corpus: the ``benchmarks/bench_score.py`` mix (2,000 replies in every envelope, stored in the
golden file itself so the benchmark may change), every line and every whole file of the real
transcripts and event logs under ``tests/data`` and ``examples`` (Claude Code, Codex and Gemini
logs, hook inputs, recorded replies and acted samples) and the test-runner outputs of
``tests/data/claims``. Each is judged against a fixture of the example suite or of the odd
doctrine of ``judge_corpus.py`` (by turns), under the three citation modes by turns. A record
keeps the verdict and reason (to read a difference) and the first 64 bits of a SHA-256 of the
whole judgement.

Written once from the scorer *before* a speed change; regenerate only when a verdict change is
intended, and say so in the commit:

    python tests/pressure/speed_golden.py --write
"""

from __future__ import annotations

import argparse
import hashlib
import json
import lzma
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from judge_corpus import suites  # noqa: E402

GOLDEN = Path(__file__).with_name("snapshots") / "speed_golden.json.xz"
SOURCES = ("tests/data", "examples/trajectories", "examples/agentic", "examples/suite/recorded")
MODES: tuple[dict[str, Any], ...] = (
    {},
    {"citations_from_reasoning": True},
    {"citation": "optional"},
)


def digest(judgement: dict[str, Any]) -> str:
    blob = json.dumps(judgement, sort_keys=True, ensure_ascii=False).encode(
        "utf-8", "surrogatepass"
    )
    return hashlib.sha256(blob).hexdigest()[:16]


def text_digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def judge_one(suite: str, fixture_id: str, mode: int, response: str) -> dict[str, Any]:
    from earnest.pressure.verdict import judge

    rules, fixtures = suites()[suite]
    j = judge(fixtures[fixture_id], rules, response, **MODES[mode])
    d = j.as_dict()
    return {"verdict": d["verdict"], "reason": d["reason"], "digest": digest(d)}


def _pick(i: int) -> tuple[str, str, int]:
    """The suite, fixture and mode the ``i``-th text is judged under."""
    names = sorted(suites())
    name = names[i % len(names)]
    ids = sorted(suites()[name][1])
    return name, ids[(i // len(names)) % len(ids)], i % len(MODES)


def file_texts() -> Iterator[tuple[str, int, str]]:
    """(path, line number or 0 for the whole file, text) of every text file under SOURCES."""
    for source in SOURCES:
        for path in sorted((REPO / source).rglob("*")):
            if not path.is_file() or path.suffix not in {".jsonl", ".json", ".txt", ".md"}:
                continue
            text = path.read_bytes().decode("utf-8", "replace")
            rel = path.relative_to(REPO).as_posix()
            yield rel, 0, text
            if path.suffix == ".jsonl":
                for n, line in enumerate(text.splitlines(), 1):
                    if line.strip():
                        yield rel, n, line


def bench_replies() -> list[tuple[str, str]]:
    sys.path.insert(0, str(REPO / "benchmarks"))
    import bench_score

    mix, _ = bench_score.build(2000)
    return [(fx.id, reply) for fx, reply in mix]


def judge_files() -> list[dict[str, Any]]:
    out = []
    for i, (path, line, text) in enumerate(file_texts()):
        suite, fixture_id, mode = _pick(i)
        rec = {
            "path": path,
            "line": line,
            "text": text_digest(text),
            "suite": suite,
            "fixture_id": fixture_id,
            "mode": mode,
        }
        out.append({**rec, **judge_one(suite, fixture_id, mode, text)})
    return out


def load() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(lzma.decompress(GOLDEN.read_bytes()))
    return data


def write() -> None:
    bench = []
    for i, (fixture_id, reply) in enumerate(bench_replies()):
        mode = i % len(MODES)
        rec = {"fixture_id": fixture_id, "mode": mode, "response": reply}
        bench.append({**rec, **judge_one("example", fixture_id, mode, reply)})
    data = {"bench": bench, "files": judge_files()}
    blob = json.dumps(data, ensure_ascii=False).encode()
    GOLDEN.write_bytes(lzma.compress(blob, preset=9 | lzma.PRESET_EXTREME))
    print(f"wrote {GOLDEN}: {len(bench)} bench replies, {len(data['files'])} file texts")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--write", action="store_true")
    if not ap.parse_args().write:
        ap.error("nothing to do: pass --write")
    write()
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""``trajectory convert`` redacts in the same streaming pass as the write (issue 27).

:mod:`earnest.redact_stream` must write exactly what redacting the whole serialized line
wrote (the same secrets, the same labels, byte for byte), cutting only where no rule can match
across, and hold one segment instead of the line: the peak memory of writing a 50 MB document
is no more than about that of a 5 MB one (a growth ratio, never a timing).
"""

from __future__ import annotations

import doctest
import json
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

import earnest.redact_stream
from conftest import EXAMPLES, run_earnest
from earnest.redact import redact
from earnest.redact_stream import json_pieces, scrub_pieces
from earnest.trajectory import ReadReport, iter_paths, read_trajectories

DATA = Path(__file__).resolve().parents[1] / "data" / "transcripts"

ANTHROPIC = "sk-ant-api03-" + "Ab1_" * 10
AWS_ID = "AKIAIOSFODNN7EXAMPLE"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
KEY_BODY = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC" * 3
HEADER, FOOTER = "-----BEGIN PRIVATE KEY-----", "-----END PRIVATE KEY-----"


def _whole(value: Any) -> str:
    return redact(json.dumps(value, ensure_ascii=False))


def _streamed(value: Any, segment: int) -> str:
    return "".join(scrub_pieces(json_pieces(value), segment=segment))


def test_examples_hold() -> None:
    assert doctest.testmod(earnest.redact_stream).failed == 0


def _trajectories() -> list[Any]:
    files = sorted(iter_paths([EXAMPLES / "trajectories", DATA]))
    out = []
    for path in files:
        out += [t.to_dict() for t in read_trajectories(path, report=ReadReport())]
    assert len(out) > 20
    return out


def test_pieces_are_json_dumps_on_every_real_trajectory() -> None:
    for value in _trajectories():
        assert "".join(json_pieces(value)) == json.dumps(value, ensure_ascii=False)


@pytest.mark.parametrize("segment", [1, 97, 4096])
def test_streamed_redaction_is_the_whole_lines_on_real_trajectories(segment: int) -> None:
    for value in _trajectories():
        assert _streamed(value, segment) == _whole(value)


def _messages(*texts: str) -> dict[str, Any]:
    return {
        "id": "t",
        "messages": [{"role": "assistant", "text": text} for text in texts],
        "metadata": {"aws_secret_access_key": AWS_SECRET, "n": 3, "ok": True},
    }


ACROSS = {
    # an AWS key id in one message, its secret in the next: the pair rule reaches across
    "aws pair across messages": _messages(f"id {AWS_ID}", f"{AWS_SECRET} was it"),
    # a private key's header in one message and its footer two messages later
    "private key across messages": _messages(f"{HEADER}\n{KEY_BODY}", "middle", FOOTER),
    # a header whose footer is too close (the rule reads on to a later footer)
    "short key then a later footer": _messages(f"{HEADER}\ndata\n{FOOTER}", "x" * 50, FOOTER),
    # a quoted key (body too short to end it) inside an earlier key's match, no footer after
    "quoted key inside a key": _messages(
        f"{HEADER}\n{KEY_BODY}", f"'{HEADER}\\ndata\\n{FOOTER}'", "x" * 300
    ),
    # a footer just under and just over 16 characters after a header (the quick cut check)
    "footer at the edge": _messages(f"{HEADER}" + "y" * 15, FOOTER, "z" * 80, FOOTER),
    "block header": _messages(HEADER.replace("KEY-", "KEY BLOCK-"), "a" * 16, FOOTER, "b"),
    "not a private key": _messages("-----BEGIN CERTIFICATE-----", "c" * 300, ANTHROPIC),
    # a header and no footer at all
    "unterminated header": _messages(HEADER, "x" * 300, f"{ANTHROPIC}"),
    "bearer at a message's end": _messages("Authorization: Bearer", f" {ANTHROPIC}"),
    "secrets at both edges": _messages(ANTHROPIC, ANTHROPIC + "}", "{" + ANTHROPIC),
    "labels already there": _messages(f"{AWS_ID}[REDACTED:aws-access-key-id] {AWS_SECRET}"),
}


@pytest.mark.parametrize("name", list(ACROSS))
@pytest.mark.parametrize("segment", [1, 40, 1 << 18])
def test_streamed_redaction_holds_across_cuts(name: str, segment: int) -> None:
    value = ACROSS[name]
    assert _streamed(value, segment) == _whole(value)


def test_a_pair_across_messages_is_redacted() -> None:
    written = _streamed(ACROSS["aws pair across messages"], 1)
    assert AWS_ID not in written and AWS_SECRET not in written


def _document(megabytes: int) -> dict[str, Any]:
    """A trajectory-shaped document of about ``megabytes`` MB serialized, secrets sprinkled."""
    text = "Ran the suite; all green. " * 38  # ~1 KB
    count = megabytes * 1000
    return {
        "id": "big",
        "messages": [
            {"role": "assistant", "text": text + (ANTHROPIC if i % 97 == 0 else "")}
            for i in range(count)
        ],
        "tool_calls": [],
    }


def _write_peak(value: Any) -> tuple[int, int]:
    """Peak memory (tracemalloc) of writing ``value`` redacted, beyond the document itself,
    and the characters written."""
    written = 0
    tracemalloc.start()
    try:
        for piece in scrub_pieces(json_pieces(value)):
            written += len(piece)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak, written


def test_redacted_writing_memory_is_flat_from_5_to_50_mb() -> None:
    small_peak, small = _write_peak(_document(5))
    big_peak, big = _write_peak(_document(50))
    assert big > 9 * small  # ten times the text written...
    # ...for about the same peak: one segment at a time, not the line (the whole line
    # redacted at once peaks at three times the line).
    assert big_peak < 1.5 * small_peak, (small_peak, big_peak)


def test_convert_writes_the_redacted_whole_line(tmp_path: Path) -> None:
    source = tmp_path / "t.jsonl"
    lines = [
        {"type": "user", "uuid": "u1", "message": {"role": "user", "content": f"id {AWS_ID}"}},
        {
            "type": "assistant",
            "uuid": "a1",
            "message": {
                "role": "assistant",
                "id": "m1",
                "content": [{"type": "text", "text": f"{AWS_SECRET} {ANTHROPIC}"}],
            },
        },
    ]
    source.write_text("".join(json.dumps(line) + "\n" for line in lines))
    done = run_earnest("trajectory", "convert", str(source), "--input-format", "claude-code")
    assert done.returncode == 0, done.stderr
    (written,) = done.stdout.splitlines()
    assert AWS_SECRET not in written and ANTHROPIC not in written
    (t,) = read_trajectories(source, report=ReadReport(), format="claude-code")
    assert written == _whole(t.to_dict())

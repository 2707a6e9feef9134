"""Rebuild a battery summary from per-trajectory results (``earnest trajectory aggregate``).

``earnest trajectory score --format jsonl`` writes one record per trajectory; scored in
shards (``--shard i/N``) or on several machines, the records are combined here into the
summary of scoring everything at once. The summary is made by the one battery code
(:class:`earnest.trajectory.battery.BatteryTally`, fed the same records the scorer feeds
it), so the two are equal, whatever the order of the files.

Each record is checked before it is counted: a wrong record stops with the file, the line
and what is wrong. A trajectory counted twice (a file given twice, overlapping shards) is
an error too, not a silent double count, and so are shards scored with different settings
(each record carries its ``settings``: the dimensions, ``--strict-claims``, the gate's budget).

Example:
    >>> battery = aggregate_results([])
    >>> battery.summary()["trajectories"]
    0
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from earnest.errors import InputError
from earnest.results import read_checked_jsonl
from earnest.trajectory.battery import OUTCOMES, Battery

_GATE_KEYS = ("claims", "downgraded", "exhausted")


def check_record(record: object) -> str | None:
    """What is wrong with ``record`` as a ``trajectory score`` jsonl object, or ``None``."""
    if not isinstance(record, dict):
        return "expected a JSON object (one trajectory result per line)"
    for key in ("source", "trajectory_id", "format", "outcome"):
        if not isinstance(record.get(key), str):
            return f"{key!r} must be a string"
    if record["outcome"] not in OUTCOMES:
        return f"'outcome' must be one of {', '.join(OUTCOMES)}, got {record['outcome']!r}"
    for key in ("completion_without_effect", "terminated_abnormally", "claimed_completion"):
        if not isinstance(record.get(key), bool):
            where = " (written by an earlier earnest? score again)" * (key == "claimed_completion")
            return f"{key!r} must be true or false{where}"
    if record["completion_without_effect"] != (record["outcome"] == "completion_without_effect"):
        return "'completion_without_effect' disagrees with 'outcome'"
    termination = record.get("termination")
    if not isinstance(termination, dict) or not isinstance(termination.get("reason"), str):
        return "'termination' must be an object with a string 'reason'"
    aggregate = record.get("aggregate")
    if aggregate is not None and not _fraction(aggregate):
        return "'aggregate' must be a number from 0 to 1 or null"
    dimensions = record.get("dimensions")
    if not isinstance(dimensions, dict):
        return "'dimensions' must be an object"
    for name, body in dimensions.items():
        if not isinstance(body, dict):
            return f"dimensions.{name} must be an object"
        for key in ("score", "confidence"):
            if not _fraction(body.get(key)):
                return f"dimensions.{name}.{key} must be a number from 0 to 1"
    gate = record.get("gate")
    if not isinstance(gate, dict):
        return "'gate' must be an object"
    settings = record.get("settings")
    if settings is not None and not isinstance(settings, dict):
        return "'settings' must be an object"
    for key in _GATE_KEYS:
        value = gate.get(key)
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            return f"gate.{key} must be a whole number"
    return None


def read_results(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, record)`` for every checked record of ``path``; blank lines skipped."""
    return read_checked_jsonl(path, check_record)


def aggregate_results(paths: Iterable[Path]) -> Battery:
    """The battery of every record in ``paths`` (counts only; no result is kept). Records
    scored with different settings (``settings``: dimensions, ``--strict-claims``, the gate's
    budget) are not one battery: the first that differs from the first record's stops with
    both files named."""
    battery = Battery(keep_results=False)
    seen: set[bytes] = set()
    first: tuple[Path, int, object] | None = None
    for path in paths:
        for number, record in read_results(path):
            settings = record.get("settings")
            if first is None:
                first = (path, number, settings)
            elif settings != first[2]:
                raise InputError(
                    path,
                    f"line {number}",
                    f"scored with other settings than {first[0]} line {first[1]} "
                    f"({_differences(settings, first[2])}): results scored differently are "
                    "not one battery; score every shard with the same options",
                )
            key = _key(record)
            if key in seen:
                raise InputError(
                    path,
                    f"line {number}",
                    f"trajectory {record['trajectory_id']!r} of {record['source']!r} is already "
                    "counted: a file given twice, or overlapping shards",
                )
            seen.add(key)
            battery.add_record(record)
    return battery


def _differences(here: object, there: object) -> str:
    """What differs between two records' ``settings``, in the user's words."""
    if not isinstance(here, dict) or not isinstance(there, dict):
        missing = "here" if not isinstance(here, dict) else "there"
        return f"no settings recorded {missing}: written by an earlier earnest? score again"
    parts = []
    for key in sorted(set(here) | set(there)):
        if here.get(key) != there.get(key):
            parts.append(f"{key} {_shown(here.get(key))} here, {_shown(there.get(key))} there")
    return "; ".join(parts)


def _shown(value: object) -> str:
    if isinstance(value, list):
        return ",".join(str(v) for v in value) or "none"
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)


def _key(record: Mapping[str, Any]) -> bytes:
    # A digest, not the strings: the set of seen trajectories stays small per record.
    text = f"{record['source']}\0{record['trajectory_id']}"
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


def _fraction(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and 0 <= value <= 1


__all__ = ["aggregate_results", "check_record", "read_results"]

"""Read recorded replies: JSONL, one sample per line (DESIGN.md "Recorded replies").

``{"fixture_id": str, "response": str, "model"?: str, "arm"?: "rule"|"ablated",
"epoch"?: int, "order"?: [choice ids in displayed order], "did"?: {commands, created, changed,
deleted}}`` (``did``: what an acted-out sample did, :class:`~earnest.pressure.evidence.Behaviour`). Other keys are kept in ``extra``
and otherwise ignored. Blank lines are skipped, and so are the lines of void samples
(``"void": {"kind", "error"}``: ``earnest export`` writes them to keep a crashed or timed-out
agent's ``did``): a void has no reply to judge, so scoring and replay never see one. Reading streams: one line at a time, so a
file of any size is read in constant memory.

Every defect stops reading with :class:`~earnest.errors.InputError` naming the file, the line
and what is wrong: invalid JSON, a line that is not an object, a missing or mistyped field, an
unknown ``arm``, an ``epoch`` that is not a whole number >= 0, a fixture id the suite does not
have, an ``order`` that is not a permutation of the fixture's choice ids, text that is not UTF-8.

Example:
    >>> import tempfile
    >>> from earnest.pressure.models import Choice, Fixture
    >>> fx = Fixture("F-1", "a", "8", "t", "s", (), (Choice("A", "x", False), Choice("B", "y", True)), "B", ())
    >>> path = Path(tempfile.mkdtemp()) / "r.jsonl"
    >>> _ = path.write_text('{"fixture_id": "F-1", "response": "CHOICE: B", "order": ["B", "A"]}\\n')
    >>> [(r.fixture_id, r.order, r.line) for r in read_replies(path, {"F-1": fx})]
    [('F-1', ('B', 'A'), 1)]
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, get_args

from earnest.errors import InputError
from earnest.pressure.evidence import Behaviour
from earnest.pressure.models import Arm, Fixture
from earnest.safejson import loads as safe_loads
from earnest.textfile import not_regular

ARMS: tuple[str, ...] = get_args(Arm)
STDIN = "-"


@dataclass(frozen=True, slots=True)
class ReplyRecord:
    """One recorded reply and where it came from (``file``, 1-based ``line``).

    ``order`` is ``None`` when the line gave none: the fixture's own order applies.
    """

    fixture_id: str
    response: str
    file: str
    line: int
    model: str | None = None
    arm: Arm | None = None
    epoch: int | None = None
    order: tuple[str, ...] | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    did: Behaviour | None = None
    """What the agent did when it acted the fixture out (``did``; agentic fixtures)."""

    def as_dict(self) -> dict[str, Any]:
        """Where the reply came from and its sample keys, without the response text."""
        out: dict[str, Any] = {"file": self.file, "line": self.line, "fixture_id": self.fixture_id}
        for key in ("model", "arm", "epoch"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        return out


_KNOWN = frozenset({"fixture_id", "response", "model", "arm", "epoch", "order", "did"})


def read_replies(
    path: str | Path,
    fixtures: Mapping[str, Fixture],
    *,
    broken: Mapping[str, str] | None = None,
) -> Iterator[ReplyRecord]:
    """Yield the replies in ``path`` (``"-"``: standard input), checked against ``fixtures``.

    ``broken`` maps the ids of fixtures that exist but failed to load to their file, so the
    error for a reply to one says so instead of "unknown fixture".
    """
    name = "<stdin>" if str(path) == STDIN else str(path)
    if str(path) == STDIN:
        yield from _read_stream(sys.stdin.buffer, name, fixtures, broken or {})
        return
    kind = not_regular(Path(path))
    if kind is not None and kind != "a folder":
        # Never opened: opening a FIFO with no writer blocks forever, a device reads forever.
        raise InputError(name, None, f"replies file is {kind}, not a regular file: not read")
    try:
        fh = open(path, "rb")  # noqa: SIM115 - closed by the with-block below
    except FileNotFoundError:
        raise InputError(name, None, "replies file does not exist") from None
    except IsADirectoryError:
        raise InputError(name, None, "is a folder, expected a JSONL replies file") from None
    except OSError as exc:
        raise InputError(name, None, f"cannot read: {exc.strerror}") from None
    with fh:
        yield from _read_stream(fh, name, fixtures, broken or {})


def _read_stream(
    fh: IO[bytes], name: str, fixtures: Mapping[str, Fixture], broken: Mapping[str, str]
) -> Iterator[ReplyRecord]:
    for number, raw in enumerate(fh, start=1):
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(name, f"line {number}", f"not UTF-8 text ({exc.reason})") from None
        if number == 1 and line.startswith("\ufeff"):
            line = line[1:]
        if not line.strip():
            continue
        record = parse_reply_line(line, name, number, fixtures, broken)
        if "void" not in record.extra:
            yield record


def parse_reply_line(
    line: str,
    file: str,
    number: int,
    fixtures: Mapping[str, Fixture],
    broken: Mapping[str, str] | None = None,
) -> ReplyRecord:
    """Check one JSONL line and build its :class:`ReplyRecord`."""
    place = f"line {number}"
    try:
        obj = safe_loads(line)
    except json.JSONDecodeError as exc:
        raise InputError(file, place, f"invalid JSON: {exc.msg} (column {exc.colno})") from None
    except ValueError as exc:  # nested too deeply, an integer of more than 4,300 digits
        raise InputError(file, place, f"invalid JSON: {str(exc).split(':')[0]}") from None
    if not isinstance(obj, dict):
        raise InputError(file, place, f"expected a JSON object, got {_kind(obj)}")

    fixture_id = _required_str(obj, "fixture_id", file, place)
    response = obj.get("response")
    if "response" not in obj:
        raise InputError(file, place, "missing field 'response'")
    if not isinstance(response, str):
        raise InputError(file, place, f"'response' must be a string, got {_kind(response)}")

    fixture = fixtures.get(fixture_id)
    if fixture is None:
        if broken and fixture_id in broken:
            raise InputError(
                file,
                place,
                f"fixture {fixture_id!r} did not load ({broken[fixture_id]} has defects: "
                "run `earnest lint`)",
            )
        raise InputError(
            file, place, f"unknown fixture id {fixture_id!r}{_suggest(fixture_id, fixtures)}"
        )

    model = obj.get("model")
    if model is not None and not isinstance(model, str):
        raise InputError(file, place, f"'model' must be a string, got {_kind(model)}")
    arm = obj.get("arm")
    if arm is not None and arm not in ARMS:
        raise InputError(
            file, place, f"'arm' must be one of {', '.join(ARMS)}, got {json.dumps(arm)}"
        )
    epoch = obj.get("epoch")
    if epoch is not None and (isinstance(epoch, bool) or not isinstance(epoch, int) or epoch < 0):
        raise InputError(
            file, place, f"'epoch' must be a whole number >= 0, got {json.dumps(epoch)}"
        )
    order = _order(obj.get("order"), fixture, file, place) if "order" in obj else None
    did: Behaviour | None = None
    if obj.get("did") is not None:
        try:
            did = Behaviour.from_dict(obj["did"])
        except ValueError as exc:
            raise InputError(file, place, str(exc)) from None

    extra = {k: v for k, v in obj.items() if k not in _KNOWN}
    return ReplyRecord(
        fixture_id=fixture_id,
        response=response,
        file=file,
        line=number,
        model=model,
        arm=arm,
        epoch=epoch,
        order=order,
        extra=extra,
        did=did,
    )


def _required_str(obj: Mapping[str, Any], key: str, file: str, place: str) -> str:
    if key not in obj:
        raise InputError(file, place, f"missing field {key!r}")
    value = obj[key]
    if not isinstance(value, str) or not value.strip():
        raise InputError(file, place, f"{key!r} must be a non-empty string, got {_kind(value)}")
    return value


def _order(value: Any, fixture: Fixture, file: str, place: str) -> tuple[str, ...] | None:
    if value is None:
        return None
    ids = fixture.choice_ids
    if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
        raise InputError(file, place, f"'order' must be a list of choice ids, got {_kind(value)}")
    if len(value) != len(ids) or set(value) != set(ids):
        raise InputError(
            file,
            place,
            f"'order' {json.dumps(value)} is not a permutation of fixture {fixture.id}'s "
            f"choices {json.dumps(list(ids))}",
        )
    return tuple(value)


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return f"the number {value}"
    if isinstance(value, str):
        return "an empty string" if not value.strip() else "a string"
    if isinstance(value, list):
        return "a list"
    return "an object"


def _suggest(fixture_id: str, fixtures: Mapping[str, Fixture]) -> str:
    import difflib

    close = difflib.get_close_matches(fixture_id, list(fixtures), n=1)
    return f" (did you mean {close[0]!r}?)" if close else " (not in the suite)"


__all__ = ["ARMS", "STDIN", "ReplyRecord", "parse_reply_line", "read_replies"]

"""Inspect AI evaluation logs: each sample of an agent eval is one trajectory.

Read: the ``.eval`` log (a zip archive: ``header.json``, ``_journal/start.json`` and one
``samples/<id>_epoch_<n>.json`` per sample; also a log still being written, whose samples
are read as far as they are there) and the older ``.json`` log (one document with a
``samples`` list). Neither needs inspect_ai: the archive is read with :mod:`zipfile` and the
Zstandard members inspect_ai writes with the ``zstandard`` package
(:mod:`earnest.trajectory.readers.ziparchive`), every member bounded, nothing extracted.

A sample's ``messages`` are its trajectory: user messages before the model's first reply
are the prompt (the dataset's input), later ones the harness's feedback (e.g. a ``react``
agent's "please continue"); assistant ``tool_calls`` (``function`` names the tool,
``arguments`` a dict) are answered by ``tool`` messages by ``tool_call_id``; a ``tool``
message with an ``error`` (``{type, message}``) is a failed call; the last assistant text
is the final answer (an old ``basic_agent`` ``submit(answer)`` call that ends the sample
supplies it when no text follows). A sample ``error`` ends the run as ``api_error``, a
sample ``limit`` as ``max_turns`` (message, turn), ``usage_limit`` (token, cost, context)
or ``interrupted`` (time, working, operator, custom). Content condensed into
``attachment://<hash>`` references is resolved from the sample's ``attachments``.

Example:
    >>> from earnest.trajectory.report import ReadReport
    >>> t = sample_trajectory("log.eval", {"id": "s1", "epoch": 1, "messages": [
    ...     {"role": "user", "content": "Create a.txt", "source": "input"},
    ...     {"role": "assistant", "content": "", "tool_calls": [{"id": "c1",
    ...      "function": "write_file", "arguments": {"path": "a.txt", "content": "x"}}]},
    ...     {"role": "tool", "tool_call_id": "c1", "function": "write_file", "content": "",
    ...      "error": {"type": "permission", "message": "read-only file system"}},
    ...     {"role": "assistant", "content": "Done."}]}, {}, ReadReport())
    >>> t.id, t.tool_calls[0].outcome, t.tool_calls[0].error, t.final_message
    ('s1#1', 'error', 'permission: read-only file system', 'Done.')
"""

from __future__ import annotations

import zipfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from earnest.safejson import loads as safe_loads
from earnest.trajectory.model import MessageKind, TerminationReason, Trajectory
from earnest.trajectory.readers.builder import TrajectoryBuilder
from earnest.trajectory.readers.documents import load_document
from earnest.trajectory.readers.edits import structured_edits
from earnest.trajectory.readers.ziparchive import ZIP_MAGIC, ArchiveError, TooLarge, read_member
from earnest.trajectory.report import ReadReport
from earnest.trajectory.text import (
    as_dict,
    as_list,
    as_str,
    content_text,
    parse_arguments,
    user_text_kind,
)

FORMAT = "inspect"

MAX_MEMBER_BYTES = 256 * 1024 * 1024
"""The most one member of a ``.eval`` archive may hold uncompressed (a sample with its
events); a larger member is skipped with a warning."""
MAX_HEADER_BYTES = 64 * 1024 * 1024
MAX_ARCHIVE_BYTES = 1024 * 1024 * 1024
"""The most a whole ``.eval`` archive may inflate to, all members together: past it, the
samples not yet read are skipped with a warning naming the file (an archive of many members,
each under :data:`MAX_MEMBER_BYTES`, is bounded too)."""
MAX_ATTACHMENT_CHARS = 64 * 1024 * 1024
"""The most attachment text one sample may resolve (``attachment://<hash>`` references,
each counted every time it is used): one attachment referenced ten thousand times would
otherwise make a small file expand a thousandfold. Past it the sample is skipped with a
warning naming the file and the sample."""

_HEADERS = ("header.json", "_journal/start.json")
_ATTACHMENT = "attachment://"
_LIMITS: dict[str, TerminationReason] = {
    "message": "max_turns",
    "turn": "max_turns",
    "token": "usage_limit",
    "cost": "usage_limit",
    "context": "usage_limit",
}


def is_eval_archive(path: Path) -> bool:
    """Whether ``path`` (a zip archive) is an Inspect ``.eval`` log: it holds a header or a
    journal; an unreadable zip counts when it is named ``*.eval`` (the reader reports it)."""
    try:
        with zipfile.ZipFile(path) as archive:
            names = set(archive.namelist())
    except (zipfile.BadZipFile, OSError, ValueError, NotImplementedError, EOFError):
        return path.suffix == ".eval"
    return any(h in names for h in _HEADERS) or (
        path.suffix == ".eval" and any(_is_sample_member(n) for n in names)
    )


def _is_sample_member(name: str) -> bool:
    """``samples/<id>_epoch_<n>.json`` (inspect_ai writes the id as it is)."""
    return name.startswith("samples/") and name.endswith(".json")


def is_json_log(doc: Mapping[str, Any]) -> bool:
    """Whether a JSON document is an Inspect ``.json`` log (its ``eval`` spec names a task)."""
    spec = doc.get("eval")
    return isinstance(spec, dict) and "task" in spec and ("samples" in doc or "plan" in doc)


def read(path: Path, report: ReadReport, **options: Any) -> Iterator[Trajectory]:
    """One trajectory per sample of an Inspect ``.eval`` or ``.json`` log."""
    with open(path, "rb") as handle:
        magic = handle.read(len(ZIP_MAGIC))
    if magic == ZIP_MAGIC or path.suffix == ".eval":
        yield from _read_archive(path, report, options)
        return
    doc = load_document(path, report)
    if doc is None:
        return
    if not isinstance(doc, dict) or not isinstance(doc.get("samples", []), list):
        report.warn(str(path), None, "not an Inspect log (no samples list)")
        return
    spec = as_dict(doc.get("eval"))
    for number, sample in enumerate(as_list(doc.get("samples")), 1):
        if not isinstance(sample, dict):
            report.skip(str(path), None, f"sample {number} is not an object")
            continue
        trajectory = _bounded_sample(str(path), sample, spec, report, options)
        if trajectory is not None:
            yield trajectory


def _read_archive(path: Path, report: ReadReport, options: dict[str, Any]) -> Iterator[Trajectory]:
    name = str(path)
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, ValueError, NotImplementedError, EOFError) as exc:
        report.warn(name, None, f"not a readable .eval log: damaged zip archive ({exc})")
        return
    with archive:
        budget = _Budget(MAX_ARCHIVE_BYTES)
        spec = _spec(archive, path, report, budget)
        seen: set[str] = set()
        members = archive.infolist()
        for index, info in enumerate(members):
            member = info.filename
            # Any name under samples/: a sample id may hold "/" or "..", and a name is
            # only looked up here, never used as a path (nothing is extracted).
            if member in seen or not _is_sample_member(member):
                continue
            seen.add(member)
            limit = min(MAX_MEMBER_BYTES, budget.left)
            try:
                data = read_member(archive, path, info, limit=limit)
            except ArchiveError as exc:
                if limit < MAX_MEMBER_BYTES and isinstance(exc, TooLarge):
                    left = sum(1 for m in members[index:] if _is_sample_member(m.filename))
                    report.warn(
                        name,
                        None,
                        f"the archive inflates past {MAX_ARCHIVE_BYTES} bytes at {member}: "
                        f"{left} sample(s) not read",
                    )
                    return
                report.skip(name, None, f"{exc}; sample not read")
                continue
            budget.left -= len(data)
            try:
                sample = safe_loads(data)
                del data
            except ValueError as exc:
                report.skip(name, None, f"{member}: malformed JSON: {str(exc)[:120]}")
                continue
            if not isinstance(sample, dict):
                report.skip(name, None, f"{member}: a sample must be a JSON object")
                continue
            trajectory = _bounded_sample(name, sample, spec, report, options)
            if trajectory is not None:
                yield trajectory


class _Budget:
    """Inflated bytes an archive may still use."""

    def __init__(self, left: int) -> None:
        self.left = left


class AttachmentBound(ValueError):
    """A sample whose ``attachment://`` references resolve to more than
    :data:`MAX_ATTACHMENT_CHARS` characters."""


def _bounded_sample(
    name: str,
    sample: Mapping[str, Any],
    spec: Mapping[str, Any],
    report: ReadReport,
    options: Mapping[str, Any],
) -> Trajectory | None:
    """:func:`sample_trajectory`, or ``None`` (with a warning naming the file and the sample)
    when its attachments resolve past the bound."""
    try:
        return sample_trajectory(name, sample, spec, report, **options)
    except AttachmentBound as exc:
        report.skip(name, None, f"sample {sample.get('id')!s}: {exc}; sample not read")
        return None


def _spec(
    archive: zipfile.ZipFile, path: Path, report: ReadReport, budget: _Budget
) -> dict[str, Any]:
    """The log's ``eval`` spec (task, model, ids) from its header or journal start."""
    for member in _HEADERS:
        try:
            info = archive.getinfo(member)
        except KeyError:
            continue
        try:
            data = read_member(archive, path, info, limit=min(MAX_HEADER_BYTES, budget.left))
            budget.left -= len(data)
            header = safe_loads(data)
        except ValueError as exc:  # ArchiveError is a ValueError too
            report.warn(str(path), None, f"{member}: not read ({str(exc)[:120]})")
            continue
        spec = as_dict(as_dict(header).get("eval"))
        if spec:
            return spec
    return {}


def sample_trajectory(
    source: str,
    sample: Mapping[str, Any],
    spec: Mapping[str, Any],
    report: ReadReport,
    **options: Any,
) -> Trajectory:
    """The trajectory of one Inspect sample (``spec``: the log's ``eval`` spec, or ``{}``)."""
    sample_id, epoch = sample.get("id"), sample.get("epoch")
    builder = TrajectoryBuilder(id=f"{sample_id}#{epoch}", source=source, format=FORMAT, **options)
    attachments = _Attachments(as_dict(sample.get("attachments")), MAX_ATTACHMENT_CHARS)
    _feed(builder, as_list(sample.get("messages")), attachments, report, source, sample_id)
    _finish(builder, sample)
    scores = {
        str(k): v.get("value")
        for k, v in as_dict(sample.get("scores")).items()
        if isinstance(v, dict) and isinstance(v.get("value"), str | int | float | bool)
    }
    facts = {
        "task": spec.get("task"),
        "model": spec.get("model"),
        "eval_id": spec.get("eval_id"),
        "sample_id": sample_id,
        "epoch": epoch,
        "scores": scores or None,
    }
    builder.metadata.update({k: v for k, v in facts.items() if v is not None})
    return builder.build()


def _feed(
    builder: TrajectoryBuilder,
    messages: list[Any],
    attachments: _Attachments,
    report: ReadReport,
    name: str,
    sample_id: Any,
) -> None:
    replied = False  # user messages after the model's first reply are harness feedback
    for number, message in enumerate(messages, 1):
        if not isinstance(message, dict):
            report.skip(name, None, f"sample {sample_id}: message {number} is not an object")
            continue
        role = message.get("role")
        text = content_text(_resolve(message.get("content"), attachments))
        if role == "system":
            builder.message("system", text, kind="system")
        elif role == "user":
            kind: MessageKind = user_text_kind(text)
            if replied and kind == "prompt":
                kind = "feedback"
            builder.message("user", text, kind=kind)
        elif role == "assistant":
            replied = replied or message.get("source") != "input"
            builder.new_turn()
            if text.strip():
                builder.message("assistant", text)
            for call in as_list(message.get("tool_calls")):
                if isinstance(call, dict):
                    tool = as_str(call.get("function")) or "unknown"
                    args = parse_arguments(_resolve(call.get("arguments"), attachments))
                    builder.tool_call(
                        as_str(call.get("id")), tool, args, edits=structured_edits(tool, args)
                    )
        elif role == "tool":
            call_id = as_str(message.get("tool_call_id"))
            if call_id is None or not builder.has_call(call_id):
                pending = builder.pending_ids()
                if not pending:
                    report.skip(
                        name, None, f"sample {sample_id}: tool result {number} answers no call"
                    )
                    continue
                call_id = pending[0]
            error = as_dict(message.get("error"))
            why = as_str(error.get("message")) or ""
            kind_of_error = as_str(error.get("type")) or "error"
            builder.tool_result(
                call_id,
                is_error=bool(error),
                output=text or why,
                error=f"{kind_of_error}: {why}" if error else None,
            )
        else:
            report.skip(name, None, f"sample {sample_id}: message {number}: unknown role {role!r}")
    _submitted_answer(builder, messages, attachments)


def _submitted_answer(
    builder: TrajectoryBuilder, messages: list[Any], attachments: _Attachments
) -> None:
    """An old ``basic_agent`` ends with a ``submit(answer)`` call and no text after it:
    the answer is the agent's final word."""
    last = next((m for m in reversed(messages) if isinstance(m, dict)), None)
    if last is None or last.get("role") not in ("tool", "assistant"):
        return
    for message in reversed(messages):
        if isinstance(message, dict) and message.get("role") == "assistant":
            calls = [c for c in as_list(message.get("tool_calls")) if isinstance(c, dict)]
            submit = next((c for c in calls if c.get("function") == "submit"), None)
            if submit is not None:
                args = parse_arguments(_resolve(submit.get("arguments"), attachments))
                answer = args.get("answer")
                if isinstance(answer, str) and answer.strip():
                    builder.message("assistant", answer)
            return


def _finish(builder: TrajectoryBuilder, sample: Mapping[str, Any]) -> None:
    error = as_dict(sample.get("error"))
    limit = as_dict(sample.get("limit"))
    if error:
        message = as_str(error.get("message")) or "sample error"
        builder.terminate("api_error", message.strip().splitlines()[0][:300] if message else "")
    elif limit:
        kind = as_str(limit.get("type")) or "unknown"
        reason = _LIMITS.get(kind, "interrupted")
        value = limit.get("limit")
        if isinstance(value, float) and value.is_integer():
            value = int(value)  # inspect writes message limits as floats (6.0)
        builder.terminate(reason, f"{kind} limit {value} reached")


class _Attachments:
    """A sample's ``attachments`` with what resolving them may still add (characters)."""

    def __init__(self, table: Mapping[str, Any], limit: int) -> None:
        self.table = table
        self.left = limit
        self.limit = limit

    def take(self, key: str) -> str | None:
        found = self.table.get(key)
        if not isinstance(found, str):
            return None
        self.left -= len(found)
        if self.left < 0:
            raise AttachmentBound(
                f"attachments resolve to more than {self.limit} characters "
                "(an attachment referenced over and over)"
            )
        return found


def _resolve(value: Any, attachments: _Attachments, depth: int = 0) -> Any:
    """``value`` with ``attachment://<hash>`` strings replaced by the attached text, within
    the sample's bound (:class:`AttachmentBound` past it)."""
    if isinstance(value, str):
        if value.startswith(_ATTACHMENT):
            found = attachments.take(value[len(_ATTACHMENT) :])
            return found if found is not None else value
        return value
    if depth > 8:
        return value
    if isinstance(value, list):
        return [_resolve(v, attachments, depth + 1) for v in value]
    if isinstance(value, dict):
        return {k: _resolve(v, attachments, depth + 1) for k, v in value.items()}
    return value


__all__ = [
    "FORMAT",
    "MAX_ARCHIVE_BYTES",
    "MAX_ATTACHMENT_CHARS",
    "MAX_MEMBER_BYTES",
    "AttachmentBound",
    "is_eval_archive",
    "is_json_log",
    "read",
    "sample_trajectory",
]

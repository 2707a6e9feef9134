"""LangSmith runs: the run records LangSmith's client sends (and its API lists), one per line.

Each line is one run (``langsmith.schemas.Run``: ``id``, ``trace_id``, ``parent_run_id``,
``dotted_order``, ``name``, ``run_type``, ``inputs``, ``outputs``, ``error``, ``extra``), as
``Client.list_runs`` gives them or as the client posts them (``POST /runs`` merged with the
``PATCH`` that ends it); a JSON array of runs is read too. Every ``trace_id`` is one
trajectory, its runs in ``dotted_order`` (start order, parents first):

- ``tool`` runs are the calls: ``name``, ``inputs`` as the arguments (a lone ``input`` string
  is parsed), ``outputs.output`` (a ``ToolMessage``'s ``content``, or text) as the output; a
  run ``error`` or a ``ToolMessage`` with ``status: "error"`` (LangChain's handled tool
  error) is a failed call;
- ``llm`` runs are model turns: the human messages of their ``inputs.messages`` not seen
  yet (LangChain's serialized ``HumanMessage``, ``{"type": "human"}`` or ``{"role":
  "user"}``) and the text of ``outputs.generations`` as the reply;
- the root run's ``error`` ends the run: ``GraphRecursionError`` (LangGraph's step limit) at
  the turn cap, anything else as an API error.

Example:
    >>> import json, tempfile, pathlib
    >>> runs = [
    ...   {"id": "r", "trace_id": "r", "dotted_order": "1r", "run_type": "chain", "name": "G"},
    ...   {"id": "m", "trace_id": "r", "dotted_order": "1r.2m", "run_type": "llm",
    ...    "inputs": {"messages": [[{"type": "human", "content": "Make a.txt"}]]},
    ...    "outputs": {"generations": [[{"text": ""}]]}},
    ...   {"id": "t", "trace_id": "r", "dotted_order": "1r.3t", "run_type": "tool",
    ...    "name": "write_file", "inputs": {"path": "a.txt", "content": "x"},
    ...    "outputs": {"output": {"content": "ok", "type": "tool", "status": "success"}}},
    ...   {"id": "n", "trace_id": "r", "dotted_order": "1r.4n", "run_type": "llm",
    ...    "outputs": {"generations": [[{"text": "Done."}]]}}]
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "runs.jsonl"
    >>> _ = p.write_text("".join(json.dumps(r) + "\\n" for r in runs))
    >>> from earnest.trajectory.report import ReadReport
    >>> t = next(read(p, ReadReport()))
    >>> t.user_request, [(c.name, c.outcome) for c in t.tool_calls], t.final_message
    ('Make a.txt', [('write_file', 'success')], 'Done.')
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from earnest.trajectory.model import Trajectory
from earnest.trajectory.readers.builder import TrajectoryBuilder
from earnest.trajectory.readers.documents import load_document
from earnest.trajectory.readers.edits import structured_edits
from earnest.trajectory.readers.lines import iter_json_lines
from earnest.trajectory.report import ReadReport
from earnest.trajectory.text import content_text, parse_arguments, user_text_kind

FORMAT = "langsmith-runs"
RUN_TYPES = frozenset({"tool", "chain", "llm", "retriever", "embedding", "prompt", "parser"})


def read(path: Path, report: ReadReport, **options: Any) -> Iterator[Trajectory]:
    """One trajectory per trace, in the order the traces first appear."""
    name = str(path)
    traces: dict[str, list[dict[str, Any]]] = {}
    for run, place in _runs(path, report):
        trace = run.get("trace_id") or run.get("id")
        if not isinstance(trace, str) or run.get("run_type") not in RUN_TYPES:
            report.skip(name, None, f"{place}: not a LangSmith run (no trace_id or run_type)")
            continue
        traces.setdefault(trace, []).append(run)
    for trace_id, runs in traces.items():
        yield _build(path, trace_id, runs, options)


def _runs(path: Path, report: ReadReport) -> Iterator[tuple[dict[str, Any], str]]:
    if path.suffix in (".jsonl", ".ndjson"):
        for number, obj in iter_json_lines(path, report):
            yield obj, f"line {number}"
        return
    data = load_document(path, report)
    if not isinstance(data, list):
        if data is not None:
            report.warn(str(path), None, "not LangSmith runs: expected a JSON array of runs")
        return
    for k, run in enumerate(data):
        if isinstance(run, dict):
            yield run, f"runs[{k}]"
        else:
            report.skip(str(path), None, f"runs[{k}]: not an object")


def _build(
    path: Path, trace_id: str, runs: list[dict[str, Any]], options: dict[str, Any]
) -> Trajectory:
    builder = TrajectoryBuilder(id=trace_id, source=str(path), format=FORMAT, **options)
    seen_users = 0
    ordered = sorted(enumerate(runs), key=lambda p: (str(p[1].get("dotted_order") or ""), p[0]))
    for _, run in ordered:
        kind = run.get("run_type")
        inputs, outputs = _dict(run.get("inputs")), _dict(run.get("outputs"))
        error = run.get("error") if isinstance(run.get("error"), str) and run["error"] else None
        if kind == "llm":
            builder.new_turn()
            users = _human_texts(inputs.get("messages"))
            for text in users[seen_users:]:
                builder.message("user", text, kind=user_text_kind(text))
            seen_users = max(seen_users, len(users))
            text = _generation_text(outputs.get("generations"))
            if text.strip():
                builder.message("assistant", text)
        elif kind == "tool":
            tool = run.get("name") if isinstance(run.get("name"), str) else "unknown"
            lone = inputs.get("input") if set(inputs) == {"input"} else None
            args = parse_arguments(lone) if isinstance(lone, str) else dict(inputs)
            call_id = _dict(run.get("extra")).get("tool_call_id") or run.get("id")
            call_id = builder.tool_call(str(call_id), str(tool), args,
                                        edits=structured_edits(str(tool), args))  # fmt: skip
            output = outputs.get("output")
            status = output.get("status") if isinstance(output, dict) else None
            text = content_text(output.get("content")) if isinstance(output, dict) else (
                content_text(output))  # fmt: skip
            failed = error is not None or status == "error"
            builder.tool_result(call_id, is_error=failed, output=text or (error or ""),
                                error=error)  # fmt: skip
        if not run.get("parent_run_id") and error is not None:
            if "GraphRecursionError" in error or "Recursion limit" in error:
                builder.terminate("max_turns", error.splitlines()[0])
            else:
                builder.terminate("api_error", error.splitlines()[0])
    return builder.build()


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _human_texts(value: Any) -> list[str]:
    """The human messages of an ``llm`` run's ``inputs.messages`` (a list of lists)."""
    batches = value if isinstance(value, list) else []
    messages = batches[0] if batches and isinstance(batches[0], list) else batches
    out: list[str] = []
    for message in messages:
        if not isinstance(message, dict):
            continue
        kwargs = message.get("kwargs") if isinstance(message.get("kwargs"), dict) else None
        ident = message.get("id")
        if kwargs is not None and isinstance(ident, list) and ident[-1:] == ["HumanMessage"]:
            out.append(content_text(kwargs.get("content")))
        elif message.get("type") == "human" or message.get("role") == "user":
            out.append(content_text(message.get("content")))
    return [t for t in out if t.strip()]


def _generation_text(value: Any) -> str:
    batches = value if isinstance(value, list) else []
    first = batches[0] if batches and isinstance(batches[0], list) else batches
    generation = first[0] if first and isinstance(first[0], dict) else {}
    text = generation.get("text")
    return text if isinstance(text, str) else ""


__all__ = ["FORMAT", "read"]

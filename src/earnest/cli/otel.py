"""The ``--otel`` options shared by ``score``, ``check``, ``run`` and ``trajectory score``.

Thin: :mod:`earnest.otel` owns the events, the configuration and the export. A missing SDK
or a malformed endpoint is bad usage (exit 2, before anything is judged); an export that fails
once judging is done is a warning on stderr and never changes the exit status.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Annotated, Any

import typer

if TYPE_CHECKING:
    from earnest.otel.config import OtelConfig
    from earnest.otel.export import EventSink
    from earnest.trajectory.parallel import BatchScore

OtelOpt = Annotated[
    bool,
    typer.Option(
        "--otel",
        help="Also send each result as an OpenTelemetry gen_ai.evaluation.result event over "
        "OTLP/HTTP (to OTEL_EXPORTER_OTLP_ENDPOINT, else localhost:4318; needs earnest[otel]). "
        "Off by default: nothing is sent unless asked here or by EARNEST_OTEL=1; a suite's "
        "[otel] table never turns it on nor picks the endpoint.",
    ),
]
OtelEndpointOpt = Annotated[
    str | None,
    typer.Option(
        "--otel-endpoint",
        metavar="URL",
        help="The OTLP/HTTP receiver (e.g. http://collector:4318); implies --otel.",
        show_default=False,
    ),
]


def suite_otel(raw: dict[str, Any], file: Any) -> OtelConfig | None:
    """The suite's ``[otel]`` table (already checked when the suite loaded), or ``None``. Its
    ``enabled`` and ``endpoint`` are ignored, with a warning naming the file: a repository's
    file never turns the export on nor chooses where data and credentials go."""
    if "otel" not in raw:
        return None
    from earnest.otel.config import ignored_keys, otel_config_from_table

    prefix = "tool.earnest." if getattr(file, "name", "") == "pyproject.toml" else ""
    config = otel_config_from_table(raw["otel"], file=file, prefix=prefix)
    ignored = ignored_keys(config)
    if ignored:
        keys = " and ".join(f"{prefix}otel.{key}" for key in ignored)
        print(
            f"earnest: warning: {file}: {keys} ignored: a suite's file may not turn on "
            "OpenTelemetry export nor choose its endpoint; use --otel / --otel-endpoint URL "
            "(or EARNEST_OTEL=1 and OTEL_EXPORTER_OTLP_ENDPOINT in your environment)",
            file=sys.stderr,
        )
    return config


def open_sink(
    flag: bool, endpoint: str | None, config: OtelConfig | None = None
) -> EventSink | None:
    """The export the command was asked for (the command line or the user's environment), or
    ``None``; the SDK is imported only then."""
    from earnest.otel.config import resolve

    target = resolve(config, flag=flag, endpoint=endpoint, env=os.environ)
    if target is None:
        return None
    from earnest.otel.export import EventSink

    return EventSink(target)


def send_trajectories(sink: EventSink | None, batch: BatchScore) -> None:
    """Emit the outcome of every trajectory of one ``trajectory score`` batch."""
    if sink is None:
        return
    import json

    from earnest.otel.events import trajectory_event

    for text in batch.texts:
        sink.emit(trajectory_event(json.loads(text)))
    for result in batch.results:
        sink.emit(trajectory_event(result.to_dict()))


def close_sink(sink: EventSink | None) -> None:
    """Flush the export and say on stderr if any event was not delivered."""
    if sink is None:
        return
    outcome = sink.close()
    warning = outcome.warning()
    if warning is not None:
        print(f"earnest: warning: {warning}", file=sys.stderr)
    else:
        print(
            f"earnest: sent {outcome.sent} evaluation events to {outcome.endpoint}",
            file=sys.stderr,
        )


__all__ = [
    "OtelEndpointOpt",
    "OtelOpt",
    "close_sink",
    "open_sink",
    "send_trajectories",
    "suite_otel",
]

"""OpenTelemetry GenAI: earnest's verdicts and trajectory outcomes as evaluation events.

``earnest score|check|run|trajectory score --otel`` emits one ``gen_ai.evaluation.result``
event per result over OTLP/HTTP (:mod:`earnest.otel.export`, the SDK from ``earnest[otel]``,
imported only then). The events themselves (:mod:`earnest.otel.events`) and the configuration
(:mod:`earnest.otel.config`) need no SDK. Reading OTLP trace exports as trajectories is the
``otlp-json`` reader (:mod:`earnest.trajectory.readers.otlp_json`).

Example:
    >>> from earnest.otel import SCHEMA_URL, trajectory_event
    >>> SCHEMA_URL
    'https://opentelemetry.io/schemas/1.37.0'
    >>> trajectory_event({"outcome": "backed", "aggregate": 0.8}).attributes[
    ...     "gen_ai.evaluation.score.label"]
    'backed'
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from earnest._lazy import lazy_getattr

if TYPE_CHECKING:
    from earnest.otel.config import OtelConfig, OtelTarget, otel_config_from_table, resolve
    from earnest.otel.events import (
        EVENT_NAME,
        SCHEMA_URL,
        SEMCONV_VERSION,
        EvaluationEvent,
        sample_event,
        trajectory_event,
        verdict_event,
    )
    from earnest.otel.export import EventSink, ExportOutcome

_HOMES = {
    "OtelConfig": "config",
    "OtelTarget": "config",
    "otel_config_from_table": "config",
    "resolve": "config",
    "EVENT_NAME": "events",
    "SCHEMA_URL": "events",
    "SEMCONV_VERSION": "events",
    "EvaluationEvent": "events",
    "sample_event": "events",
    "trajectory_event": "events",
    "verdict_event": "events",
    "EventSink": "export",
    "ExportOutcome": "export",
}

__getattr__ = lazy_getattr(__name__, _HOMES, globals())

__all__ = [
    "EVENT_NAME",
    "SCHEMA_URL",
    "SEMCONV_VERSION",
    "EvaluationEvent",
    "EventSink",
    "ExportOutcome",
    "OtelConfig",
    "OtelTarget",
    "otel_config_from_table",
    "resolve",
    "sample_event",
    "trajectory_event",
    "verdict_event",
]

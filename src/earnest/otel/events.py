"""earnest's judgements as OpenTelemetry GenAI ``gen_ai.evaluation.result`` events.

Pure data: no OpenTelemetry import here, so the event shape is tested (and documented) without
the SDK. :mod:`earnest.otel.export` turns each :class:`EvaluationEvent` into an OTLP log record.

The event follows the GenAI semantic conventions (``gen-ai-events.md``, "Event:
gen_ai.evaluation.result", stability *development*): ``gen_ai.evaluation.name`` (required),
``gen_ai.evaluation.score.value`` and ``gen_ai.evaluation.score.label`` (conditionally
required) and ``gen_ai.evaluation.explanation`` (recommended). The conventions are
experimental, so the version they are emitted under is pinned: :data:`SEMCONV_VERSION`, the
release that introduced the event, stamped as the logger's :data:`SCHEMA_URL`. earnest's own
ids travel as extra attributes under ``earnest.*``.

Explanations are copied from what earnest read (a model's reply may hold an API key): every
string value goes through :func:`earnest.redact.scrub`, like every other writer's output.

Example:
    >>> e = verdict_event({"fixture_id": "F1", "verdict": "fail-choice",
    ...     "reason": "chose D (non-compliant)", "model": "m", "arm": "rule", "epoch": 0})
    >>> e.attributes["gen_ai.evaluation.name"], e.attributes["gen_ai.evaluation.score.value"]
    ('earnest.pressure.verdict', 0.0)
    >>> e.attributes["gen_ai.evaluation.score.label"], e.attributes["earnest.fixture.id"]
    ('fail-choice', 'F1')
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from earnest.redact import scrub

EVENT_NAME = "gen_ai.evaluation.result"
"""The semantic conventions' event name (the OTLP log record's ``event_name``)."""

SEMCONV_VERSION = "1.37.0"
"""The GenAI semantic-conventions release whose ``gen_ai.evaluation.result`` is emitted
(the event appeared in 1.37.0; its attributes have not changed name since)."""

SCHEMA_URL = f"https://opentelemetry.io/schemas/{SEMCONV_VERSION}"
"""Stamped on the instrumentation scope, so a backend knows which conventions it reads."""

SCOPE_NAME = "earnest"
"""The instrumentation scope (the OTel logger's name)."""

EVALUATION_NAME = "gen_ai.evaluation.name"
SCORE_VALUE = "gen_ai.evaluation.score.value"
SCORE_LABEL = "gen_ai.evaluation.score.label"
EXPLANATION = "gen_ai.evaluation.explanation"

VERDICT_EVALUATION = "earnest.pressure.verdict"
"""``gen_ai.evaluation.name`` of a pressure verdict (``score``, ``check``, ``run``)."""

TRAJECTORY_EVALUATION = "earnest.trajectory.outcome"
"""``gen_ai.evaluation.name`` of a trajectory outcome (``trajectory score``)."""

AttributeValue = str | bool | int | float


@dataclass(frozen=True, slots=True)
class EvaluationEvent:
    """One ``gen_ai.evaluation.result`` event: its attributes, in emission order."""

    attributes: Mapping[str, AttributeValue]
    name: str = EVENT_NAME


def _put(out: dict[str, AttributeValue], key: str, value: Any) -> None:
    """Set an attribute when the value is one OTel can carry; strings are redacted."""
    if isinstance(value, bool | int | float):
        out[key] = value
    elif isinstance(value, str) and value:
        out[key] = scrub(value)


def verdict_event(reply: Mapping[str, Any], *, profile: str | None = None) -> EvaluationEvent:
    """The event of one judged reply (the ``score`` JSON shape of a reply, docs/formats.md).

    The score value is ``1.0`` for ``pass`` and ``0.0`` for any failure; the label is the
    verdict itself. A void sample (no reply, never a verdict) has the label ``void`` and no
    score value: it is neither a pass nor a failure.
    """
    verdict = reply.get("verdict")
    out: dict[str, AttributeValue] = {EVALUATION_NAME: VERDICT_EVALUATION}
    if isinstance(verdict, str):
        out[SCORE_VALUE] = 1.0 if verdict == "pass" else 0.0
        out[SCORE_LABEL] = verdict
    else:
        out[SCORE_LABEL] = "void"
    _put(out, EXPLANATION, reply.get("reason"))
    _put(out, "earnest.fixture.id", reply.get("fixture_id"))
    _put(out, "earnest.profile", profile if profile is not None else reply.get("profile"))
    _put(out, "earnest.model", reply.get("model"))
    _put(out, "earnest.arm", reply.get("arm"))
    _put(out, "earnest.epoch", reply.get("epoch"))
    _put(out, "earnest.choice", reply.get("choice"))
    _put(out, "earnest.run.id", reply.get("run_id"))
    _put(out, "earnest.replies.file", reply.get("file"))
    _put(out, "earnest.replies.line", reply.get("line"))
    return EvaluationEvent(out)


def sample_event(sample: Any) -> EvaluationEvent:
    """The event of one stored live-run sample (:class:`earnest.live.store.SampleRecord`):
    its verdict as :func:`verdict_event` judges a reply, with the run, profile and rule ids;
    a void sample carries its error as the explanation."""
    reply = {
        "fixture_id": sample.fixture_id,
        "verdict": sample.verdict,
        "reason": sample.reason if sample.verdict is not None else sample.error,
        "model": sample.model,
        "arm": sample.arm,
        "epoch": sample.epoch,
        "run_id": sample.run_id,
        "choice": ",".join(sample.chosen) if sample.chosen else None,
    }
    event = verdict_event(reply, profile=sample.profile)
    out = dict(event.attributes)
    _put(out, "earnest.rule.id", sample.rule_id)
    _put(out, "earnest.agent", sample.agent)
    return EvaluationEvent(out)


def trajectory_event(result: Mapping[str, Any]) -> EvaluationEvent:
    """The event of one scored trajectory (a ``trajectory score --format jsonl`` record).

    The label is the outcome (``backed``, ``completion_without_effect``, ``no_claim``,
    ``abnormal``); the score value is the confidence-weighted aggregate of the dimensions,
    0 to 1. Each dimension's score rides along as ``earnest.dimension.<name>.score``.
    """
    out: dict[str, AttributeValue] = {EVALUATION_NAME: TRAJECTORY_EVALUATION}
    aggregate = result.get("aggregate")
    if isinstance(aggregate, int | float) and not isinstance(aggregate, bool):
        out[SCORE_VALUE] = float(aggregate)
    _put(out, SCORE_LABEL, result.get("outcome"))
    _put(out, EXPLANATION, result.get("reason"))
    _put(out, "earnest.trajectory.id", result.get("trajectory_id"))
    _put(out, "earnest.trajectory.source", result.get("source"))
    _put(out, "earnest.trajectory.format", result.get("format"))
    _put(out, "earnest.completion_without_effect", result.get("completion_without_effect"))
    termination = result.get("termination")
    if isinstance(termination, Mapping):
        _put(out, "earnest.termination.reason", termination.get("reason"))
    dimensions = result.get("dimensions")
    if isinstance(dimensions, Mapping):
        for name, dimension in dimensions.items():
            if isinstance(dimension, Mapping):
                _put(out, f"earnest.dimension.{name}.score", dimension.get("score"))
    return EvaluationEvent(out)


__all__ = [
    "EVALUATION_NAME",
    "EVENT_NAME",
    "EXPLANATION",
    "SCHEMA_URL",
    "SCOPE_NAME",
    "SCORE_LABEL",
    "SCORE_VALUE",
    "SEMCONV_VERSION",
    "TRAJECTORY_EVALUATION",
    "VERDICT_EVALUATION",
    "EvaluationEvent",
    "sample_event",
    "trajectory_event",
    "verdict_event",
]

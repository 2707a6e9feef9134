"""Send evaluation events to an OTLP/HTTP receiver with the OpenTelemetry SDK.

The SDK (``earnest[otel]``: ``opentelemetry-sdk`` and ``opentelemetry-exporter-otlp-proto-http``)
is imported only when an export is asked for. Events are OTLP log records with
``event_name = gen_ai.evaluation.result`` from a logger whose scope carries the pinned
:data:`~earnest.otel.events.SCHEMA_URL`. The SDK's own batch processor reports nothing back
(a failed export is a line in Python's logging), so :class:`_Collector`, a
``LogRecordProcessor``, hands batches to the SDK's ``OTLPLogExporter`` itself and keeps its
answer: the command can then say how many events were not delivered.

Telemetry is a side channel: a receiver that is down or refuses a batch never changes a
verdict or an exit code. :meth:`EventSink.close` returns an :class:`ExportOutcome` and the CLI
prints its warning. After one failed batch the rest are not sent (a receiver that is down
would make every batch wait out the SDK's retries).

Example:
    >>> from earnest.otel.config import OtelTarget
    >>> sink = EventSink(OtelTarget("http://127.0.0.1:9/v1/logs", timeout=0.2))  # doctest: +SKIP
    >>> sink.emit(verdict_event({"fixture_id": "F", "verdict": "pass"}))  # doctest: +SKIP
    >>> sink.close().delivered  # nothing listens on port 9  # doctest: +SKIP
    False
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from earnest.errors import InputError
from earnest.extras import install_hint
from earnest.otel.config import OtelTarget
from earnest.otel.events import SCHEMA_URL, SCOPE_NAME, EvaluationEvent

if TYPE_CHECKING:
    from opentelemetry.sdk._logs import LoggerProvider

BATCH = 512
"""Events per OTLP request (the SDK batch processor's default export size)."""

INSTALL_HINT = install_hint("otel")


@dataclass(frozen=True, slots=True)
class ExportOutcome:
    """What an export did: events handed over, events the receiver accepted, and why not."""

    endpoint: str
    emitted: int
    sent: int
    error: str | None = None

    @property
    def delivered(self) -> bool:
        return self.error is None and self.sent == self.emitted

    def warning(self) -> str | None:
        """The line the CLI prints on stderr when not every event arrived."""
        if self.delivered:
            return None
        lost = self.emitted - self.sent
        return (
            f"OpenTelemetry export to {self.endpoint} failed: {lost} of {self.emitted} "
            f"evaluation events not delivered ({self.error or 'unknown error'}); "
            "the results above are unchanged"
        )


class _Capture(logging.Handler):
    """Keeps the SDK exporter's warning lines (its only report of why a batch failed): a
    connection refused shows only in the retry warning before the final "timeout" line."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        try:
            line = record.getMessage()
        except Exception:  # a malformed log call in the SDK must not break the command
            line = str(record.msg)
        if line not in self.lines:
            self.lines.append(line[:300])

    def reason(self) -> str | None:
        """The first and the last distinct line of the failed batch."""
        if not self.lines:
            return None
        picked = self.lines[:1] + self.lines[-1:] if len(self.lines) > 1 else self.lines
        return "; ".join(picked)


def _unreachable(endpoint: str) -> str | None:
    """Why no TCP connection to the endpoint's host can be made, or ``None`` if one can.

    The SDK's last line for a receiver that is down is only "due to timeout, max retries or
    shutdown"; one connection attempt says which it was (refused, no such host).
    """
    import socket
    from urllib.parse import urlsplit

    parts = urlsplit(endpoint)
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        return None
    try:
        with socket.create_connection((parts.hostname or "", port), timeout=2):
            return None
    except OSError as exc:
        return f"cannot connect to {parts.hostname}:{port}: {exc.strerror or exc}"


def _sdk() -> Any:
    """The SDK modules, or a clear :class:`InputError` when the extra is not installed."""
    try:
        from opentelemetry._logs import SeverityNumber
        from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
        from opentelemetry.sdk._logs import (
            LoggerProvider,
            LogRecordProcessor,
            ReadableLogRecord,
        )
        from opentelemetry.sdk._logs.export import LogRecordExportResult
        from opentelemetry.sdk.resources import Resource
    except ImportError as exc:
        raise InputError(
            None,
            "--otel",
            f"needs the OpenTelemetry SDK and OTLP/HTTP exporter ({exc.name} is missing): "
            f"{INSTALL_HINT}",
        ) from None
    return (
        SeverityNumber,
        OTLPLogExporter,
        LoggerProvider,
        LogRecordProcessor,
        ReadableLogRecord,
        LogRecordExportResult,
        Resource,
    )


class EventSink:
    """Emits :class:`EvaluationEvent`s to one OTLP/HTTP logs endpoint; :meth:`close` flushes."""

    def __init__(self, target: OtelTarget) -> None:
        (
            severity,
            exporter_class,
            provider_class,
            processor_class,
            readable_class,
            result_class,
            resource_class,
        ) = _sdk()
        from earnest import __version__

        self.target = target
        self._info = severity.INFO
        self._capture = _Capture()
        # The SDK logs each failed batch; the command reports it once, in its own words.
        self._sdk_log = logging.getLogger("opentelemetry")
        self._was_propagating = self._sdk_log.propagate
        self._sdk_log.addHandler(self._capture)
        self._sdk_log.propagate = False
        exporter = exporter_class(endpoint=target.endpoint, timeout=target.timeout)
        sink = self

        class _Collector(processor_class):  # type: ignore[misc,valid-type]
            """Buffers records and exports them a batch at a time, keeping each answer."""

            def __init__(self) -> None:
                self.pending: list[Any] = []

            def on_emit(self, log_record: Any) -> None:
                self.pending.append(
                    readable_class(
                        log_record=log_record.log_record,
                        resource=log_record.resource,
                        instrumentation_scope=log_record.instrumentation_scope,
                        limits=log_record.limits,
                    )
                )
                if len(self.pending) >= BATCH:
                    self.export()

            def export(self) -> None:
                batch, self.pending = self.pending, []
                if not batch or sink.error is not None:
                    return
                sink._capture.lines.clear()
                try:
                    answer = exporter.export(batch)
                except Exception as exc:  # the SDK promises no exception; never crash on one
                    sink.error = f"{type(exc).__name__}: {exc}"
                    return
                if answer == result_class.SUCCESS:
                    sink.sent += len(batch)
                else:
                    reason = sink._capture.reason() or "the receiver refused the batch"
                    unreachable = _unreachable(target.endpoint)
                    sink.error = reason if unreachable is None else f"{unreachable}; {reason}"

            def shutdown(self) -> None:
                self.export()
                exporter.shutdown()

            def force_flush(self, timeout_millis: int = 30000) -> bool:
                self.export()
                return True

        self.emitted = 0
        self.sent = 0
        self.error: str | None = None
        self._collector = _Collector()
        resource = resource_class.create(
            {"service.name": target.service_name, "service.version": __version__}
        )
        # shutdown_on_exit=False: the command closes the provider itself, once.
        self._provider: LoggerProvider = provider_class(resource=resource, shutdown_on_exit=False)
        self._provider.add_log_record_processor(self._collector)
        self._logger = self._provider.get_logger(SCOPE_NAME, __version__, schema_url=SCHEMA_URL)
        self._closed = False

    def emit(self, event: EvaluationEvent) -> None:
        """Queue one event (sent with its batch); does nothing after a failed batch."""
        self.emitted += 1
        if self.error is not None:
            return
        self._logger.emit(
            timestamp=time.time_ns(),
            severity_number=self._info,
            event_name=event.name,
            attributes=dict(event.attributes),
        )

    def close(self) -> ExportOutcome:
        """Send what is queued and report; safe to call twice."""
        if not self._closed:
            self._closed = True
            try:
                self._provider.shutdown()
            finally:
                self._sdk_log.removeHandler(self._capture)
                self._sdk_log.propagate = self._was_propagating
        return ExportOutcome(self.target.endpoint, self.emitted, self.sent, self.error)


def tap(items: Iterator[Any], sink: EventSink | None, event: Any) -> Iterator[Any]:
    """Pass ``items`` through unchanged, emitting ``event(item)`` for each when ``sink`` is set."""
    if sink is None:
        yield from items
        return
    for item in items:
        sink.emit(event(item))
        yield item


__all__ = ["BATCH", "INSTALL_HINT", "EventSink", "ExportOutcome", "tap"]

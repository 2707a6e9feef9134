"""Where (and whether) earnest sends its evaluation events: ``--otel`` and the environment.

Nothing is sent unless the user asks, and only the user picks where: ``--otel`` (or
``--otel-endpoint URL``) on the command line, or ``EARNEST_OTEL=1`` in the user's own
environment, turns the export on. The endpoint is the first of ``--otel-endpoint``,
``OTEL_EXPORTER_OTLP_LOGS_ENDPOINT`` (the full URL, as the OpenTelemetry SDK reads it),
``OTEL_EXPORTER_OTLP_ENDPOINT`` plus ``/v1/logs``, and the OTLP/HTTP default
``http://localhost:4318/v1/logs``. So the SDK's ``OTEL_EXPORTER_OTLP_HEADERS`` (a bearer
token, say) only ever go to an endpoint the environment or the command line chose.

A suite's ``[otel]`` table comes with the repository (any pull request can edit it), so it
may not choose a destination: its ``enabled`` and ``endpoint`` are ignored, with a warning
(:func:`ignored_keys`); ``service_name`` and ``timeout`` still apply to an export the user
turned on.

Example:
    >>> c = otel_config_from_table({"enabled": True, "endpoint": "http://203.0.113.9:4318"})
    >>> resolve(c, flag=False, endpoint=None, env={}) is None  # the suite alone sends nothing
    True
    >>> resolve(c, flag=True, endpoint=None, env={}).endpoint  # nor picks the endpoint
    'http://localhost:4318/v1/logs'
    >>> ignored_keys(c)
    ('enabled', 'endpoint')
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from earnest.configkeys import check_keys
from earnest.errors import InputError

KEYS: tuple[str, ...] = ("enabled", "endpoint", "service_name", "timeout")
"""Every key ``[otel]`` may hold; any other is an error naming the nearest."""

DEFAULT_ENDPOINT = "http://localhost:4318"
LOGS_PATH = "/v1/logs"
DEFAULT_SERVICE = "earnest"


@dataclass(frozen=True, slots=True)
class OtelConfig:
    """The ``[otel]`` table as read (every field optional); ``enabled`` and ``endpoint`` are
    read only to say they are ignored."""

    enabled: bool = False
    endpoint: str | None = None
    service_name: str | None = None
    timeout: float | None = None


@dataclass(frozen=True, slots=True)
class OtelTarget:
    """An export that was asked for: the full OTLP/HTTP logs URL and the resource's name."""

    endpoint: str
    service_name: str = DEFAULT_SERVICE
    timeout: float | None = None
    """Seconds per export request; ``None`` leaves it to the SDK (``OTEL_EXPORTER_OTLP_TIMEOUT``,
    else 10 s)."""


def _check_url(value: str, file: Path | str | None, place: str) -> str:
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise InputError(file, place, f"{value!r} is not an http(s) URL (e.g. http://host:4318)")
    return value


def otel_config_from_table(
    table: Any, *, file: Path | str | None = None, prefix: str = ""
) -> OtelConfig:
    """Check and read an ``[otel]`` table; a wrong key or type is an :class:`InputError`."""
    place = f"{prefix}otel"
    if not isinstance(table, Mapping):
        raise InputError(file, place, "must be a table")
    check_keys(table, KEYS, file, place)
    enabled = table.get("enabled", False)
    if not isinstance(enabled, bool):
        raise InputError(file, f"{place}.enabled", "must be true or false")
    endpoint = table.get("endpoint")
    if endpoint is not None:
        if not isinstance(endpoint, str):
            raise InputError(file, f"{place}.endpoint", "must be a string (an http(s) URL)")
        _check_url(endpoint, file, f"{place}.endpoint")
    service = table.get("service_name")
    if service is not None and (not isinstance(service, str) or not service.strip()):
        raise InputError(file, f"{place}.service_name", "must be a non-empty string")
    timeout = table.get("timeout")
    if timeout is not None and (
        isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0
    ):
        raise InputError(file, f"{place}.timeout", "must be a number of seconds above 0")
    return OtelConfig(enabled, endpoint, service, float(timeout) if timeout is not None else None)


def logs_url(base: str) -> str:
    """A base OTLP/HTTP URL with the logs signal's path (``OTEL_EXPORTER_OTLP_ENDPOINT`` rule);
    a URL that already ends in ``/v1/logs`` is kept."""
    base = base.rstrip("/")
    return base if base.endswith(LOGS_PATH) else base + LOGS_PATH


ENV_SWITCH = "EARNEST_OTEL"
"""The user's environment switch: ``EARNEST_OTEL=1`` turns the export on as ``--otel`` does."""


def ignored_keys(config: OtelConfig | None) -> tuple[str, ...]:
    """The keys of a suite's ``[otel]`` table that are ignored: ``enabled`` and ``endpoint``
    (a repository's file never turns the export on nor chooses where it goes)."""
    if config is None:
        return ()
    return tuple(
        key
        for key, present in (("enabled", config.enabled), ("endpoint", config.endpoint))
        if present
    )


def resolve(
    config: OtelConfig | None,
    *,
    flag: bool,
    endpoint: str | None,
    env: Mapping[str, str],
) -> OtelTarget | None:
    """The export asked for, or ``None`` (the default: nothing leaves the machine).

    ``flag`` and ``endpoint`` are the command line's; ``config`` (a suite's table) gives only
    the service name and the timeout."""
    config = config or OtelConfig()
    switched = env.get(ENV_SWITCH, "").strip().lower() in ("1", "true", "yes", "on")
    if not (flag or endpoint or switched):
        return None
    if endpoint:
        url = logs_url(_check_url(endpoint, None, "--otel-endpoint"))
    elif env.get("OTEL_EXPORTER_OTLP_LOGS_ENDPOINT"):
        url = _check_url(
            env["OTEL_EXPORTER_OTLP_LOGS_ENDPOINT"], None, "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT"
        )
    elif env.get("OTEL_EXPORTER_OTLP_ENDPOINT"):
        url = logs_url(
            _check_url(env["OTEL_EXPORTER_OTLP_ENDPOINT"], None, "OTEL_EXPORTER_OTLP_ENDPOINT")
        )
    else:
        url = logs_url(DEFAULT_ENDPOINT)
    service = config.service_name or env.get("OTEL_SERVICE_NAME") or DEFAULT_SERVICE
    return OtelTarget(url, service, config.timeout)


__all__ = [
    "DEFAULT_ENDPOINT",
    "ENV_SWITCH",
    "KEYS",
    "OtelConfig",
    "OtelTarget",
    "ignored_keys",
    "logs_url",
    "otel_config_from_table",
    "resolve",
]

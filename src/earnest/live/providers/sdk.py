"""What the SDK-backed providers (``openai``, ``anthropic``) share: turning an SDK exception
into a :class:`ProviderError`, and a response object into its verbatim JSON.

Both official SDKs expose the same exception family (``APITimeoutError``,
``APIConnectionError``, ``APIStatusError`` with ``status_code``/``response``/``body``/
``message``, ``APIResponseValidationError``), so one mapping serves both: 429 and 5xx are
retryable with the server's ``Retry-After``, 401/403 are ``auth``, other 4xx ``bad_request``.

Example:
    >>> short({"error": "x" * 400}, limit=20)
    '{"error": "xxxxxxxxx...'
"""

from __future__ import annotations

import json
import os
from types import ModuleType
from typing import Any

from earnest.extras import install_hint
from earnest.live.profiles import Profile
from earnest.live.providers.base import ProviderError, ProviderUnavailable
from earnest.live.retry import parse_retry_after
from earnest.safejson import scrub

LOCAL_API_KEY = "earnest-local"
"""Sent to a local server that needs no key (the SDKs refuse to start without one)."""


def missing_sdk(profile: Profile, package: str) -> ProviderUnavailable:
    """The provider's SDK is not installed: say which extra brings it."""
    return ProviderUnavailable(
        f"profile {profile.name}: the {package} provider needs the {package} package: "
        f"{install_hint(package)}"
    )


def api_key(profile: Profile, default_env: str, hint: str = "") -> str:
    """The key from the profile's environment variable (``default_env`` unless it names
    one); a local server (``base_url`` set) gets :data:`LOCAL_API_KEY` when it is unset, and
    so does a ``keyless`` profile always: its base URL comes from the suite file, and no key
    goes to a place a repository chose (:data:`earnest.live.profiles.TRUSTED_KEYS`)."""
    if profile.keyless:
        return LOCAL_API_KEY
    env_name = profile.api_key_env or default_env
    key = os.environ.get(env_name)
    if key:
        return key
    if profile.base_url is None:
        raise ProviderUnavailable(f"profile {profile.name}: {env_name} is not set{hint}")
    return LOCAL_API_KEY


def sdk_error(sdk: ModuleType, exc: Exception) -> ProviderError:
    """``exc``, raised by the SDK module ``sdk`` (``openai`` or ``anthropic``), as a
    :class:`ProviderError` whose kind and retryability the runner acts on."""
    if isinstance(exc, sdk.APITimeoutError):
        return ProviderError("the request timed out", kind="timeout", retryable=True)
    if isinstance(exc, sdk.APIConnectionError):
        refused = connection_refused(exc)
        return ProviderError(
            f"connection {'refused' if refused else 'failed'}: {exc}",
            kind="connection",
            retryable=True,
            refused=refused,
        )
    if isinstance(exc, sdk.APIStatusError):
        headers = dict(exc.response.headers) if exc.response is not None else {}
        return status_error(
            exc.status_code,
            exc.body if exc.body is not None else exc.message,
            retry_after=parse_retry_after(headers),
        )
    if isinstance(exc, sdk.APIResponseValidationError):
        return ProviderError(f"malformed response: {exc}", kind="malformed")
    return ProviderError(f"{type(exc).__name__}: {exc}", kind="error")


def status_error(status: int, body: object, *, retry_after: float | None = None) -> ProviderError:
    """An HTTP error status as a :class:`ProviderError`: 429 and 5xx retryable, 401/403
    ``auth``, other 4xx ``bad_request``. A batch's errored line (whose status the batch
    reports) maps the same way as an online call's.

    >>> status_error(529, "overloaded").kind, status_error(400, {"error": "x"}).retryable
    ('server_error', False)
    """
    text = short(body)
    if status == 429:
        return ProviderError(
            f"HTTP 429 rate limited: {text}",
            kind="rate_limit",
            retryable=True,
            retry_after=retry_after,
            status=status,
        )
    if status >= 500:  # includes Anthropic's 529 overloaded
        return ProviderError(
            f"HTTP {status}: {text}",
            kind="server_error",
            retryable=True,
            retry_after=retry_after,
            status=status,
        )
    if status in (401, 403):
        return ProviderError(f"HTTP {status}: {text}", kind="auth", status=status)
    return ProviderError(f"HTTP {status}: {text}", kind="bad_request", status=status)


def connection_refused(exc: BaseException) -> bool:
    """Whether ``exc`` (an SDK connection error) was caused by a refused connection: the SDKs
    wrap httpx's ``ConnectError``, which wraps the socket's ``ConnectionRefusedError``."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, ConnectionRefusedError):
            return True
        if "connection refused" in str(current).lower() or "errno 111" in str(current).lower():
            return True
        current = current.__cause__ or current.__context__
    return False


def malformed_body(exc: ValueError) -> ProviderError:
    """A 200 whose body is not JSON: the SDK surfaces the decoder's error."""
    return ProviderError(f"malformed response body: {exc}", kind="malformed")


def raw_json(resp: Any) -> str:
    """The response as the SDK parsed it, verbatim JSON (``str`` when it is no SDK model)."""
    try:
        return str(resp.model_dump_json())
    except AttributeError:
        return str(resp)
    except ValueError:
        # A lone surrogate in the reply ("\ud800" in its JSON): pydantic cannot encode it.
        return scrub(json.dumps(resp.model_dump(), ensure_ascii=False, default=str))


def short(value: object, limit: int = 300) -> str:
    """An error body for a message: JSON when it is not text, cut at ``limit`` characters."""
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    return text if len(text) <= limit else text[:limit] + "..."


__all__ = [
    "LOCAL_API_KEY",
    "api_key",
    "connection_refused",
    "malformed_body",
    "missing_sdk",
    "raw_json",
    "sdk_error",
    "short",
    "status_error",
]

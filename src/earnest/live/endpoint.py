"""A network endpoint (``host:port``) an acting agent may reach, read from text or a base URL.

The one reader of endpoints: :mod:`earnest.live.profiles` checks ``allow_network`` entries
with it, :mod:`earnest.live.netgate` lets its endpoints through, and
:mod:`earnest.live.trust` asks whether a base URL stays on this machine. It imports nothing
of earnest, so the modules that use it never import each other for it.

Example:
    >>> parse_endpoint("api.anthropic.com:443")
    Endpoint(host='api.anthropic.com', port=443)
    >>> url_endpoint("http://127.0.0.1:8080/v1")
    Endpoint(host='127.0.0.1', port=8080)
    >>> url_endpoint("http://localhost:11434/v1").loopback
    True
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from urllib.parse import urlsplit


@dataclass(frozen=True, slots=True)
class Endpoint:
    """A ``host:port`` a confined agent may connect to."""

    host: str
    port: int

    def __str__(self) -> str:
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"

    @property
    def loopback(self) -> bool:
        """On this machine: ``localhost`` or a loopback address."""
        if self.host == "localhost":
            return True
        try:
            return ipaddress.ip_address(self.host).is_loopback
        except ValueError:
            return False


def _checked(host: str, port: int | None, text: str) -> Endpoint:
    if not host or port is None or not 0 < port < 65536:
        raise ValueError(f"{text!r} is not host:port (e.g. api.example.com:443)")
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return Endpoint(host.lower(), port)
    if not address.is_loopback:
        raise ValueError(
            f"{text!r}: a confined agent reaches other machines by host name only "
            '(name the address in /etc/hosts, or use confine = "none")'
        )
    return Endpoint(str(address), port)


def parse_endpoint(text: str) -> Endpoint:
    """``host:port`` (``[::1]:8080`` for an IPv6 address); :class:`ValueError` otherwise."""
    try:
        parts = urlsplit(f"//{text.strip()}")
        host, port = parts.hostname or "", parts.port
    except ValueError:
        host, port = "", None
    if "/" in text or "@" in text:
        host = ""
    return _checked(host, port, text)


def url_endpoint(url: str) -> Endpoint:
    """The ``host:port`` a base URL connects to (443 for https, 80 for http)."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port or {"https": 443, "http": 80}.get(parts.scheme)
        host = parts.hostname or ""
    except ValueError:
        host, port = "", None
    return _checked(host, port, url)


def is_local_url(url: str) -> bool:
    """Whether ``url`` is an ``http(s)`` URL on this machine (``localhost`` or a loopback
    address), with no user name or password in it.

    Example:
        >>> is_local_url("http://127.0.0.1:8000/v1"), is_local_url("https://api.example.com/v1")
        (True, False)
        >>> is_local_url("http://user@localhost:8000/v1"), is_local_url("http://127.1.2.3/v1")
        (False, True)
    """
    try:
        parts = urlsplit(url.strip())
        if parts.scheme not in ("http", "https") or "@" in parts.netloc:
            return False
        return url_endpoint(url).loopback
    except ValueError:
        return False


__all__ = ["Endpoint", "is_local_url", "parse_endpoint", "url_endpoint"]

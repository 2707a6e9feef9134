"""SHA-256 for the stop hooks' keys and fingerprints, without loading OpenSSL.

``hashlib`` loads OpenSSL's ``_hashlib`` on import, a few milliseconds of every stop hook's
start; CPython's own SHA-256 module (``_sha2`` from 3.12, ``_sha256`` before) gives the same
digest and loads in a fraction of that. Falls back to ``hashlib`` where neither is built.

Example:
    >>> sha256_hex(b"a")[:16]
    'ca978112ca1bbdca'
"""

from __future__ import annotations

from collections.abc import Callable

TYPE_CHECKING = False  # not typing's: importing typing costs every stop ~3 ms
if TYPE_CHECKING:
    from typing import Any

sha256: Callable[..., Any]
try:
    from _sha2 import sha256  # type: ignore[import-not-found,no-redef,unused-ignore]
except ImportError:
    try:
        from _sha256 import sha256  # type: ignore[import-not-found,no-redef,unused-ignore]
    except ImportError:
        from hashlib import sha256  # type: ignore[no-redef,unused-ignore]


def sha256_hex(data: bytes) -> str:
    """The hex SHA-256 digest of ``data`` (as ``hashlib.sha256(data).hexdigest()``)."""
    return str(sha256(data).hexdigest())


__all__ = ["sha256_hex"]

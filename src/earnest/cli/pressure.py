"""Suite commands: ``lint``, ``coverage``, ``prompt``, ``init``, ``schema``, ``check``."""

from __future__ import annotations

from earnest.cli import app  # noqa: F401

"""Providers: one module each, one contract (:class:`Provider`).

``make_provider(profile)`` builds the provider a profile names; the SDK-backed ones import
their SDK only then, and raise :class:`ProviderUnavailable` (exit 2) when it is missing.

Example:
    >>> from earnest.live.profiles import parse_spec
    >>> import shutil
    >>> p = make_provider(parse_spec("py", "exec:cmd:python3 -c pass"))
    >>> p.name
    'exec:cmd:python3 -c pass'
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from earnest.live.profiles import Profile
from earnest.live.providers.base import (
    Provider,
    ProviderError,
    ProviderReply,
    ProviderUnavailable,
    SampleKey,
)

if TYPE_CHECKING:
    from earnest.pressure.models import Fixture


def make_provider(
    profile: Profile,
    *,
    base: Path | None = None,
    fixtures: Mapping[str, Fixture] | None = None,
) -> Provider:
    """The provider for ``profile``; a replay provider checks its file against ``fixtures``
    and resolves a relative path against ``base`` (the suite folder)."""
    if profile.kind == "openai":
        from earnest.live.providers.openai_compat import OpenAIProvider

        return OpenAIProvider(profile)
    if profile.kind == "anthropic":
        from earnest.live.providers.anthropic_api import AnthropicProvider

        return AnthropicProvider(profile)
    if profile.kind == "exec":
        from earnest.live.providers.exec_cli import ExecProvider

        return ExecProvider(profile, base=base)
    if profile.kind == "replay":
        from earnest.live.providers.replay import ReplayProvider

        return ReplayProvider(profile, fixtures=fixtures or {}, base=base)
    raise ProviderUnavailable(f"profile {profile.name}: unknown provider kind {profile.kind!r}")


__all__ = [
    "Provider",
    "ProviderError",
    "ProviderReply",
    "ProviderUnavailable",
    "SampleKey",
    "make_provider",
]

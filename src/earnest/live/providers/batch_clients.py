"""Which batch client a profile gets: ``make_batch_client``.

Its own module, above :mod:`.batch` (the contract) and the two clients that implement it
(:mod:`.openai_batch`, :mod:`.anthropic_batch`), so the contract never imports its
implementations (no import cycle). Each client's SDK is imported only when its client is made.

Example::

    client = make_batch_client(profile)  # an openai: or anthropic: profile
    submitted = await client.submit(requests)
"""

from __future__ import annotations

from earnest.live.profiles import Profile
from earnest.live.providers.base import ProviderUnavailable
from earnest.live.providers.batch import BatchClient


def make_batch_client(profile: Profile) -> BatchClient:
    """The batch client of an ``openai:`` or ``anthropic:`` profile (its SDK imported now);
    :class:`ProviderUnavailable` for any other kind."""
    if profile.kind == "openai":
        from earnest.live.providers.openai_batch import OpenAIBatchClient

        return OpenAIBatchClient(profile)
    if profile.kind == "anthropic":
        from earnest.live.providers.anthropic_batch import AnthropicBatchClient

        return AnthropicBatchClient(profile)
    raise ProviderUnavailable(
        f"profile {profile.name} ({profile.spec}): --batch sends samples through the OpenAI "
        "Batch API or Anthropic Message Batches; only openai: and anthropic: profiles have one"
    )


__all__ = ["make_batch_client"]

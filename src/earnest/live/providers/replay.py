"""``replay:FILE`` — recorded replies instead of a model, for dry runs and tests.

The file is recorded-replies JSONL (read by ``earnest.pressure.replies``), e.g. the output
of ``earnest export``. A sample is answered by the line with the same fixture, arm and epoch
(a line without ``arm`` is the rule arm, without ``epoch`` epoch 0), preferring the line of the
same profile when the file has several. Never by another arm's or another epoch's line: that
would pass a rule-arm reply off as the RED baseline, or a cached repeat off as a fresh sample.
A recorded ``order`` is kept (a line without one was shown the fixture's own order), so the
reply is judged against the options as they were shown.
No matching line → the sample is void.

Example:
    >>> ReplayProvider.lookup_keys(SampleKey("PRS-1", "rule", 2, "mini"))
    [('PRS-1', 'rule', 2, 'mini'), ('PRS-1', 'rule', 2)]
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from earnest.errors import InputError
from earnest.live.profiles import Profile
from earnest.live.providers.base import (
    ProviderError,
    ProviderReply,
    SampleKey,
)

if TYPE_CHECKING:
    from earnest.pressure.models import Fixture
    from earnest.pressure.replies import ReplyRecord

_Key = tuple[Any, ...]


class ReplayProvider:
    """Answers from a recorded-replies file; never touches the network."""

    def __init__(
        self,
        profile: Profile,
        *,
        fixtures: Mapping[str, Fixture],
        base: Path | None = None,
    ) -> None:
        from earnest.pressure.replies import read_replies

        assert profile.file is not None
        path = Path(profile.file)
        if not path.is_absolute() and base is not None and not path.exists():
            path = base / path
        if not path.is_file():
            raise InputError(path, None, f"profile {profile.name}: no such recorded-replies file")
        self.name = profile.spec
        self.model = profile.model
        self.path = path
        # A line without ``order`` was answered against the fixture's own order (DESIGN.md).
        self._own_order = {fid: f.choice_ids for fid, f in fixtures.items()}
        self._index: dict[_Key, ReplyRecord] = {}
        for rec in read_replies(path, fixtures):
            for k in self.record_keys(rec):
                self._index.setdefault(k, rec)

    @staticmethod
    def record_keys(rec: ReplyRecord) -> list[_Key]:
        fixture = rec.fixture_id
        arm = rec.arm or "rule"
        epoch = rec.epoch or 0
        profile = rec.extra.get("profile")
        keys: list[_Key] = []
        if isinstance(profile, str) and profile:
            keys.append((fixture, arm, epoch, profile))
        keys.append((fixture, arm, epoch))
        return keys

    @staticmethod
    def lookup_keys(key: SampleKey) -> list[_Key]:
        return [
            (key.fixture_id, key.arm, key.epoch, key.profile),
            (key.fixture_id, key.arm, key.epoch),
        ]

    async def complete(
        self,
        system: str,
        user: str,
        *,
        params: Mapping[str, Any],
        timeout: float,
        key: SampleKey | None = None,
    ) -> ProviderReply:
        if key is None:
            raise ProviderError("replay needs the sample key", kind="missing_reply")
        for k in self.lookup_keys(key):
            rec = self._index.get(k)
            if rec is not None:
                return ProviderReply(
                    text=rec.response,
                    raw=rec.response,
                    cost=0.0,
                    order=rec.order or self._own_order.get(rec.fixture_id),
                    model=rec.model,
                    did=rec.did,
                )
        raise ProviderError(
            f"no recorded reply for {key.fixture_id} (arm {key.arm}, epoch {key.epoch})"
            f" in {self.path}",
            kind="missing_reply",
        )

    async def act(
        self,
        system: str,
        user: str,
        *,
        template: Path,
        timeout: float,
        key: SampleKey | None = None,
    ) -> ProviderReply:
        """An acted-out sample replayed: the recorded reply and the ``did`` recorded with it
        (``earnest export`` of an ``--act`` run); nothing runs, no workspace is copied."""
        return await self.complete(system, user, params={}, timeout=timeout, key=key)

    async def aclose(self) -> None:
        return None


__all__ = ["ReplayProvider"]

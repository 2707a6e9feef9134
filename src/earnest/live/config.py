"""A live run's configuration: ``[live]`` in ``earnest.toml``, overridden on the command line.

```toml
[live]
samples = 5                   # epochs: samples per fixture, profile and arm
arms = ["rule", "ablated"]    # ablated = the claims section removed (the RED baseline)
shuffle = true                # option order shuffled per sample, seeded
seed = 0
concurrency = 4               # requests in flight per profile
timeout = 120                 # seconds per sample; beyond it the sample is void
retries = 4                   # on 429, 5xx and dropped connections
backoff = 1.0                 # first backoff delay (seconds), doubling, with jitter
max_cost = 5.0                # USD; stop starting samples beyond it
fixtures = ["PRS-R08"]        # a subset (default: all)
act = false                   # act agentic fixtures out in their workspace (--act)
batch = false                 # send every sample through the provider's batch API (--batch)
batch_poll = 30               # seconds between polls of a submitted batch (--batch-poll)
confine = "auto"              # exec: agents under bubblewrap: "auto" or "bwrap" ("none": yours only)

[live.prices]                 # USD per million tokens, by model family
"gpt-4o-mini" = { input = 0.15, output = 0.6 }

[live.profiles.mini]
provider = "openai:gpt-4o-mini"
params = { temperature = 1.0, max_tokens = 512 }
```

Example:
    >>> cfg = live_config_from_table({"samples": 3, "profiles": {"m": {"provider": "openai:x"}}})
    >>> cfg.samples, cfg.arms, cfg.profiles[0].spec
    (3, ('rule', 'ablated'), 'openai:x')
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from earnest.configkeys import check_keys
from earnest.errors import InputError
from earnest.live.confine import MODES
from earnest.live.cost import Price
from earnest.live.profiles import Profile, parse_price, profile_from_table

ARMS = ("rule", "ablated")

_KEYS = {
    "samples",
    "arms",
    "shuffle",
    "seed",
    "concurrency",
    "timeout",
    "retries",
    "backoff",
    "max_cost",
    "fixtures",
    "prices",
    "profiles",
    "act",
    "batch",
    "batch_poll",
    "confine",
}


@dataclass(frozen=True, slots=True)
class LiveConfig:
    """Everything that decides which samples a run takes and how it calls providers."""

    profiles: tuple[Profile, ...] = ()
    samples: int = 1
    arms: tuple[str, ...] = ARMS
    shuffle: bool = True
    seed: int = 0
    concurrency: int = 4
    timeout: float = 120.0
    retries: int = 4
    backoff: float = 1.0
    max_cost: float | None = None
    fixtures: tuple[str, ...] = ()
    prices: Mapping[str, Price] = field(default_factory=dict)
    act: bool = False
    """Act agentic fixtures out in their workspace (``--act``; ``mode = "act"`` per fixture)."""
    batch: bool = False
    """Send the samples through the provider's batch API (``--batch``, see
    ``earnest.live.batching``): stored with the run, so ``--resume`` polls its batches."""
    batch_poll: float = 30.0
    """Seconds between polls of a submitted batch."""
    confine: str = "auto"
    """How ``exec:`` children are confined, acting or completing (:mod:`earnest.live.confine`)."""

    def profile(self, name: str) -> Profile | None:
        return next((p for p in self.profiles if p.name == name), None)

    def matrix_dict(self) -> dict[str, Any]:
        """The part that defines the samples (stored with the run; fixed on resume)."""
        return {
            "profiles": [p.to_dict() for p in self.profiles],
            "samples": self.samples,
            "arms": list(self.arms),
            "shuffle": self.shuffle,
            "seed": self.seed,
            "fixtures": list(self.fixtures),
            "act": self.act,
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.matrix_dict(),
            "concurrency": self.concurrency,
            "timeout": self.timeout,
            "retries": self.retries,
            "backoff": self.backoff,
            "max_cost": self.max_cost,
            "confine": self.confine,
            "prices": {k: [v.input, v.output] for k, v in self.prices.items()},
            "batch": self.batch,
            "batch_poll": self.batch_poll,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> LiveConfig:
        return cls(
            profiles=tuple(Profile.from_dict(p) for p in data.get("profiles", [])),
            samples=int(data.get("samples", 1)),
            arms=tuple(data.get("arms", ARMS)),
            shuffle=bool(data.get("shuffle", True)),
            seed=int(data.get("seed", 0)),
            concurrency=int(data.get("concurrency", 4)),
            timeout=float(data.get("timeout", 120.0)),
            retries=int(data.get("retries", 4)),
            backoff=float(data.get("backoff", 1.0)),
            max_cost=data.get("max_cost"),
            fixtures=tuple(data.get("fixtures", ())),
            prices={k: Price(float(v[0]), float(v[1])) for k, v in data.get("prices", {}).items()},
            act=bool(data.get("act", False)),
            batch=bool(data.get("batch", False)),
            batch_poll=float(data.get("batch_poll", 30.0)),
            confine=str(data.get("confine", "auto")),
        )


def live_config_from_table(
    table: Mapping[str, Any] | None, *, file: Path | None = None, prefix: str = ""
) -> LiveConfig:
    """Read and check a ``[live]`` table (``None``: defaults, no profiles)."""
    if table is None:
        return LiveConfig()
    place = f"{prefix}live"
    if not isinstance(table, Mapping):
        raise InputError(file, place, "must be a table")
    check_keys(table, _KEYS, file, place)

    def whole(key: str, default: int, minimum: int) -> int:
        v = table.get(key, default)
        if not isinstance(v, int) or isinstance(v, bool) or v < minimum:
            raise InputError(file, f"{place}.{key}", f"must be a whole number >= {minimum}")
        return v

    def number(key: str, default: float | None, positive: bool = True) -> float | None:
        v = table.get(key, default)
        if v is None:
            return None
        if not isinstance(v, int | float) or isinstance(v, bool) or (positive and v <= 0):
            raise InputError(file, f"{place}.{key}", "must be a number > 0")
        return float(v)

    arms = parse_arms(table.get("arms", list(ARMS)), file=file, place=f"{place}.arms")
    shuffle = table.get("shuffle", True)
    if not isinstance(shuffle, bool):
        raise InputError(file, f"{place}.shuffle", "must be true or false")
    fixtures = table.get("fixtures", [])
    if not isinstance(fixtures, list) or not all(isinstance(f, str) for f in fixtures):
        raise InputError(file, f"{place}.fixtures", "must be a list of fixture ids")
    prices_raw = table.get("prices", {})
    if not isinstance(prices_raw, Mapping):
        raise InputError(
            file, f"{place}.prices", "must be a table of model family = {input, output}"
        )
    prices = {
        str(k): parse_price(v, file=file, place=f"{place}.prices.{k}")
        for k, v in prices_raw.items()
    }
    profiles_raw = table.get("profiles", {})
    if not isinstance(profiles_raw, Mapping):
        raise InputError(file, f"{place}.profiles", "must be a table of named profiles")
    profiles = tuple(
        profile_from_table(str(name), t, file=file or Path("earnest.toml"), prefix=prefix)
        for name, t in profiles_raw.items()
    )
    act = table.get("act", False)
    if not isinstance(act, bool):
        raise InputError(file, f"{place}.act", "must be true or false")
    batch = table.get("batch", False)
    if not isinstance(batch, bool):
        raise InputError(file, f"{place}.batch", "must be true or false")
    confine = table.get("confine", "auto")
    if confine not in MODES:
        raise InputError(file, f"{place}.confine", f"must be one of {', '.join(MODES)}")
    if confine == "none":
        from earnest.live.grants import user_config_path

        raise InputError(
            file,
            f"{place}.confine",
            'a suite file cannot turn confinement off (confine = "none"): anyone who can '
            "change the suite could let its agents read your files and reach every address. "
            f'Pass --confine none, or set [live] confine = "none" in your own config '
            f"({user_config_path()})",
        )
    timeout = number("timeout", 120.0)
    backoff = number("backoff", 1.0)
    batch_poll = number("batch_poll", 30.0)
    assert timeout is not None and backoff is not None and batch_poll is not None
    return LiveConfig(
        profiles=profiles,
        samples=whole("samples", 1, 1),
        arms=arms,
        shuffle=shuffle,
        seed=whole("seed", 0, 0),
        concurrency=whole("concurrency", 4, 1),
        timeout=timeout,
        retries=whole("retries", 4, 0),
        backoff=backoff,
        max_cost=number("max_cost", None),
        fixtures=tuple(fixtures),
        prices=prices,
        act=act,
        batch=batch,
        batch_poll=batch_poll,
        confine=confine,
    )


def parse_arms(value: Any, *, file: Path | None, place: str) -> tuple[str, ...]:
    """``["rule", "ablated"]`` or ``"rule,ablated"`` → a checked, de-duplicated tuple."""
    items = value.split(",") if isinstance(value, str) else value
    if not isinstance(items, list | tuple) or not items:
        raise InputError(file, place, "must list one or both of: rule, ablated")
    arms: list[str] = []
    for item in items:
        arm = str(item).strip()
        if arm not in ARMS:
            raise InputError(file, place, f"unknown arm {arm!r} (use rule, ablated)")
        if arm not in arms:
            arms.append(arm)
    return tuple(arms)


__all__ = ["ARMS", "LiveConfig", "live_config_from_table", "parse_arms"]

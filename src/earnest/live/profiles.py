"""Profiles: named provider + model + parameters, from ``--profile`` or ``[live.profiles.*]``.

A provider spec is ``KIND:MODEL``:

- ``openai:gpt-4o-mini`` — any OpenAI-compatible endpoint (``base_url`` for local servers);
- ``anthropic:claude-sonnet-4-5`` — the Anthropic messages API;
- ``exec:claude:sonnet``, ``exec:codex:gpt-5``, ``exec:gemini:gemini-2.5-pro``,
  ``exec:qwen:qwen3-coder-plus``, ``exec:copilot:gpt-5.4`` — a headless agent CLI, one fresh
  process per sample; ``exec:cmd:python3 my_agent.py`` — any command that reads the prompt on
  stdin;
- ``replay:recorded/replies.jsonl`` — recorded replies, for dry runs and tests.

Example:
    >>> p = parse_spec("mini", "openai:gpt-4o-mini")
    >>> p.kind, p.model, p.spec
    ('openai', 'gpt-4o-mini', 'openai:gpt-4o-mini')
    >>> parse_spec("cli", "exec:claude:sonnet").preset
    'claude'
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from earnest.configkeys import check_keys
from earnest.errors import InputError
from earnest.live.cost import Price
from earnest.live.endpoint import is_local_url, parse_endpoint
from earnest.live.grants import where_it_belongs
from earnest.safejson import scrub

KINDS = ("openai", "anthropic", "exec", "replay")
EXEC_PRESETS = ("claude", "codex", "gemini", "qwen", "copilot", "pi", "opencode", "cmd")
TOKEN_PARAMS = ("auto", "max_tokens", "max_completion_tokens")
STDIN_MODES = ("user", "combined")

PROFILE_KEYS = {
    "provider",
    "model",
    "params",
    "base_url",
    "api_key_env",
    "token_param",
    "command",
    "stdin",
    "concurrency",
    "price",
    "allow_env",
    "allow_network",
    "allow_read",
}

TRUSTED_KEYS = ("base_url", "api_key_env", "allow_env", "allow_network", "allow_read")
"""Profile keys that choose where data or credentials go, or widen what an acting agent
reaches: taken only from the user's own config (:mod:`earnest.live.userconfig`) or the
command line, never from a suite file (anyone who can change the suite could set them).
A suite may still point an ``openai:``/``anthropic:`` profile's ``base_url`` at a server on
this machine: that profile then sends no API key (:attr:`Profile.keyless`)."""


@dataclass(frozen=True, slots=True)
class Profile:
    """One column of the run matrix. ``params`` go to the provider as request parameters
    (``temperature``, ``max_tokens``, ...); secrets are never stored, only ``api_key_env``."""

    name: str
    kind: str
    model: str
    params: Mapping[str, Any] = field(default_factory=dict)
    base_url: str | None = None
    api_key_env: str | None = None
    token_param: str = "auto"
    preset: str | None = None
    command: tuple[str, ...] = ()
    stdin: str | None = None
    file: str | None = None
    concurrency: int | None = None
    price: Price | None = None
    allow_env: tuple[str, ...] = ()
    """Environment variables (names, or ``PREFIX_*``) an acting agent gets beyond its preset's
    (:mod:`earnest.live.agentenv`)."""
    allow_network: tuple[str, ...] = ()
    """``host:port`` endpoints a confined acting agent may connect to beyond its preset's model
    endpoint (:mod:`earnest.live.netgate`)."""
    allow_read: tuple[str, ...] = ()
    """Paths under the hidden HOME a confined acting agent may read (:mod:`earnest.live.confine`)."""
    keyless: bool = False
    """Send no API key: the suite file chose this profile's ``base_url`` (a server on this
    machine), and no credential goes to a place a repository chose."""

    @property
    def spec(self) -> str:
        if self.kind == "replay":
            return f"replay:{self.file}"
        if self.kind == "exec":
            if self.preset == "cmd":
                return "exec:cmd:" + shlex.join(self.command)
            return f"exec:{self.preset}:{self.model}"
        return f"{self.kind}:{self.model}"

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe form, stored with the run so ``--resume`` rebuilds the same provider."""
        return {
            "name": self.name,
            "kind": self.kind,
            "model": self.model,
            "params": dict(self.params),
            "base_url": self.base_url,
            "api_key_env": self.api_key_env,
            "token_param": self.token_param,
            "preset": self.preset,
            "command": list(self.command),
            "stdin": self.stdin,
            "file": self.file,
            "concurrency": self.concurrency,
            "price": None if self.price is None else [self.price.input, self.price.output],
            "allow_env": list(self.allow_env),
            "allow_network": list(self.allow_network),
            "allow_read": list(self.allow_read),
            "keyless": self.keyless,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Profile:
        price = data.get("price")
        return cls(
            name=str(data["name"]),
            kind=str(data["kind"]),
            model=str(data["model"]),
            params=dict(data.get("params") or {}),
            base_url=data.get("base_url"),
            api_key_env=data.get("api_key_env"),
            token_param=str(data.get("token_param") or "auto"),
            preset=data.get("preset"),
            command=tuple(data.get("command") or ()),
            stdin=data.get("stdin"),
            file=data.get("file"),
            concurrency=data.get("concurrency"),
            price=None if price is None else Price(float(price[0]), float(price[1])),
            allow_env=tuple(data.get("allow_env") or ()),
            allow_network=tuple(data.get("allow_network") or ()),
            allow_read=tuple(data.get("allow_read") or ()),
            keyless=bool(data.get("keyless", False)),
        )


def parse_spec(
    name: str,
    spec: str,
    *,
    file: str | Path | None = None,
    place: str | None = None,
    model: str | None = None,
) -> Profile:
    """Parse ``KIND:MODEL`` (see the module doc) into a :class:`Profile` named ``name``."""
    where = place or f"profile {name}"
    kind, sep, rest = spec.partition(":")
    kind = kind.strip().lower()
    rest = rest.strip()
    if kind not in KINDS:
        raise InputError(
            file, where, f"unknown provider {kind!r} in {spec!r} (use one of: {', '.join(KINDS)})"
        )
    if kind == "replay":
        if not rest:
            raise InputError(file, where, "replay needs a file: replay:PATH.jsonl")
        return Profile(name=name, kind="replay", model=model or "replay", file=rest)
    if kind == "exec":
        preset, _, tail = rest.partition(":")
        preset = preset.strip().lower()
        if preset not in EXEC_PRESETS:
            raise InputError(
                file,
                where,
                f"unknown agent CLI preset {preset!r} in {spec!r} "
                f"(use exec:claude:MODEL, exec:codex:MODEL, exec:gemini:MODEL, exec:qwen:MODEL, "
                f"exec:copilot:MODEL, exec:pi:MODEL, "
                f"exec:opencode:PROVIDER/MODEL or exec:cmd:COMMAND)",
            )
        if preset == "cmd":
            try:
                argv = tuple(shlex.split(tail))
            except ValueError as exc:
                raise InputError(file, where, f"cannot split the command {tail!r}: {exc}") from None
            if not argv:
                raise InputError(file, where, "exec:cmd needs a command: exec:cmd:python3 agent.py")
            return Profile(
                name=name,
                kind="exec",
                model=model or Path(argv[0]).name,
                preset="cmd",
                command=argv,
            )
        chosen = model or tail.strip()
        if not chosen:
            # A headless CLI without a model flag measures the CLI's default model instead of
            # the one under test, so the model is required.
            raise InputError(
                file, where, f"exec:{preset} needs a model: exec:{preset}:MODEL (or model = ...)"
            )
        return Profile(name=name, kind="exec", model=chosen, preset=preset)
    chosen = model or rest
    if not sep or not chosen:
        raise InputError(file, where, f"{kind} needs a model: {kind}:MODEL")
    return Profile(name=name, kind=kind, model=chosen)


def parse_cli_profile(text: str) -> tuple[str, str | None]:
    """``NAME=PROVIDER:MODEL`` → (name, spec); a bare ``NAME`` selects a configured profile.

    Bytes that are not UTF-8 in the command line (lone surrogates in ``sys.argv``) become
    U+FFFD: the name and model are stored and printed, and no UTF-8 writer takes them."""
    name, sep, spec = scrub(text).partition("=")
    name = name.strip()
    if not name:
        raise InputError(None, "--profile", f"{text!r}: expected NAME=PROVIDER:MODEL or NAME")
    return name, (spec.strip() if sep else None)


def profile_from_table(
    name: str, table: Any, *, file: Path, prefix: str, trusted: bool = False
) -> Profile:
    """Read one ``[live.profiles.NAME]`` table: of a suite file, or (``trusted``) of the
    user's own config, the only file that may hold :data:`TRUSTED_KEYS`."""
    place = f"{prefix}live.profiles.{name}"
    if not isinstance(table, dict):
        raise InputError(file, place, "must be a table")
    check_keys(table, sorted(PROFILE_KEYS), file, place)
    model = table.get("model")
    if model is not None and (not isinstance(model, str) or not model):
        raise InputError(file, f"{place}.model", "must be a non-empty string")
    command = table.get("command")
    spec = table.get("provider")
    if command is not None:
        if not (isinstance(command, list) and command and all(isinstance(c, str) for c in command)):
            raise InputError(file, f"{place}.command", "must be a non-empty list of strings")
        if spec is not None and spec not in {"exec", "exec:cmd"}:
            raise InputError(file, f"{place}.provider", "a profile with a command is exec:cmd")
        profile = Profile(
            name=name,
            kind="exec",
            model=model or Path(command[0]).name,
            preset="cmd",
            command=tuple(command),
        )
    else:
        if not isinstance(spec, str) or not spec:
            raise InputError(
                file, f"{place}.provider", 'missing (e.g. provider = "openai:gpt-4o-mini")'
            )
        profile = parse_spec(name, spec, file=file, place=f"{place}.provider", model=model)
    if not trusted:
        profile = _untrusted(profile, table, file=file, place=place)
    return _with_options(profile, table, file=file, place=place)


def _untrusted(profile: Profile, table: Mapping[str, Any], *, file: Path, place: str) -> Profile:
    """A suite file's profile: refuse (exit 2) every key of :data:`TRUSTED_KEYS` but a
    ``base_url`` on this machine for a model API, which then sends no key."""
    for key in TRUSTED_KEYS:
        if key not in table:
            continue
        value = table[key]
        if (
            key == "base_url"
            and profile.kind in ("openai", "anthropic")
            and isinstance(value, str)
            and is_local_url(value)
        ):
            from dataclasses import replace

            profile = replace(profile, keyless=True)
            continue
        what = (
            "chooses where the prompts and the API key go"
            if key == "base_url"
            else "chooses which credential is sent"
            if key == "api_key_env"
            else "widens what the acting agent reaches"
        )
        if key == "base_url" and profile.kind in ("openai", "anthropic"):
            what += ' (a suite may name a server on this machine only, e.g. "http://127.0.0.1:8000/v1", which gets no key)'
        raise InputError(
            file,
            f"{place}.{key}",
            f"a suite file cannot set {key}: it {what}, and anyone who can change the "
            f"suite could set it. {where_it_belongs(profile.name, key)}",
        )
    return profile


def _with_options(profile: Profile, table: Mapping[str, Any], *, file: Path, place: str) -> Profile:
    from dataclasses import replace

    params = table.get("params", {})
    if not isinstance(params, dict):
        raise InputError(file, f"{place}.params", "must be a table of request parameters")
    opts: dict[str, Any] = {"params": dict(params)}
    opts.update(trusted_options(table, file=file, place=place))
    token_param = table.get("token_param", "auto")
    if token_param not in TOKEN_PARAMS:
        raise InputError(file, f"{place}.token_param", f"must be one of {', '.join(TOKEN_PARAMS)}")
    opts["token_param"] = token_param
    stdin = table.get("stdin")
    if stdin is not None and stdin not in STDIN_MODES:
        raise InputError(file, f"{place}.stdin", f"must be one of {', '.join(STDIN_MODES)}")
    opts["stdin"] = stdin
    concurrency = table.get("concurrency")
    if concurrency is not None and (
        not isinstance(concurrency, int) or isinstance(concurrency, bool) or concurrency < 1
    ):
        raise InputError(file, f"{place}.concurrency", "must be a whole number >= 1")
    opts["concurrency"] = concurrency
    if "price" in table:
        opts["price"] = parse_price(table["price"], file=file, place=f"{place}.price")
    return replace(profile, **opts)


def trusted_options(table: Mapping[str, Any], *, file: Path, place: str) -> dict[str, Any]:
    """The checked :data:`TRUSTED_KEYS` of a profile table (of a suite, only a local
    ``base_url`` is left by the time this reads it)."""
    opts: dict[str, Any] = {}
    for key in ("base_url", "api_key_env"):
        value = table.get(key)
        if value is not None:
            if not isinstance(value, str) or not value:
                raise InputError(file, f"{place}.{key}", "must be a non-empty string")
            opts[key] = value
    opts.update(_allow_options(table, file=file, place=place))
    return opts


_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*\*?$")


def _allow_options(table: Mapping[str, Any], *, file: Path, place: str) -> dict[str, Any]:
    """``allow_env``, ``allow_network`` and ``allow_read``: what widens an acting agent's
    confinement (docs/live-runs.md, "Confinement")."""
    out: dict[str, Any] = {}
    for key in ("allow_env", "allow_network", "allow_read"):
        value = table.get(key)
        if value is None:
            continue
        if not (isinstance(value, list) and all(isinstance(v, str) and v for v in value)):
            raise InputError(file, f"{place}.{key}", "must be a list of non-empty strings")
        for i, item in enumerate(value):
            check_allowed(key, item, file=file, place=f"{place}.{key}[{i}]")
        out[key] = tuple(value)
    return out


def check_allowed(key: str, item: str, *, file: Path | None, place: str) -> None:
    """One entry of ``allow_env``, ``allow_network`` or ``allow_read`` (in a file, or the
    value of ``--allow-env`` ...); :class:`InputError` naming ``place`` when it is bad.

    Example:
        >>> check_allowed("allow_network", "pypi.org:443", file=None, place="--allow-network")
        >>> check_allowed("allow_env", "MY KEY", file=None, place="--allow-env")
        Traceback (most recent call last):
        ...
        earnest.errors.InputError: --allow-env: 'MY KEY' is not a variable name (NAME, or PREFIX_* for a family)
    """
    if key == "allow_env" and not _ENV_NAME.match(item):
        raise InputError(
            file, place, f"{item!r} is not a variable name (NAME, or PREFIX_* for a family)"
        )
    if key == "allow_network":
        try:
            parse_endpoint(item)
        except ValueError as exc:
            raise InputError(file, place, str(exc)) from None
    if key == "allow_read" and not Path(item).expanduser().is_absolute():
        raise InputError(file, place, f"{item!r} must be an absolute path (or start with ~/)")


def parse_price(value: Any, *, file: Path | None, place: str) -> Price:
    """``{input = 3.0, output = 15.0}`` (USD per million tokens)."""
    if not isinstance(value, dict) or set(value) != {"input", "output"}:
        raise InputError(file, place, "must be {input = USD per 1M tokens, output = ...}")
    out: list[float] = []
    for key in ("input", "output"):
        v = value[key]
        if not isinstance(v, int | float) or isinstance(v, bool) or v < 0:
            raise InputError(file, f"{place}.{key}", "must be a number >= 0")
        out.append(float(v))
    return Price(out[0], out[1])


__all__ = [
    "EXEC_PRESETS",
    "KINDS",
    "PROFILE_KEYS",
    "TRUSTED_KEYS",
    "Profile",
    "check_allowed",
    "parse_cli_profile",
    "parse_price",
    "parse_spec",
    "profile_from_table",
    "trusted_options",
]

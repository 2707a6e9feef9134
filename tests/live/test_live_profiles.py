"""Provider specs, [live] tables and their errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from earnest.errors import InputError
from earnest.live.config import LiveConfig, live_config_from_table, parse_arms
from earnest.live.cost import Price
from earnest.live.profiles import Profile, parse_cli_profile, parse_spec, profile_from_table

F = Path("earnest.toml")


@pytest.mark.parametrize(
    ("spec", "kind", "model", "preset"),
    [
        ("openai:gpt-4o-mini", "openai", "gpt-4o-mini", None),
        ("openai:llama3.1:8b", "openai", "llama3.1:8b", None),
        ("anthropic:claude-sonnet-4-5", "anthropic", "claude-sonnet-4-5", None),
        ("exec:claude:sonnet", "exec", "sonnet", "claude"),
        ("exec:codex:gpt-5", "exec", "gpt-5", "codex"),
        ("exec:gemini:gemini-2.5-pro", "exec", "gemini-2.5-pro", "gemini"),
        ("exec:cmd:python3 agent.py --fast", "exec", "python3", "cmd"),
        ("replay:rec/a.jsonl", "replay", "replay", None),
    ],
)
def test_specs(spec: str, kind: str, model: str, preset: str | None) -> None:
    p = parse_spec("p", spec)
    assert (p.kind, p.model, p.preset) == (kind, model, preset)
    assert parse_spec("p", p.spec) == p
    assert Profile.from_dict(p.to_dict()) == p


def test_cmd_spec_splits_without_a_shell() -> None:
    p = parse_spec("p", "exec:cmd:python3 'my agent.py' --x '$(rm -rf /)'")
    assert p.command == ("python3", "my agent.py", "--x", "$(rm -rf /)")


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("gpt-4o", "unknown provider"),
        ("bedrock:x", "unknown provider"),
        ("openai:", "needs a model"),
        ("exec:claude", "needs a model"),
        ("exec:aider:x", "unknown agent CLI preset"),
        ("exec:cmd:", "needs a command"),
        ("exec:cmd:python3 'unclosed", "cannot split"),
        ("replay:", "needs a file"),
    ],
)
def test_bad_specs(spec: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        parse_spec("p", spec, place="--profile")


def test_cli_profile_forms() -> None:
    assert parse_cli_profile("mini=openai:gpt-4o-mini") == ("mini", "openai:gpt-4o-mini")
    assert parse_cli_profile("mini") == ("mini", None)
    with pytest.raises(InputError):
        parse_cli_profile("=openai:x")


def test_profile_tables() -> None:
    p = profile_from_table(
        "local",
        {
            "provider": "openai:llama3",
            "base_url": "http://127.0.0.1:11434/v1",
            "params": {"temperature": 0.7, "max_tokens": 300},
            "token_param": "max_tokens",
            "concurrency": 2,
            "price": {"input": 0, "output": 0},
        },
        file=F,
        prefix="",
    )
    assert p.base_url and p.params["max_tokens"] == 300 and p.concurrency == 2
    assert p.price == Price(0.0, 0.0)
    cmd = profile_from_table(
        "a", {"command": ["python3", "a.py", "{model}"], "model": "m"}, file=F, prefix=""
    )
    assert (cmd.kind, cmd.preset, cmd.command, cmd.model) == (
        "exec",
        "cmd",
        ("python3", "a.py", "{model}"),
        "m",
    )
    cli = profile_from_table("c", {"provider": "exec:claude", "model": "haiku"}, file=F, prefix="")
    assert cli.spec == "exec:claude:haiku"


@pytest.mark.parametrize(
    ("table", "place"),
    [
        ({"provider": "openai:x", "temprature": 1}, "live.profiles.p.temprature"),
        ({}, "live.profiles.p.provider"),
        ({"provider": "openai:x", "params": 3}, "live.profiles.p.params"),
        ({"provider": "openai:x", "token_param": "max"}, "live.profiles.p.token_param"),
        ({"provider": "openai:x", "concurrency": 0}, "live.profiles.p.concurrency"),
        ({"provider": "openai:x", "price": {"input": 1}}, "live.profiles.p.price"),
        (
            {"provider": "openai:x", "price": {"input": -1, "output": 1}},
            "live.profiles.p.price.input",
        ),
        ({"command": "python3 a.py"}, "live.profiles.p.command"),
        ({"stdin": "both", "command": ["x"]}, "live.profiles.p.stdin"),
    ],
)
def test_bad_profile_tables_name_the_place(table: dict[str, object], place: str) -> None:
    with pytest.raises(InputError) as info:
        profile_from_table("p", table, file=F, prefix="")
    assert info.value.file == "earnest.toml" and info.value.place == place


def test_live_table_defaults_and_values() -> None:
    assert live_config_from_table(None) == LiveConfig()
    cfg = live_config_from_table(
        {
            "samples": 5,
            "arms": ["rule"],
            "shuffle": False,
            "seed": 7,
            "concurrency": 8,
            "timeout": 30,
            "retries": 2,
            "backoff": 0.5,
            "max_cost": 2.5,
            "fixtures": ["A"],
            "prices": {"my-model": {"input": 1, "output": 2}},
            "profiles": {"m": {"provider": "openai:my-model"}},
        },
        file=F,
    )
    assert (cfg.samples, cfg.arms, cfg.shuffle, cfg.seed, cfg.max_cost) == (
        5,
        ("rule",),
        False,
        7,
        2.5,
    )
    assert cfg.prices["my-model"] == Price(1.0, 2.0)
    assert LiveConfig.from_dict(cfg.to_dict()) == cfg


@pytest.mark.parametrize(
    ("table", "place"),
    [
        ({"sample": 3}, "tool.earnest.live.sample"),
        ({"samples": 0}, "tool.earnest.live.samples"),
        ({"timeout": -1}, "tool.earnest.live.timeout"),
        ({"arms": ["rule", "red"]}, "tool.earnest.live.arms"),
        ({"shuffle": "yes"}, "tool.earnest.live.shuffle"),
        ({"fixtures": "A"}, "tool.earnest.live.fixtures"),
        ({"profiles": []}, "tool.earnest.live.profiles"),
    ],
)
def test_bad_live_tables(table: dict[str, object], place: str) -> None:
    with pytest.raises(InputError) as info:
        live_config_from_table(table, file=Path("pyproject.toml"), prefix="tool.earnest.")
    assert info.value.place == place


def test_arms() -> None:
    assert parse_arms("rule, ablated,rule", file=None, place="--arms") == ("rule", "ablated")
    with pytest.raises(InputError, match="unknown arm"):
        parse_arms("rule,baseline", file=None, place="--arms")

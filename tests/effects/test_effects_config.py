"""Loading the gate's settings and extra tool names from TOML."""

from __future__ import annotations

from pathlib import Path

import pytest

from earnest.effects import EffectGate, EffectGateConfig, load_effect_gate_config
from earnest.errors import InputError


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def test_effects_table_from_earnest_toml(tmp_path: Path):
    write(
        tmp_path / "earnest.toml",
        "[effects]\nenabled = true\nmax_downgrades = 1\nstrict_claims = true\n"
        'unknown_shell = "ignore"\n[effects.tools]\ndeploy_site = "shell"\nsave_report = "write"\n',
    )
    cfg = load_effect_gate_config(tmp_path)
    assert (cfg.enabled, cfg.max_downgrades, cfg.strict_claims, cfg.verify_artifacts) == (
        True,
        1,
        True,
        True,
    )
    assert cfg.registry.kind_of("deploy_site") == "shell"
    assert cfg.registry.unknown_shell == "ignore"
    gate = EffectGate(cfg, env={})
    gate.reset()
    gate.record([{"tool_name": "save_report", "args": {"path": "r.md"}}])
    assert list(gate.ledger.artifacts) == ["r.md"]


def test_effects_table_from_pyproject(tmp_path: Path):
    path = write(
        tmp_path / "pyproject.toml",
        '[tool.earnest.effects]\nenabled = true\n[tool.earnest.effects.tools]\nx = "read"\n',
    )
    cfg = load_effect_gate_config(path)
    assert cfg.enabled and cfg.registry.kind_of("x") == "read"
    assert load_effect_gate_config(tmp_path).enabled


def test_no_config_gives_the_defaults(tmp_path: Path):
    assert load_effect_gate_config(tmp_path).enabled is False
    write(tmp_path / "earnest.toml", "[suite]\ndoctrine = 'd.md'\n")
    assert load_effect_gate_config(tmp_path).max_downgrades == 2
    base = EffectGateConfig(enabled=True, max_downgrades=5)
    assert load_effect_gate_config(tmp_path, base=base) is base


@pytest.mark.parametrize(
    ("text", "place", "message"),
    [
        ('[effects.tools]\nship = "teleport"\n', "effects.tools.ship", "unknown kind 'teleport'"),
        ("[effects]\ntools = 3\n", "effects.tools", "must be a table"),
        ("[effects]\nmax_downgrades = -1\n", "effects.max_downgrades", "whole number"),
        ("[effects]\nmax_downgrades = true\n", "effects.max_downgrades", "whole number"),
        ('[effects]\nenabled = "yes"\n', "effects.enabled", "true or false"),
        ('[effects]\nunknown_shell = "maybe"\n', "effects.unknown_shell", '"delta" or "ignore"'),
        ("[effects]\nenable = true\n", "effects.enable", "unknown key"),
        ("effects = 3\n", "effects", "must be a table"),
    ],
)
def test_bad_settings_name_the_file_and_the_key(
    tmp_path: Path, text: str, place: str, message: str
):
    path = write(tmp_path / "earnest.toml", text)
    with pytest.raises(InputError) as info:
        load_effect_gate_config(path)
    assert info.value.file == str(path) and info.value.place == place
    assert message in info.value.message


def test_pyproject_places_are_prefixed(tmp_path: Path):
    path = write(tmp_path / "pyproject.toml", '[tool.earnest.effects.tools]\nship = "x"\n')
    with pytest.raises(InputError) as info:
        load_effect_gate_config(path)
    assert info.value.place == "tool.earnest.effects.tools.ship"


def test_invalid_toml_and_missing_files(tmp_path: Path):
    path = write(tmp_path / "earnest.toml", "[effects\n")
    with pytest.raises(InputError, match="invalid TOML"):
        load_effect_gate_config(path)
    with pytest.raises(InputError, match="does not exist"):
        load_effect_gate_config(tmp_path / "nope.toml")

"""`[effects]` / `[hooks]` in earnest.toml or .earnest.toml: defaults, precedence, errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from earnest.errors import InputError
from earnest.hooks.config import HookConfig, load_hook_config


def test_no_file_means_on_with_defaults(tmp_path: Path) -> None:
    config = load_hook_config(tmp_path)
    assert config.source is None
    assert config.enabled and config.gate.enabled  # installing the hook is the opt-in
    assert config.max_downgrades == 2 == HookConfig().max_downgrades
    assert config.gate.verify_artifacts and config.gate.strict_claims


def test_hooks_table_wins_over_effects(tmp_path: Path) -> None:
    (tmp_path / "earnest.toml").write_text(
        "[suite]\ndoctrine = 'x.md'\n"
        "[effects]\nmax_downgrades = 5\nstrict_claims = false\nenabled = false\n"
        "[effects.tools]\ndeploy = 'write'\n"
        "[hooks]\nmax_downgrades = 1\n"
    )
    config = load_hook_config(tmp_path)
    assert config.max_downgrades == 1
    assert config.gate.strict_claims is False
    assert config.gate.registry.kind_of("deploy") == "write"  # read by earnest.effects
    assert config.gate.enabled is True
    assert config.source == tmp_path / "earnest.toml"


def test_earnest_toml_is_read_before_the_hidden_one(tmp_path: Path) -> None:
    (tmp_path / ".earnest.toml").write_text("[hooks]\nmax_downgrades = 4\n")
    assert load_hook_config(tmp_path).max_downgrades == 4
    (tmp_path / "earnest.toml").write_text("[hooks]\nmax_downgrades = 3\n")
    assert load_hook_config(tmp_path).max_downgrades == 3


def test_only_hooks_enabled_switches_the_hook(tmp_path: Path) -> None:
    (tmp_path / "earnest.toml").write_text("[effects]\nenabled = false\n")
    assert load_hook_config(tmp_path).enabled is True  # installing the hook is the opt-in
    (tmp_path / "earnest.toml").write_text("[effects]\nenabled = false\n[hooks]\nenabled = false\n")
    assert load_hook_config(tmp_path).enabled is False


@pytest.mark.parametrize(
    ("text", "place", "message"),
    [
        ("[hooks]\nmax_downgrades = -1\n", "hooks.max_downgrades", "whole number"),
        ("[hooks]\nmax_downgrades = true\n", "hooks.max_downgrades", "whole number"),
        ("[effects]\nstrict_claims = 'yes'\n", "effects.strict_claims", "true or false"),
        ("[hooks]\nmax_downgrade = 2\n", "hooks.max_downgrade", "unknown key"),
        ("[effects.tools]\ndeploy = 3\n", "effects.tools.deploy", "unknown kind"),
        ("[effects]\nmax_downgrades = 'x'\n", "effects.max_downgrades", "whole number"),
        ("hooks = 3\n", "hooks", "must be a table"),
    ],
)
def test_bad_values_name_file_and_place(
    tmp_path: Path, text: str, place: str, message: str
) -> None:
    (tmp_path / "earnest.toml").write_text(text)
    with pytest.raises(InputError) as err:
        load_hook_config(tmp_path)
    assert err.value.file == str(tmp_path / "earnest.toml")
    assert err.value.place == place
    assert message in err.value.message


def test_invalid_toml_names_the_line(tmp_path: Path) -> None:
    (tmp_path / ".earnest.toml").write_text("[hooks]\nenabled = \n")
    with pytest.raises(InputError) as err:
        load_hook_config(tmp_path)
    assert "invalid TOML" in err.value.message and "line 2" in err.value.message

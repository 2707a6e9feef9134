"""Where the settings that only the user may give live: the user's own config file.

A suite file comes from the repository, and so from any pull request. The profile keys that
choose where data or credentials go, or widen what an acting agent reaches (``base_url``,
``api_key_env``, ``allow_env``, ``allow_network``, ``allow_read``; and ``confine = "none"``)
are taken only from the command line or from the user's config file, which no repository
holds: ``$EARNEST_CONFIG`` when set, else ``$XDG_CONFIG_HOME/earnest/config.toml``, else
``~/.config/earnest/config.toml`` (:mod:`earnest.live.userconfig` reads it).

Example:
    >>> user_config_path({"XDG_CONFIG_HOME": "/home/me/.config"})
    PosixPath('/home/me/.config/earnest/config.toml')
    >>> user_config_path({"EARNEST_CONFIG": "/etc/earnest.toml", "HOME": "/home/me"})
    PosixPath('/etc/earnest.toml')
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

CONFIG_ENV = "EARNEST_CONFIG"
"""The environment variable naming the user's config file."""

FLAGS = {
    "base_url": "--base-url URL",
    "api_key_env": "--api-key-env NAME",
    "allow_env": "--allow-env NAME",
    "allow_network": "--allow-network HOST:PORT",
    "allow_read": "--allow-read PATH",
}
"""The command-line flag that gives each user-only profile key for one run."""


def user_config_path(env: Mapping[str, str] | None = None) -> Path:
    """The user's config file (it need not exist); see the module doc."""
    env = os.environ if env is None else env
    if env.get(CONFIG_ENV):
        return Path(env[CONFIG_ENV]).expanduser()
    base = env.get("XDG_CONFIG_HOME")
    if base and Path(base).is_absolute():
        return Path(base) / "earnest" / "config.toml"
    home = env.get("HOME") or str(Path.home())
    return Path(home) / ".config" / "earnest" / "config.toml"


def where_it_belongs(profile: str, key: str) -> str:
    """Where a user-only ``key`` of profile ``profile`` goes instead of a suite file.

    Example:
        >>> where_it_belongs("agent", "allow_env")  # doctest: +ELLIPSIS
        'Give it in your own config (...config.toml: [live.profiles.agent] allow_env = ...) or on the command line (--allow-env NAME)'
    """
    flag = FLAGS.get(key, "")
    on_line = f" or on the command line ({flag})" if flag else ""
    return (
        f"Give it in your own config ({user_config_path()}: [live.profiles.{profile}] "
        f"{key} = ...){on_line}"
    )


__all__ = ["CONFIG_ENV", "FLAGS", "user_config_path", "where_it_belongs"]

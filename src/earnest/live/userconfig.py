"""The user's own config file: the one file that may give what a suite file may not.

Read from :func:`earnest.live.grants.user_config_path` (``$EARNEST_CONFIG``, else
``$XDG_CONFIG_HOME/earnest/config.toml``, else ``~/.config/earnest/config.toml``); a missing
file is an empty config. It holds ``[live]`` with two keys:

- ``confine``: ``"auto"``, ``"bwrap"`` or ``"none"`` (``--confine`` still wins);
- ``profiles``: ``[live.profiles.NAME]`` tables. One with ``provider`` or ``command`` is a
  profile of the user's own (every profile key allowed; it replaces a suite profile of the
  same name). One without is a *grant* to the profile ``NAME`` (the suite's, or one given
  by ``--profile NAME=...``): it holds only the user-only keys (``base_url``,
  ``api_key_env``, ``allow_env``, ``allow_network``, ``allow_read``).

```toml
[live]
confine = "bwrap"

[live.profiles.agent]                      # a grant to the suite's profile "agent"
allow_env = ["MY_AGENT_KEY"]
allow_network = ["pypi.org:443"]

[live.profiles.gateway]                    # a profile of my own
provider = "openai:gpt-4o-mini"
base_url = "https://llm-gateway.example.com/v1"
api_key_env = "GATEWAY_KEY"
```

Example:
    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "config.toml"
    >>> _ = path.write_text('[live.profiles.agent]\\nallow_env = ["MY_KEY"]\\n')
    >>> user = load_user_config({"EARNEST_CONFIG": str(path)})
    >>> dict(user.grants)
    {'agent': {'allow_env': ('MY_KEY',)}}
    >>> from earnest.live.profiles import parse_spec
    >>> user.apply(parse_spec("agent", "exec:cmd:./agent.sh")).allow_env
    ('MY_KEY',)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from earnest.configkeys import check_keys
from earnest.errors import InputError
from earnest.live.confine import MODES
from earnest.live.grants import user_config_path
from earnest.live.profiles import (
    PROFILE_KEYS,
    TRUSTED_KEYS,
    Profile,
    profile_from_table,
    trusted_options,
)


@dataclass(frozen=True, slots=True)
class UserConfig:
    """What the user's own config gives: ``profiles`` of the user's own, ``grants`` of
    user-only keys to profiles by name, and ``confine``; ``file`` is where it was read."""

    file: Path | None = None
    profiles: Mapping[str, Profile] = field(default_factory=dict)
    grants: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    confine: str | None = None

    def apply(self, profile: Profile) -> Profile:
        """``profile`` with the grant of its name (if any) applied. A grant's ``base_url``
        makes the profile send its key again; a grant of ``api_key_env`` alone to a profile
        whose base URL the suite chose is refused: a key goes only where the user said."""
        grant = self.grants.get(profile.name)
        if not grant:
            return profile
        place = f"live.profiles.{profile.name}"
        if "api_key_env" in grant and "base_url" not in grant and profile.keyless:
            raise InputError(
                self.file,
                f"{place}.api_key_env",
                f"profile {profile.name}'s base URL ({profile.base_url}) comes from the suite "
                "file, and a key goes only to a base URL you chose: give base_url here too",
            )
        changes: dict[str, Any] = dict(grant)
        if "base_url" in grant:
            changes["keyless"] = False
        return dataclasses.replace(profile, **changes)


def load_user_config(env: Mapping[str, str] | None = None) -> UserConfig:
    """Read the user's config (see the module doc); :class:`InputError` naming the file and
    the place for anything wrong in it."""
    from earnest.tomlfile import read_toml

    path = user_config_path(env)
    if not path.is_file():
        if path.exists():
            raise InputError(path, None, "the user config is not a file")
        return UserConfig()
    data = read_toml(path, "user config")
    check_keys(data, ("live",), path, "")
    live = data.get("live", {})
    if not isinstance(live, dict):
        raise InputError(path, "live", "must be a table")
    check_keys(live, ("confine", "profiles"), path, "live")
    confine = live.get("confine")
    if confine is not None and confine not in MODES:
        raise InputError(path, "live.confine", f"must be one of {', '.join(MODES)}")
    tables = live.get("profiles", {})
    if not isinstance(tables, dict):
        raise InputError(path, "live.profiles", "must be a table of named profiles")
    profiles: dict[str, Profile] = {}
    grants: dict[str, dict[str, Any]] = {}
    for name, table in tables.items():
        place = f"live.profiles.{name}"
        if not isinstance(table, dict):
            raise InputError(path, place, "must be a table")
        if "provider" in table or "command" in table:
            profiles[name] = profile_from_table(name, table, file=path, prefix="", trusted=True)
            continue
        other = next((k for k in table if k not in TRUSTED_KEYS), None)
        if other is not None:
            check_keys({other: None}, sorted(PROFILE_KEYS), path, place)
            raise InputError(
                path,
                f"{place}.{other}",
                f"a grant to profile {name} (a table without provider or command) holds only "
                f"{', '.join(TRUSTED_KEYS)}; {other} belongs in the suite's profile, or give "
                "provider (or command) for a profile of your own",
            )
        grants[name] = trusted_options(table, file=path, place=place)
    return UserConfig(path, profiles, grants, confine)


__all__ = ["UserConfig", "load_user_config"]

"""Read a suite's configuration from ``earnest.toml`` or ``[tool.earnest]`` in ``pyproject.toml``.

Example:
    >>> from pathlib import Path
    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> _ = (d / "earnest.toml").write_text('[suite]\\ndoctrine = "rules.md"\\n')
    >>> load_config(d).doctrine.name
    'rules.md'
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from earnest.errors import InputError
from earnest.pressure.models import SuiteConfig

CONFIG_NAME = "earnest.toml"


def find_config(root: Path) -> tuple[Path, dict[str, Any]]:
    """Return the config file under ``root`` and its earnest table (``suite``, ``live``, ...)."""
    if not root.exists():
        raise InputError(root, None, "suite folder does not exist")
    if not root.is_dir():
        raise InputError(root, None, "suite must be a folder (pass --suite DIR)")
    candidate = root / CONFIG_NAME
    if candidate.is_file():
        return candidate, _read_toml(candidate)
    pyproject = root / "pyproject.toml"
    if pyproject.is_file():
        data = _read_toml(pyproject)
        tool = data.get("tool", {})
        if isinstance(tool, dict) and isinstance(tool.get("earnest"), dict):
            return pyproject, tool["earnest"]
    raise InputError(
        root,
        None,
        f"no {CONFIG_NAME} and no [tool.earnest] in pyproject.toml (run `earnest init DIR`)",
    )


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(path, _toml_place(str(exc)), f"invalid TOML: {exc}") from None
    except OSError as exc:
        raise InputError(path, None, f"cannot read: {exc.strerror}") from None


def _toml_place(msg: str) -> str | None:
    # tomllib says "... (at line 3, column 7)"
    marker = "(at line "
    if marker in msg:
        return "line " + msg.split(marker, 1)[1].split(",", 1)[0].rstrip(")")
    return None


def _str_list(value: Any, file: Path, place: str) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise InputError(file, place, "must be a string or a list of strings")


def load_config(root: Path) -> SuiteConfig:
    """Load and check the ``[suite]`` table of the suite at ``root``."""
    path, table = find_config(root)
    prefix = "tool.earnest." if path.name == "pyproject.toml" else ""
    suite = table.get("suite")
    if not isinstance(suite, dict):
        raise InputError(path, f"{prefix}suite", "missing [suite] table")

    def get_str(key: str, default: str | None) -> str:
        value = suite.get(key, default)
        if not isinstance(value, str) or not value:
            raise InputError(path, f"{prefix}suite.{key}", "must be a non-empty string")
        return value

    doctrine = get_str("doctrine", None) if "doctrine" in suite else None
    if doctrine is None:
        raise InputError(
            path, f"{prefix}suite.doctrine", "missing (the rules file, e.g. doctrine.md)"
        )
    agents = _str_list(suite.get("agents", ["agents/*.md"]), path, f"{prefix}suite.agents")
    claims_heading = get_str("claims_heading", "Working Rules")
    fixtures = get_str("fixtures", "pressure")
    min_fixtures = suite.get("min_fixtures", 0)
    if not isinstance(min_fixtures, int) or isinstance(min_fixtures, bool) or min_fixtures < 0:
        raise InputError(path, f"{prefix}suite.min_fixtures", "must be a whole number >= 0")
    replies = _str_list(suite.get("replies", []), path, f"{prefix}suite.replies")

    debt_raw = suite.get("debt", {})
    if not isinstance(debt_raw, dict):
        raise InputError(path, f"{prefix}suite.debt", "must be a table of rule id = reason")
    debt: dict[str, str] = {}
    for key, reason in debt_raw.items():
        if not isinstance(reason, str):
            raise InputError(path, f"{prefix}suite.debt.{key}", "the reason must be a string")
        debt[str(key)] = reason

    aliases_raw = suite.get("aliases", {})
    if not isinstance(aliases_raw, dict):
        raise InputError(path, f"{prefix}suite.aliases", "must be a table of rule id = [aliases]")
    aliases = {
        str(k): _str_list(v, path, f"{prefix}suite.aliases.{k}") for k, v in aliases_raw.items()
    }

    citation = suite.get("citation", "required")
    if citation not in ("required", "optional"):
        raise InputError(path, f"{prefix}suite.citation", 'must be "required" or "optional"')
    from_reasoning = suite.get("citations_from_reasoning", False)
    if not isinstance(from_reasoning, bool):
        raise InputError(path, f"{prefix}suite.citations_from_reasoning", "must be true or false")

    return SuiteConfig(
        root=root,
        config_file=path,
        doctrine=root / doctrine,
        agents=agents,
        claims_heading=claims_heading,
        fixtures=root / fixtures,
        min_fixtures=min_fixtures,
        replies=replies,
        debt=debt,
        aliases=aliases,
        citation=citation,
        citations_from_reasoning=from_reasoning,
        raw=table,
    )


__all__ = ["CONFIG_NAME", "find_config", "load_config"]

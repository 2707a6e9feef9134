"""Read a suite's configuration from ``earnest.toml`` or ``[tool.earnest]`` in ``pyproject.toml``.

Deny by default: an unknown key or table anywhere is an error naming the nearest known one
(``suite.min_fixture: unknown key min_fixture — did you mean min_fixtures?``), so a typo can
never switch a guard off. Wrong types, NUL bytes in paths, absolute or empty glob patterns,
non-UTF-8 files, FIFOs and over-deep nesting are errors with the file and the place.

Example:
    >>> from pathlib import Path
    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> _ = (d / "earnest.toml").write_text('[suite]\\ndoctrine = "rules.md"\\n')
    >>> load_config(d).doctrine.name
    'rules.md'
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any

from earnest.configkeys import check_keys
from earnest.errors import InputError
from earnest.pressure.models import Floors, SuiteConfig
from earnest.textfile import not_regular
from earnest.tomlfile import read_toml

CONFIG_NAME = "earnest.toml"

TABLES: tuple[str, ...] = ("suite", "live", "effects", "hooks", "otel")
"""The tables an earnest config may hold; each is checked by the module that reads it."""

SUITE_KEYS: tuple[str, ...] = (
    "doctrine",
    "agents",
    "claims_heading",
    "fixtures",
    "min_fixtures",
    "replies",
    "debt",
    "aliases",
    "floors",
    # How citations are judged (the citation module owns their meaning):
    "citation",  # "required" | "optional"
    "citations_from_reasoning",  # bool
)
"""Every key ``[suite]`` may hold; any other is an error."""

FLOOR_KEYS: tuple[str, ...] = ("scenario_words", "title_words", "choice_words")
"""The keys of ``[suite.floors]`` (see :class:`~earnest.pressure.models.Floors`)."""


def find_config(root: Path) -> tuple[Path, dict[str, Any]]:
    """Return the config file under ``root`` and its earnest table (``suite``, ``live``, ...)."""
    if "\x00" in str(root):
        raise InputError(str(root).replace("\x00", "\\0"), None, "the path contains a NUL byte")
    if not root.exists():
        raise InputError(root, None, "suite folder does not exist")
    if not root.is_dir():
        raise InputError(root, None, "suite must be a folder (pass --suite DIR)")
    candidate = root / CONFIG_NAME
    if candidate.exists() or candidate.is_symlink():
        return candidate, read_toml(candidate)
    pyproject = root / "pyproject.toml"
    if pyproject.exists():
        data = read_toml(pyproject)
        tool = data.get("tool", {})
        if isinstance(tool, dict) and "earnest" in tool:
            if not isinstance(tool["earnest"], dict):
                raise InputError(pyproject, "tool.earnest", "must be a table")
            return pyproject, tool["earnest"]
    raise InputError(
        root,
        None,
        f"no {CONFIG_NAME} and no [tool.earnest] in pyproject.toml (run `earnest init DIR`)",
    )


def _str_list(value: Any, file: Path, place: str) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise InputError(file, place, "must be a string or a list of strings")


def _path_text(value: str, file: Path, place: str) -> str:
    if "\x00" in value:
        raise InputError(file, place, "contains a NUL byte (not a usable path)")
    return value


def _globs(value: Any, file: Path, place: str) -> tuple[str, ...]:
    """Glob patterns relative to the suite folder: non-empty, no NUL byte, not absolute."""
    patterns = _str_list(value, file, place)
    for i, pattern in enumerate(patterns):
        where = f"{place}[{i}]" if isinstance(value, list) else place
        _path_text(pattern, file, where)
        if not pattern.strip():
            raise InputError(file, where, "is an empty glob pattern")
        if PurePosixPath(pattern).is_absolute() or PureWindowsPath(pattern).is_absolute():
            raise InputError(
                file, where, f"{pattern!r} is absolute; patterns are relative to the suite folder"
            )
    return patterns


def _whole(value: Any, file: Path, place: str) -> int:
    # bool is an int in Python: check it first so `min_fixtures = true` is refused.
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InputError(file, place, "must be a whole number >= 0")
    return value


def _floors(value: Any, file: Path, place: str) -> Floors:
    if not isinstance(value, dict):
        raise InputError(file, place, "must be a table of floor = whole number of words")
    check_keys(value, FLOOR_KEYS, file, place)
    base = Floors()
    return Floors(
        **{
            key: _whole(value.get(key, getattr(base, key)), file, f"{place}.{key}")
            for key in FLOOR_KEYS
        }
    )


def load_config(root: Path) -> SuiteConfig:
    """Load and check the ``[suite]`` table of the suite at ``root``."""
    path, table = find_config(root)
    kind = not_regular(path)
    if kind is not None:  # a symlink to a FIFO passes exists(); read_toml refused it unread
        raise InputError(path, None, f"config file is {kind}, not a regular file")
    prefix = "tool.earnest." if path.name == "pyproject.toml" else ""
    check_keys(table, TABLES, path, prefix.rstrip("."), what="table")
    suite = table.get("suite")
    if suite is None:
        raise InputError(path, f"{prefix}suite", "missing [suite] table")
    if not isinstance(suite, dict):
        raise InputError(path, f"{prefix}suite", "must be a table")
    check_keys(suite, SUITE_KEYS, path, f"{prefix}suite")

    def get_str(key: str, default: str | None) -> str:
        value = suite.get(key, default)
        if not isinstance(value, str) or not value.strip():
            raise InputError(path, f"{prefix}suite.{key}", "must be a non-empty string")
        return value

    if "doctrine" not in suite:
        raise InputError(
            path, f"{prefix}suite.doctrine", "missing (the rules file, e.g. doctrine.md)"
        )
    doctrine = _path_text(get_str("doctrine", None), path, f"{prefix}suite.doctrine")
    agents = _globs(suite.get("agents", ["agents/*.md"]), path, f"{prefix}suite.agents")
    claims_heading = get_str("claims_heading", "Working Rules")
    fixtures = _path_text(get_str("fixtures", "pressure"), path, f"{prefix}suite.fixtures")
    min_fixtures = _whole(suite.get("min_fixtures", 0), path, f"{prefix}suite.min_fixtures")
    replies = _globs(suite.get("replies", []), path, f"{prefix}suite.replies")
    floors = _floors(suite.get("floors", {}), path, f"{prefix}suite.floors")

    citation = suite.get("citation", "required")
    if citation not in ("required", "optional"):
        raise InputError(path, f"{prefix}suite.citation", 'must be "required" or "optional"')
    if not isinstance(suite.get("citations_from_reasoning", False), bool):
        raise InputError(path, f"{prefix}suite.citations_from_reasoning", "must be true or false")

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

    if "live" in table:
        # Checked here too, not only by `earnest live`: a typo in [live] is a defect of the
        # suite that lint and check must report, not one found the day a live run starts.
        from earnest.live.config import live_config_from_table

        live_config_from_table(table["live"], file=path, prefix=prefix)
    if "otel" in table:
        # [otel] too: a typo there must not silently keep the export off.
        from earnest.otel.config import otel_config_from_table

        otel_config_from_table(table["otel"], file=path, prefix=prefix)

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
        floors=floors,
    )


__all__ = ["CONFIG_NAME", "FLOOR_KEYS", "SUITE_KEYS", "TABLES", "find_config", "load_config"]

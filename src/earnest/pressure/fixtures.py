"""Read fixture files leniently: keep the raw JSON, build a :class:`Fixture` when the shape allows.

Reading never stops at the first defect: structural problems become diagnostics
(``invalid-json``, ``missing-field``, ``invalid-type``) and the semantic checks live in
:mod:`earnest.pressure.lint`.

Example:
    >>> ff = parse_fixture_text('{"id": "X"}', Path("x.json"))
    >>> ff.fixture is None, sorted({d.code for d in ff.diagnostics})
    (True, ['missing-field'])
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from earnest.errors import InputError
from earnest.nesting import deepest, long_integer
from earnest.pressure.citations import normalize_rule_id
from earnest.pressure.evidence import Evidence, parse_evidence
from earnest.pressure.models import Choice, Diagnostic, Fixture, FixtureFile, Rationalization
from earnest.safejson import loads as safe_loads
from earnest.textfile import BOM, not_regular, read_text

REQUIRED_FIELDS: tuple[str, ...] = (
    "schema_version",
    "id",
    "agent",
    "rule",
    "title",
    "scenario",
    "pressures",
    "choices",
    "correct_choice",
    "rationalizations",
)
OPTIONAL_FIELDS: tuple[str, ...] = ("must_cite", "workspace", "mode")
CHOICE_FIELDS: tuple[str, ...] = ("id", "text", "compliant", "evidence")
MODES: tuple[str, ...] = ("say", "act")


def parse_fixture_text(text: str, path: Path) -> FixtureFile:
    name = str(path)

    def invalid(place: str, message: str) -> FixtureFile:
        return FixtureFile(
            path, None, None, (Diagnostic(name, place, f"invalid JSON: {message}", "invalid-json"),)
        )

    if text.startswith(BOM):  # an editor's byte-order mark is not part of the JSON
        text = text[1:]
    try:
        raw = safe_loads(text)
    except json.JSONDecodeError as exc:
        return invalid(f"line {exc.lineno} column {exc.colno}", exc.msg)
    except ValueError as exc:  # earnest.safejson: nested too deeply, or a 4,300-digit integer
        if "nested" in str(exc):
            depth, line, column = deepest(text)
            return invalid(f"line {line} column {column}", f"nested too deeply ({depth} levels)")
        where = long_integer(text)
        place = f"line {where[0]} column {where[1]}" if where else ""
        return invalid(place, "an integer of more than 4,300 digits")
    return build_fixture(raw, path)


def load_fixture_file(path: Path) -> FixtureFile:
    try:
        text = read_text(path, "fixture file")
    except InputError as exc:
        code = "not-a-regular-file" if "not a regular file" in exc.message else "unreadable"
        return FixtureFile(
            path, None, None, (Diagnostic(str(path), exc.place or "", exc.message, code),)
        )
    return parse_fixture_text(text, path)


def build_fixture(raw: Any, path: Path) -> FixtureFile:
    """Build a fixture from parsed JSON; every structural defect becomes a diagnostic."""
    name = str(path)
    diags: list[Diagnostic] = []

    def bad(field: str, message: str, code: str = "invalid-type") -> None:
        diags.append(Diagnostic(name, field, message, code))

    if not isinstance(raw, dict):
        bad("", "a fixture must be a JSON object")
        return FixtureFile(path, raw, None, tuple(diags))

    for key in REQUIRED_FIELDS:
        if key not in raw:
            bad(key, "required field is missing", "missing-field")
    # An unknown key is usually a typo ("must_cites") that would silently drop a requirement;
    # it is reported but does not stop the fixture from loading.
    extra = [
        Diagnostic(name, str(key), "unknown field (not in the fixture schema)", "unknown-field")
        for key in raw
        if key not in REQUIRED_FIELDS and key not in OPTIONAL_FIELDS
    ]

    def text_field(key: str) -> str:
        value = raw.get(key)
        if key in raw and (not isinstance(value, str) or not value.strip()):
            bad(key, "must be a non-empty string")
        return value if isinstance(value, str) else ""

    fid = text_field("id")
    agent = text_field("agent")
    title = text_field("title")
    scenario = text_field("scenario")
    correct = text_field("correct_choice")

    version = raw.get("schema_version")
    # `true == 1` and `1.0 == 1` in Python: only the JSON integer 1 is version 1.
    if "schema_version" in raw and (type(version) is not int or version != 1):
        bad(
            "schema_version",
            f"unsupported schema version {version!r} (expected 1)",
            "unsupported-schema-version",
        )

    rule_raw = raw.get("rule")
    rule = ""
    if "rule" in raw:
        if (
            isinstance(rule_raw, bool)
            or not isinstance(rule_raw, int | str)
            or str(rule_raw).strip() == ""
        ):
            bad("rule", "must be a rule id (integer or string)")
        else:
            rule = normalize_rule_id(rule_raw)

    pressures: list[str] = []
    if "pressures" in raw:
        p = raw["pressures"]
        if not isinstance(p, list) or not all(isinstance(x, str) for x in p):
            bad("pressures", "must be a list of strings")
        else:
            pressures = p

    choices: list[Choice] = []
    if "choices" in raw:
        c = raw["choices"]
        if not isinstance(c, list) or not c:
            bad("choices", "must be a non-empty list of {id, text, compliant}")
        else:
            for i, item in enumerate(c):
                where = f"choices[{i}]"
                if not isinstance(item, dict):
                    bad(where, "must be an object {id, text, compliant}")
                    continue
                extra.extend(
                    Diagnostic(
                        name,
                        f"{where}.{key}",
                        "unknown field (a choice is {id, text, compliant, evidence?})",
                        "unknown-field",
                    )
                    for key in item
                    if key not in CHOICE_FIELDS
                )
                evidence: Evidence | None = None
                if "evidence" in item:
                    evidence, problems = parse_evidence(item["evidence"])
                    for sub, message in problems:
                        field = f"{where}.evidence" + (f".{sub}" if sub else "")
                        code = "unknown-field" if message.startswith("unknown") else "invalid-type"
                        diags.append(Diagnostic(name, field, message, code))
                ok = True
                for key, typ, desc in (
                    ("id", str, "a string"),
                    ("text", str, "a string"),
                    ("compliant", bool, "true or false"),
                ):
                    if key not in item:
                        bad(f"{where}.{key}", "required field is missing", "missing-field")
                        ok = False
                    elif not isinstance(item[key], typ):
                        bad(f"{where}.{key}", f"must be {desc}")
                        ok = False
                if ok:
                    choices.append(
                        Choice(
                            id=item["id"],
                            text=item["text"],
                            compliant=item["compliant"],
                            evidence=evidence,
                        )
                    )

    rats: list[Rationalization] = []
    if "rationalizations" in raw:
        r = raw["rationalizations"]
        if not isinstance(r, list):
            bad("rationalizations", "must be a list of {excuse, counter}")
        else:
            for i, item in enumerate(r):
                where = f"rationalizations[{i}]"
                if not isinstance(item, dict):
                    bad(where, "must be an object {excuse, counter}")
                    continue
                extra.extend(
                    Diagnostic(
                        name,
                        f"{where}.{key}",
                        "unknown field (a rationalization is {excuse, counter})",
                        "unknown-field",
                    )
                    for key in item
                    if key not in ("excuse", "counter")
                )
                excuse, counter = item.get("excuse"), item.get("counter")
                if not isinstance(excuse, str):
                    bad(
                        f"{where}.excuse",
                        "required string is missing" if excuse is None else "must be a string",
                        "missing-field" if excuse is None else "invalid-type",
                    )
                    continue
                if counter is not None and not isinstance(counter, str):
                    bad(f"{where}.counter", "must be a string")
                    continue
                rats.append(Rationalization(excuse=excuse, counter=counter or ""))

    must_cite: list[str] = []
    if "must_cite" in raw:
        m = raw["must_cite"]
        if not isinstance(m, list) or not all(isinstance(x, str) for x in m):
            bad("must_cite", "must be a list of strings")
        else:
            must_cite = m

    workspace: str | None = None
    if "workspace" in raw:
        w = raw["workspace"]
        if not isinstance(w, str) or not w.strip():
            bad("workspace", "must be a folder of the suite (a relative path)")
        else:
            workspace = w.strip()
    mode = raw.get("mode", "say")
    if mode not in MODES:
        bad("mode", f"must be one of {', '.join(MODES)}, not {mode!r}")
        mode = "say"

    if diags:
        return FixtureFile(path, raw, None, tuple(diags + extra))
    fixture = Fixture(
        id=fid,
        agent=agent,
        rule=rule,
        title=title,
        scenario=scenario,
        pressures=tuple(pressures),
        choices=tuple(choices),
        correct_choice=correct,
        rationalizations=tuple(rats),
        must_cite=tuple(must_cite),
        schema_version=1,
        path=path,
        workspace=workspace,
        mode="act" if mode == "act" else "say",
    )
    return FixtureFile(path, raw, fixture, tuple(extra))


def fixture_paths(folder: Path) -> list[Path]:
    """The suite's fixture files (``*.json``), sorted for a stable order."""
    return scan_fixture_folder(folder)[0]


def scan_fixture_folder(folder: Path) -> tuple[list[Path], list[Diagnostic]]:
    """The ``*.json`` entries under ``folder`` and the defects of the walk itself.

    A folder that cannot be listed is an ``unreadable-fixtures-folder`` error, not an empty
    suite; a ``*.json`` that is a FIFO, device, socket or broken link is a
    ``not-a-regular-file`` error, and is never opened. Links to folders are followed once.
    """
    if not folder.is_dir():
        return [], []
    found: list[Path] = []
    diags: list[Diagnostic] = []
    seen: set[tuple[int, int]] = set()

    def walk_error(exc: OSError) -> None:
        where = exc.filename if exc.filename is not None else folder
        diags.append(
            Diagnostic(
                str(where),
                "",
                f"cannot list the fixtures folder: {exc.strerror or exc}; its fixtures are not "
                "read",
                "unreadable-fixtures-folder",
            )
        )

    for dirpath, dirnames, filenames in os.walk(folder, onerror=walk_error, followlinks=True):
        try:
            st = os.stat(dirpath)
        except OSError:
            continue
        if (st.st_dev, st.st_ino) in seen:  # a link back up the tree: walked already
            dirnames[:] = []
            continue
        seen.add((st.st_dev, st.st_ino))
        dirnames.sort()
        for name in filenames:
            if not name.endswith(".json"):
                continue
            path = Path(dirpath) / name
            kind = not_regular(path)
            if kind is None and not path.exists():
                kind = "a link to nothing"
            if kind is None:
                found.append(path)
            else:
                diags.append(
                    Diagnostic(
                        str(path),
                        "",
                        f"fixture file is {kind}, not a regular file: not read",
                        "not-a-regular-file",
                    )
                )
    return sorted(found), diags


__all__ = [
    "CHOICE_FIELDS",
    "MODES",
    "OPTIONAL_FIELDS",
    "REQUIRED_FIELDS",
    "build_fixture",
    "fixture_paths",
    "load_fixture_file",
    "parse_fixture_text",
    "scan_fixture_folder",
]

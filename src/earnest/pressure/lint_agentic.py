"""Lint for agentic fixtures: the ``workspace``, ``mode`` and per-choice ``evidence`` fields.

- ``missing-workspace``: the workspace is not a folder of the suite (or leaves it);
- ``evidence-without-workspace`` / ``act-without-workspace``: evidence or ``mode = "act"``
  on a fixture with no workspace to act in;
- ``compliant-without-evidence``: the compliant option says nothing that taking it leaves,
  so a compliant statement could never be checked;
- ``evidence-glob-mismatch``: a ``changed`` / ``deleted`` / ``unchanged`` glob matches no
  file of the workspace, a ``created`` glob matches one that already exists, or a glob that
  matches everything (``*``);
- ``coinciding-evidence``: two options leave the same evidence, so doing one is doing both;
- ``evidence-content-in-template``: a ``contains`` check whose text the template's file
  already holds (where the check looks), so taking the option could not be seen by it.

The ``all_of`` globs are checked as their field's are, ``order`` steps on ``deleted`` like
``deleted`` globs; a malformed ``order`` / ``contains`` / ``lacks`` / ``all_of`` (or any unknown
field) is the loader's error, with its place (``choices[1].evidence.order[0].then``).

Example:
    >>> sorted(CODES)[:2]
    ['act-without-workspace', 'coinciding-evidence']
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from earnest.pressure.evidence import GIT_FIELDS, Evidence, parse_evidence, path_matches
from earnest.pressure.models import Diagnostic, Severity, Suite
from earnest.pressure.workspaces import read_text_file, resolve_workspace, template_files

CODES: dict[str, tuple[Severity, str]] = {
    "missing-workspace": ("error", "the workspace is not a folder of the suite"),
    "evidence-without-workspace": ("error", "an option has evidence but there is no workspace"),
    "act-without-workspace": ("error", 'mode "act" on a fixture with no workspace'),
    "compliant-without-evidence": ("error", "the compliant option of an agentic fixture has no evidence"),
    "evidence-glob-mismatch": ("error", "an evidence glob matches nothing sensible in the workspace"),
    "coinciding-evidence": ("error", "two options leave the same evidence"),
    "evidence-content-in-template": ("error", "a contains check the template already meets"),
}  # fmt: skip


def _diag(file: str, field: str, message: str, code: str) -> Diagnostic:
    return Diagnostic(file, field, message, code, CODES[code][0])


def lint_agentic(suite: Suite, raw: Mapping[str, Any], file: str) -> Iterator[Diagnostic]:
    """The agentic checks of one fixture's raw JSON (nothing for a non-agentic fixture)."""
    listed = raw.get("choices")
    choices: list[Any] = listed if isinstance(listed, list) else []
    evidence: list[tuple[int, Mapping[str, Any], Evidence]] = []
    for i, item in enumerate(choices):
        if isinstance(item, Mapping) and "evidence" in item:
            ev, _ = parse_evidence(item["evidence"])
            if ev is not None:
                evidence.append((i, item, ev))
    workspace = raw.get("workspace")
    has_evidence = any(isinstance(c, Mapping) and "evidence" in c for c in choices)
    if not isinstance(workspace, str) or not workspace.strip():
        if has_evidence:
            yield _diag(
                file,
                "workspace",
                "options carry evidence but the fixture has no workspace to act in",
                "evidence-without-workspace",
            )
        if raw.get("mode") == "act":
            yield _diag(file, "mode", 'mode "act" needs a workspace', "act-without-workspace")
        return
    folder: Path | None = None
    try:
        folder = resolve_workspace(suite.config.root, workspace.strip())
    except ValueError as exc:
        yield _diag(file, "workspace", str(exc), "missing-workspace")
        files: list[str] | None = None
    else:
        files = template_files(folder)
    for i, item in enumerate(choices):
        if not isinstance(item, Mapping) or item.get("compliant") is not True:
            continue
        ev, _ = parse_evidence(item.get("evidence", {}))
        if ev is None or not ev.positive:
            yield _diag(
                file,
                f"choices[{i}].evidence",
                "the compliant option has no evidence of being taken (ran, ran_ok, created, "
                "changed, deleted, committed, pushed, tagged, all_of, order or contains): a "
                "compliant statement could never be checked",
                "compliant-without-evidence",
            )
    for i, _item, ev in evidence:
        for name, globs in ev.items():
            for k, glob in enumerate(globs):
                where = f"choices[{i}].evidence.{name}[{k}]"
                problem = _glob_problem(name, glob, files)
                if problem:
                    yield _diag(file, where, problem, "evidence-glob-mismatch")
        for name, glob in ev.all_of:
            problem = _glob_problem(name, glob, files)
            if problem:
                where = f"choices[{i}].evidence.all_of.{name} ({glob!r})"
                yield _diag(file, where, problem, "evidence-glob-mismatch")
        for k, check in enumerate(ev.order):
            for key, step in ((check.kind, check.first), ("then", check.then)):
                # A "changed" step may be a file the agent creates: only "deleted" needs one.
                field = step.field if step.field != "changed" else "ran"
                problem = _glob_problem(field, step.glob, files)
                if problem:
                    where = f"choices[{i}].evidence.order[{k}].{key}"
                    yield _diag(file, where, problem, "evidence-glob-mismatch")
        if files is not None and folder is not None:
            yield from _content_in_template(file, i, ev, folder, files)
    seen: dict[str, int] = {}
    for i, _item, ev in evidence:
        key = json.dumps(ev.as_dict(), sort_keys=True)
        if key in seen:
            other = choices[seen[key]]
            yield _diag(
                file,
                f"choices[{i}].evidence",
                f"the same evidence as option {other.get('id')!r}: doing one would be doing both",
                "coinciding-evidence",
            )
        else:
            seen[key] = i


def _content_in_template(
    file: str, i: int, ev: Evidence, folder: Path, files: list[str]
) -> Iterator[Diagnostic]:
    for k, check in enumerate(ev.contains):
        if check.commits:
            continue
        for path in files:
            if not path_matches(path, check.file):
                continue
            text = read_text_file(folder / path)
            window = check.window(text) if text is not None else None
            if window is not None and check.text in window:
                yield _diag(
                    file,
                    f"choices[{i}].evidence.contains[{k}]",
                    f"{path} in the workspace already holds {check.text!r} there: the check "
                    "would hold before the agent did anything",
                    "evidence-content-in-template",
                )
                break


def _glob_problem(name: str, glob: str, files: list[str] | None) -> str | None:
    if name in GIT_FIELDS:
        return None  # "*" is a fair glob here: any commit, any bypass
    if glob.strip("*? ") == "":
        return f"{glob!r} matches everything"
    if name in ("ran", "ran_ok", "not_ran") or files is None:
        return None
    hits = [f for f in files if path_matches(f, glob)]
    if name == "created" and hits:
        return f"{glob!r} already exists in the workspace ({hits[0]}): it cannot be created"
    if name != "created" and not hits:
        return f"{glob!r} matches no file of the workspace"
    return None


__all__ = ["CODES", "lint_agentic"]

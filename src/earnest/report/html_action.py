"""The report's "Said versus did" section: for each acted-out sample, the option the agent
stated beside what it did — the commands its tool calls ran (with their outcome) and the
workspace diff against the template — and the evidence found and missing.

Server-rendered (the page works without its script); every string goes through ``esc``.
Only samples that carry an ``action`` (agentic fixtures acted out) appear; a report with
none has no such section.

Example:
    >>> said_did_section([])
    ''
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from earnest.report.htmlsafe import clip, esc
from earnest.report.model import Sample

_MAX_ITEMS = 30


def _items(values: Any) -> list[str]:
    return [str(v) for v in values] if isinstance(values, list) else []


def _list(items: Sequence[str], cls: str = "") -> str:
    if not items:
        # A block, like the list it stands for: inline it ran into the next heading
        # ("nonenworkspace diffnone").
        return '<div class="note">none</div>'
    shown = "".join(f"<li>{esc(clip(i, 300))}</li>" for i in items[:_MAX_ITEMS])
    more = f"<li>… {len(items) - _MAX_ITEMS} more</li>" if len(items) > _MAX_ITEMS else ""
    return f'<ul class="{cls}">{shown}{more}</ul>'


def _did(did: Mapping[str, Any] | None) -> str:
    if not isinstance(did, Mapping):
        return '<span class="note">not acted out</span>'
    commands = [
        f"{'ok' if c.get('ok') else 'failed'}: $ {c.get('command', '')}"
        for c in did.get("commands", [])
        if isinstance(c, Mapping)
    ]
    diff = (
        [f"+ {p}" for p in _items(did.get("created"))]
        + [f"~ {p}" for p in _items(did.get("changed"))]
        + [f"- {p}" for p in _items(did.get("deleted"))]
    )
    source = str(did.get("source") or "no trajectory read")
    parts = [
        f'<div class="did"><b>commands</b> <span class="note">({esc(source)})</span>'
        f"{_list(commands, 'cmds')}<b>workspace diff</b>{_list(diff, 'diff')}"
    ]
    steps = did.get("steps")
    if isinstance(steps, list) and steps:
        parts.append(f"<b>timeline</b>{_list(_steps(steps), 'steps')}")
    git = did.get("git")
    if isinstance(git, Mapping):
        parts.append(f"<b>git</b>{_list(_git(git), 'git')}")
    outside = [
        f"{'succeeded' if a.get('ok') else 'refused'}: {a.get('op')} {a.get('path')}"
        + (f" ($ {a.get('command')})" if a.get("command") else "")
        for a in did.get("outside", []) if isinstance(a, Mapping)
    ] if isinstance(did.get("outside"), list) else []  # fmt: skip
    if outside:
        parts.append(f"<b>outside the copy</b>{_list(outside, 'outside')}")
    return "".join(parts) + "</div>"


def _steps(steps: list[Any]) -> list[str]:
    out = []
    for n, step in enumerate(steps, start=1):
        if not isinstance(step, Mapping):
            continue
        what = f"$ {step.get('command')}" if step.get("command") else str(step.get("tool", ""))
        wrote = [f"~ {p}" for p in _items(step.get("changed"))] + [
            f"- {p}" for p in _items(step.get("deleted"))
        ]
        ok = "ok" if step.get("ok", True) else "failed"
        out.append(f"{n}. {ok}: {what}" + (f" [{', '.join(wrote)}]" if wrote else ""))
    return out


def _git(git: Mapping[str, Any]) -> list[str]:
    out = []
    for c in git.get("commits", []) if isinstance(git.get("commits"), list) else []:
        if isinstance(c, Mapping):
            first = str(c.get("message", "")).splitlines()[:1]
            out.append(
                f"commit {str(c.get('sha', ''))[:10]} {first[0] if first else ''}: "
                + ", ".join(_items(c.get("files")))
            )
    for key, label in (("branches", "branch"), ("tags", "tag"), ("pushes", "pushed"),
                       ("bypasses", "hook bypass")):  # fmt: skip
        out += [f"{label}: {v}" for v in _items(git.get(key))]
    return out or ["no new commits"]


def said_did_section(samples: Sequence[Sample]) -> str:
    """The section, or ``""`` when no sample was acted out."""
    rows = []
    for s in samples:
        a = s.action
        if not isinstance(a, Mapping) or a.get("did") is None:
            continue
        said = str(a.get("said") or "-")
        text = str(a.get("said_text") or "")
        v = s.verdict or "void"
        evidence = [f"found: {f}" for f in _items(a.get("found"))] + [
            f"missing: {m}" for m in _items(a.get("missing"))
        ]
        for other in a.get("also", []) if isinstance(a.get("also"), list) else []:
            if isinstance(other, Mapping):
                evidence.append(
                    f"also did {other.get('choice')}: " + "; ".join(_items(other.get("found")))
                )
        evidence += [f"outside the copy: {o}" for o in _items(a.get("outside"))]
        evidence += [f"claimed {c}, git shows none" for c in _items(a.get("unbacked"))]
        if s.verdict is None and a.get("reason"):
            evidence.append(str(a.get("reason")))
        rows.append(
            f'<tr class="sditem" data-key="{esc(s.key)}" data-verdict="{esc(v)}" '
            f'data-fixture="{esc(s.fixture_id)}" data-profile="{esc(s.profile)}" '
            f'data-arm="{esc(s.arm)}"><td>{esc(s.fixture_id)}</td><td>{esc(s.profile)}</td>'
            f"<td>{esc(s.arm)}</td><td>{'' if s.epoch is None else s.epoch}</td>"
            f'<td><span class="badge {esc(v)}">{esc(v)}</span></td>'
            f'<td class="said"><b>{esc(said)}</b> {esc(clip(text, 200))}</td>'
            f'<td class="did">{_did(a.get("did"))}</td>'
            f"<td>{_list(evidence, 'evidence')}</td></tr>"
        )
    if not rows:
        return ""
    return (
        '<section id="said-did"><h2>Said versus did</h2>'
        '<p class="help">Samples acted out in a copy of their workspace (<code>earnest run '
        "--act</code>): the option the agent stated, beside the commands its tools ran and the "
        "files it created (+), changed (~) and deleted (-), its timeline, the commits it made and "
        "its attempts outside the copy. <code>fail-action</code>: it said the compliant option "
        "and did otherwise. A void sample (the agent crashed or timed out) shows what it did so "
        "far, unjudged.</p>"
        '<table class="grid" id="said-did-table"><thead><tr><th>fixture</th><th>profile</th>'
        "<th>arm</th><th>epoch</th><th>verdict</th><th>said</th><th>did</th><th>evidence</th>"
        f"</tr></thead><tbody>{''.join(rows)}</tbody></table></section>"
    )


__all__ = ["said_did_section"]

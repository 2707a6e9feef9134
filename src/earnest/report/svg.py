"""Inline SVG charts for the HTML report: no script, no fonts, no network; all text escaped.

- :func:`forest` — one row per estimate: a dot and its interval on a shared axis (pass rates
  with Wilson intervals, ablation deltas around zero, trajectory dimension means);
- :func:`bars` — horizontal bars (coverage by rule, how often each excuse was used);
- :func:`stacked` — one bar split by category (the verdict mix).

Example:
    >>> svg = forest([Row("gpt / rule", 0.5, (0.2, 0.8), "5/10")])
    >>> svg.startswith("<svg") and "5/10" in svg
    True
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from earnest.report.htmlsafe import clip, esc

VERDICT_COLORS: dict[str, str] = {
    "pass": "#1a7f37",
    "fail-choice": "#cf222e",
    "fail-citation": "#bf8700",
    "fail-hybrid": "#8250df",
    "fail-unparseable": "#57606a",
    "fail-action": "#bc4c00",
    "void": "#d0d7de",
}
INK = "#1f2328"
MUTED = "#656d76"
GRID = "#d8dee4"

_W = 760
_LABEL = 250
_RIGHT = 130
_ROW = 26
_FONT = 'font-family="system-ui, sans-serif" font-size="12"'


@dataclass(frozen=True, slots=True)
class Row:
    """One row of a chart. ``value`` ``None`` draws no mark (nothing to estimate)."""

    label: str
    value: float | None
    interval: tuple[float, float] | None = None
    note: str = ""
    color: str = INK
    title: str = ""


def _num(x: float) -> str:
    return f"{x:.1f}"


def _ok(x: float | None) -> bool:
    return x is not None and math.isfinite(x)


def _open(height: int, label: str) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {_W} {height}" '
        f'width="100%" style="max-width:{_W}px" role="img" aria-label="{esc(label)}" {_FONT}>'
    )


def _label(row: Row, y: float) -> str:
    tip = row.title or row.label
    return (
        f'<text x="{_LABEL - 8}" y="{_num(y)}" text-anchor="end" fill="{INK}" '
        f'dominant-baseline="middle"><title>{esc(tip)}</title>{esc(clip(row.label, 32))}</text>'
    )


def _axis(
    x_of: object, domain: tuple[float, float], ticks: Sequence[float], top: int, bottom: int
) -> list[str]:
    assert callable(x_of)
    out = []
    for t in ticks:
        x = x_of(t)
        out.append(
            f'<line x1="{_num(x)}" y1="{top}" x2="{_num(x)}" y2="{bottom}" stroke="{GRID}"/>'
        )
        label = f"{t:+.0%}" if domain[0] < 0 and t != 0 else f"{t:.0%}"
        out.append(
            f'<text x="{_num(x)}" y="{bottom + 14}" text-anchor="middle" fill="{MUTED}">'
            f"{esc(label)}</text>"
        )
    return out


def forest(
    rows: Sequence[Row],
    *,
    domain: tuple[float, float] = (0.0, 1.0),
    ticks: Sequence[float] | None = None,
    zero: float | None = None,
    label: str = "estimates with 95% intervals",
) -> str:
    """Dots with interval whiskers on a shared axis; ``zero`` draws a reference line."""
    lo_d, hi_d = domain
    ticks = ticks if ticks is not None else [lo_d + (hi_d - lo_d) * i / 4 for i in range(5)]
    left, right = _LABEL, _W - _RIGHT
    top = 8
    bottom = top + _ROW * max(1, len(rows))
    height = bottom + 24

    def x_of(v: float) -> float:
        v = min(max(v, lo_d), hi_d)
        return left + (right - left) * (v - lo_d) / (hi_d - lo_d)

    out = [_open(height, label)]
    out.extend(_axis(x_of, domain, ticks, top, bottom))
    if zero is not None:
        z = x_of(zero)
        out.append(
            f'<line x1="{_num(z)}" y1="{top}" x2="{_num(z)}" y2="{bottom}" '
            f'stroke="{INK}" stroke-width="1.5"/>'
        )
    for i, row in enumerate(rows):
        y = top + _ROW * i + _ROW / 2
        out.append(_label(row, y))
        tip = esc(row.title or f"{row.label}: {row.note}")
        out.append(f"<g><title>{tip}</title>")
        if row.interval is not None and _ok(row.interval[0]) and _ok(row.interval[1]):
            a, b = x_of(row.interval[0]), x_of(row.interval[1])
            out.append(
                f'<line x1="{_num(a)}" y1="{_num(y)}" x2="{_num(b)}" y2="{_num(y)}" '
                f'stroke="{row.color}" stroke-width="3" stroke-linecap="round" opacity="0.45"/>'
            )
        if _ok(row.value):
            assert row.value is not None
            out.append(
                f'<circle cx="{_num(x_of(row.value))}" cy="{_num(y)}" r="5.5" fill="{row.color}"/>'
            )
        out.append("</g>")
        out.append(
            f'<text x="{right + 10}" y="{_num(y)}" fill="{MUTED}" dominant-baseline="middle">'
            f"{esc(clip(row.note, 22))}</text>"
        )
    out.append("</svg>")
    return "".join(out)


def bars(rows: Sequence[Row], *, maximum: float | None = None, label: str = "bar chart") -> str:
    """Horizontal bars from zero; ``value`` ``None`` or 0 leaves the bar empty."""
    values = [r.value for r in rows if _ok(r.value)]
    top_value = maximum if maximum is not None else max([1.0, *[v for v in values if v]])
    left, right = _LABEL, _W - _RIGHT
    top = 6
    height = top + _ROW * max(1, len(rows)) + 6
    out = [_open(height, label)]
    for i, row in enumerate(rows):
        y = top + _ROW * i
        mid = y + _ROW / 2
        out.append(_label(row, mid))
        width = 0.0
        if _ok(row.value) and row.value:
            width = (right - left) * min(row.value, top_value) / top_value
        out.append(
            f'<rect x="{left}" y="{_num(y + 5)}" width="{_num(max(width, 2.0))}" '
            f'height="{_ROW - 10}" rx="3" fill="{row.color}">'
            f"<title>{esc(row.title or row.label + ': ' + row.note)}</title></rect>"
        )
        out.append(
            f'<text x="{_num(left + max(width, 2.0) + 6)}" y="{_num(mid)}" fill="{MUTED}" '
            f'dominant-baseline="middle">{esc(clip(row.note, 60))}</text>'
        )
    out.append("</svg>")
    return "".join(out)


def stacked(parts: Sequence[tuple[str, int, str]], *, label: str = "verdict mix") -> str:
    """One bar split into ``(name, count, color)`` parts, with a legend under it."""
    total = sum(n for _, n, _ in parts)
    out = [_open(56, label)]
    x = 0.0
    for name, n, color in parts:
        if not n:
            continue
        w = _W * n / total
        out.append(
            f'<rect x="{_num(x)}" y="0" width="{_num(w)}" height="22" fill="{color}">'
            f"<title>{esc(f'{name}: {n} of {total}')}</title></rect>"
        )
        x += w
    if not total:
        out.append(f'<rect x="0" y="0" width="{_W}" height="22" fill="{GRID}"/>')
    lx = 0
    for name, n, color in parts:
        text = f"{name} {n}"
        out.append(f'<rect x="{lx}" y="34" width="12" height="12" rx="2" fill="{color}"/>')
        out.append(f'<text x="{lx + 16}" y="44" fill="{INK}">{esc(text)}</text>')
        lx += 24 + 7 * len(text)
    out.append("</svg>")
    return "".join(out)


__all__ = ["GRID", "INK", "MUTED", "VERDICT_COLORS", "Row", "bars", "forest", "stacked"]

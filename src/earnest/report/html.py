"""The HTML report: one self-contained file (inline CSS, script and SVG; no network, no fonts).

Layout: a header, a sticky filter bar (verdict, fixture, profile, arm), the at-a-glance tiles,
then one section per part of the :class:`~earnest.report.model.Report` that is present, and a
viewer that opens any reply or trajectory with the prompt it answered.

Untrusted text (replies, transcripts, file names, fixture text) reaches the page in two ways
only: escaped into the markup by :func:`~earnest.report.htmlsafe.esc`, or inside the JSON data
element written by :func:`~earnest.report.htmlsafe.script_json`, which the script reads with
``JSON.parse`` and puts on the page with ``textContent``. A Content-Security-Policy allows no
network at all and only the report's own script (by its hash), so even markup that slipped
through could not run.

Example:
    >>> page = render_html(Report(title="<empty>"))
    >>> page.startswith("<!DOCTYPE html>") and "&lt;empty&gt;" in page
    True
"""

from __future__ import annotations

import base64
import hashlib
from functools import cache
from importlib import resources
from typing import Any

from earnest.report.html_compare import compare_tiles, comparison_section
from earnest.report.html_pressure import pressure_sections, pressure_tiles
from earnest.report.html_suite import suite_sections, suite_tiles
from earnest.report.html_trajectory import trajectory_section, trajectory_tiles
from earnest.report.htmlsafe import esc, script_json
from earnest.report.model import Report


@cache
def asset(name: str) -> str:
    """A file from ``earnest/report/assets`` (package data)."""
    return (resources.files("earnest.report") / "assets" / name).read_text(encoding="utf-8")


def _csp(script: str) -> str:
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    return (
        "default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
        f"script-src 'sha256-{digest}'; base-uri 'none'; form-action 'none'"
    )


def page_data(report: Report) -> dict[str, Any]:
    """What the page's script reads: samples and trajectories by key, prompts, fixtures."""
    data: dict[str, Any] = {
        "samples": {},
        "trajectories": {},
        "prompts": {k: p.to_json() for k, p in report.prompts.items()},
        "fixtures": {},
    }
    p = report.pressure
    if p is not None:
        data["samples"] = {s.key: {"kind": "sample", **s.to_json()} for s in p.samples}
        data["fixtures"] = {f.id: f.to_json() for f in p.fixtures}
    if report.trajectories is not None:
        data["trajectories"] = {
            t.key: {"kind": "trajectory", **t.to_json()} for t in report.trajectories.trajectories
        }
    if report.comparison is not None:
        for s in report.comparison.baseline_samples:
            data["samples"][s.key] = {"kind": "sample", "side": "baseline", **s.to_json()}
    return data


def _header(report: Report) -> str:
    toc = [("glance", "At a glance")]
    if report.comparison is not None:
        toc.append(("comparison", "Compared with the baseline"))
    if report.pressure is not None:
        toc += [
            ("matrix", "Verdict matrix"),
            ("rates", "Pass rates"),
            ("ablation", "Ablation"),
            ("rationalizations", "Rationalizations"),
            ("replies", "Replies"),
        ]
    # In the order a reader needs: the summary, then what failed (replies, agent runs), then
    # the suite's own detail (coverage, lint).
    if report.trajectories is not None:
        toc.append(("trajectories", "Trajectories"))
    if report.suite is not None:
        toc += [
            ("coverage", "Coverage"),
            ("coverage-agents", "By agent"),
            ("pressures", "Pressures"),
            ("lint", "Lint"),
        ]
    meta = []
    if report.sources:
        meta.append("from " + ", ".join(f"<code>{esc(s)}</code>" for s in report.sources))
    if report.generated_at:
        meta.append(f"generated {esc(report.generated_at)}")
    if report.version:
        meta.append(f"earnest {esc(report.version)}")
    links = "".join(f'<a href="#{k}">{esc(v)}</a>' for k, v in toc)
    return (
        '<header class="top">'
        f"<h1>{esc(report.title)}</h1>"
        f'<div class="meta">{" · ".join(meta)}</div>'
        f'<nav class="toc">{links}</nav>'
        "</header>"
    )


def _filters(report: Report) -> str:
    p = report.pressure
    if p is None or not p.samples:
        return ""
    verdicts = [("", "all"), ("any-failure", "any failure")]
    present = {s.verdict or "void" for s in p.samples}
    verdicts += [(v, v) for v in (*p.counts, "void") if v in present]
    fixtures = list(dict.fromkeys(s.fixture_id for s in p.samples))
    profiles = list(dict.fromkeys(s.profile for s in p.samples))
    arms = list(dict.fromkeys(s.arm for s in p.samples))

    def select(key: str, label: str, options: list[tuple[str, str]]) -> str:
        opts = "".join(f'<option value="{esc(v)}">{esc(t)}</option>' for v, t in options)
        return (
            f'<label for="filter-{key}">{esc(label)}</label>'
            f'<select id="filter-{key}" data-filter="{key}">{opts}</select>'
        )

    def plain(values: list[str]) -> list[tuple[str, str]]:
        return [("", "all"), *((v, v) for v in values)]

    return (
        '<div class="filters" role="search">'
        + select("verdict", "verdict", verdicts)
        + select("fixture", "fixture", plain(fixtures))
        + select("profile", "profile", plain(profiles))
        + select("arm", "arm", plain(arms))
        + '<button type="button" data-act="reset">reset</button>'
        + '<span class="count" id="filter-count"></span>'
        + "</div>"
    )


def render_html(report: Report) -> str:
    """The whole report as one HTML document."""
    script = asset("report.js")
    tiles = (
        compare_tiles(report.comparison)
        + suite_tiles(report.suite)
        + pressure_tiles(report.pressure)
        + trajectory_tiles(report.trajectories)
    )
    body = [
        _header(report),
        _filters(report),
        "<main>",
        '<section id="glance"><h2>At a glance</h2>',
        f'<div class="tiles">{"".join(tiles)}</div>'
        if tiles
        else '<p class="empty-state">Nothing to report.</p>',
        "</section>",
    ]
    if report.comparison is not None:
        body.append(comparison_section(report.comparison))
    if report.pressure is not None:
        body.append(pressure_sections(report.pressure, report.suite))
    if report.trajectories is not None:
        body.append(trajectory_section(report.trajectories))
    if report.suite is not None:
        body.append(suite_sections(report.suite))
    body.append("</main>")
    body.append(
        '<dialog id="viewer" aria-label="reply viewer"><div class="vhead"></div>'
        '<div class="vbody"></div></dialog>'
    )
    body.append(
        "<footer>Made by earnest"
        + (f" {esc(report.version)}" if report.version else "")
        + ". One self-contained file: it loads nothing from the network. Replies and "
        "transcripts are model output and are shown as text, never run.</footer>"
    )
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<meta http-equiv="Content-Security-Policy" content="{_csp(script)}">'
        '<meta name="referrer" content="no-referrer">'
        f"<title>{esc(report.title)}</title>"
        f"<style>{asset('report.css')}</style></head>\n<body>"
        + "\n".join(body)
        + f'\n<script type="application/json" id="earnest-data">{script_json(page_data(report))}</script>'
        + f"\n<script>{script}</script>\n</body></html>\n"
    )


__all__ = ["asset", "page_data", "render_html"]

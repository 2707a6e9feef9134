"""Escaping for the HTML report: model output and transcripts are untrusted.

Every piece of text that reaches the page goes through :func:`esc` (element text and
attribute values alike); data for the page's script goes through :func:`script_json`, whose
output is safe inside ``<script type="application/json">``: ``<``, ``>`` and ``&`` are written
as ``\\u003c``-style escapes, so ``</script>`` or ``<!--`` in a reply cannot end the element,
and everything outside ASCII (U+2028, U+2029, lone surrogates) is escaped as well.

Example:
    >>> esc('<script>alert("x")</script>')
    '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;'
    >>> script_json({"reply": "</script><!--"})
    '{"reply":"\\\\u003c/script\\\\u003e\\\\u003c!--"}'
"""

from __future__ import annotations

import html
import json
import math
from typing import Any

from earnest.report.junit import clean


def esc(value: object) -> str:
    """``value`` as text safe in element content and in double- or single-quoted attributes.

    Characters HTML cannot carry (C0 controls other than tab and newlines, lone surrogates)
    are shown as visible ``\\x1b``-style escapes rather than dropped.
    """
    return html.escape(clean(str(value)), quote=True)


def script_json(data: Any) -> str:
    """JSON for a ``<script type="application/json">`` element (never executed, never breaks out)."""
    text = json.dumps(finite(data), ensure_ascii=True, separators=(",", ":"), allow_nan=False)
    # These three occur only inside JSON strings, where \\u escapes mean the same characters.
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def finite(data: Any) -> Any:
    """``data`` with NaN and infinities as ``None``: JSON has no spelling for them."""
    if isinstance(data, float):
        return data if math.isfinite(data) else None
    if isinstance(data, dict):
        return {k: finite(v) for k, v in data.items()}
    if isinstance(data, list | tuple):
        return [finite(v) for v in data]
    return data


def clip(text: str, limit: int) -> str:
    """``text`` on one line, cut to ``limit`` characters with an ellipsis."""
    one = " ".join(text.split())
    return one if len(one) <= limit else one[: max(0, limit - 1)].rstrip() + "…"


__all__ = ["clip", "esc", "finite", "script_json"]

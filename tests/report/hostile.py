"""A small suite whose recorded replies are hostile: markup, script, ``</script>``, U+2028,
a lone surrogate, control characters, and an agent-CLI envelope carrying markup."""

from __future__ import annotations

import json
from pathlib import Path

from suitekit import fixture_data, write_replies, write_suite

EVIL_MODEL = 'evil</script><script>window.__pwned="model"</script>'
EVIL_REPLY = (
    "<script>window.__pwned='reply'</script>\n"
    "<img src=x onerror=\"window.__pwned='img'\">\n"
    "</script><!-- \u2028 \u2029 & &amp; \x00\x1b end\n"
    "CHOICE: A"
)
ENVELOPED_TEXT = "<b>bold</b> per Rule 8 <iframe src=https://example.com></iframe>\nCHOICE: C"

CONFIG = (
    '[suite]\ndoctrine = "doctrine.md"\nagents = ["agents/*.md"]\n'
    'claims_heading = "Working Rules"\nfixtures = "pressure"\nmin_fixtures = 1\n'
    'replies = ["recorded/*.jsonl"]\n'
)


def hostile_suite(root: Path) -> Path:
    """Write the suite under ``root``; its replies are in ``recorded/replies.jsonl``."""
    write_suite(root, [fixture_data()], config=CONFIG)
    (root / "recorded").mkdir()
    envelope = json.dumps(
        {"type": "result", "subtype": "success", "is_error": False, "result": ENVELOPED_TEXT}
    )
    write_replies(
        root / "recorded" / "replies.jsonl",
        [
            {"fixture_id": "FX-R08-RETRY", "model": EVIL_MODEL, "response": EVIL_REPLY},
            {"fixture_id": "FX-R08-RETRY", "model": "good", "response": "Rule 8 holds.\nCHOICE: C"},
            {"fixture_id": "FX-R08-RETRY", "model": "good", "epoch": 1, "response": envelope},
            # a lone surrogate, written as the JSON escape it arrives as
            '{"fixture_id": "FX-R08-RETRY", "model": "good", "epoch": 2, '
            '"response": "broken \\ud800 text </script>\\nCHOICE: B"}',
        ],
    )
    return root

"""Judge one recorded reply under its suite's settings: ``judge_record``.

The one call every scoring path makes (:mod:`earnest.pressure.score` in process and the
``--jobs`` workers of :mod:`earnest.pressure.parallel` alike); its own module below both, so
neither imports the other.

Example::

    judgement = judge_record(suite, fixture, record)  # a ReplyRecord from read_replies
    judgement.verdict  # 'pass', 'fail-choice', ...
"""

from __future__ import annotations

from earnest.pressure.models import Fixture, Suite
from earnest.pressure.replies import ReplyRecord
from earnest.pressure.verdict import Judgement, judge
from earnest.pressure.workspaces import template_texts


def judge_record(suite: Suite, fixture: Fixture, record: ReplyRecord) -> Judgement:
    """Judge one recorded reply under the suite's citation settings (``citation``,
    ``citations_from_reasoning``), with what an acted-out sample did: the one call every
    scoring path makes (in process and in ``--jobs`` workers alike)."""
    return judge(
        fixture,
        suite.rules,
        record.response,
        record.order,
        citation=suite.config.citation,
        citations_from_reasoning=suite.config.citations_from_reasoning,
        did=record.did,
        template=template_texts(suite, fixture) if record.did is not None else None,
    )


__all__ = ["judge_record"]

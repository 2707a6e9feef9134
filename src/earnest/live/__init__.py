"""Live runs: send fixtures to real models and agent CLIs, judge, store, report, compare.

Providers (one module each under ``earnest.live.providers``) answer one call; the runner takes
the matrix of fixtures × profiles × arms × epochs concurrently into a resumable SQLite store;
the summary reports pass rates with intervals and ablation deltas; ``compare`` gates a run
against a baseline. Verdicts come from ``earnest.pressure.verdict`` — never a copy.

Example:
    >>> from earnest.live import parse_spec
    >>> parse_spec("local", "openai:llama3.1:8b").model
    'llama3.1:8b'
"""

from earnest.live.compare import Comparison, Side, baseline_document, compare
from earnest.live.config import LiveConfig, live_config_from_table
from earnest.live.cost import Price, estimate_tokens, price_for
from earnest.live.profiles import Profile, parse_spec
from earnest.live.providers import (
    Provider,
    ProviderError,
    ProviderReply,
    ProviderUnavailable,
    make_provider,
)
from earnest.live.retry import RetryPolicy, call_with_retries
from earnest.live.store import DEFAULT_STORE, RunInfo, RunStore, SampleRecord
from earnest.live.summary import RunSummary, summarize

__all__ = [
    "DEFAULT_STORE",
    "Comparison",
    "LiveConfig",
    "Price",
    "Profile",
    "Provider",
    "ProviderError",
    "ProviderReply",
    "ProviderUnavailable",
    "RetryPolicy",
    "RunInfo",
    "RunStore",
    "RunSummary",
    "SampleRecord",
    "Side",
    "baseline_document",
    "call_with_retries",
    "compare",
    "estimate_tokens",
    "live_config_from_table",
    "make_provider",
    "parse_spec",
    "price_for",
    "summarize",
]

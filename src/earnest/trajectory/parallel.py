"""Score trajectory files in batches, in this process or in ``--jobs N`` worker processes.

``earnest trajectory score`` runs every file through :func:`score_files`: files are grouped
into batches (consecutive files, about :data:`BATCH_BYTES` each), each batch is read and
scored by :func:`score_batch` — the readers, :func:`~earnest.trajectory.battery.score_trajectory`
and the battery tally, nothing re-implemented — and the batches come back in input order
(:func:`earnest.parallel.ordered_map`). A batch carries its output text already rendered,
its :class:`~earnest.trajectory.battery.BatteryTally` and its
:class:`~earnest.trajectory.report.ReadReport`; the caller writes the text as it arrives and
merges the counts (exact integers), so ``--jobs N`` gives byte-identical output to
``--jobs 1`` and memory holds counts, not results. Only the table and JUnit renderings,
which list every trajectory, keep the results.

Example:
    >>> config = ScoreConfig(("default",), 2, None, "jsonl")
    >>> batches = list(score_files([], config, jobs=1))
    >>> batches
    []
"""

from __future__ import annotations

import contextlib
import functools
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from earnest.effects.config import ToolDeclarations
from earnest.effects.registry import ToolRegistry
from earnest.parallel import ordered_map
from earnest.trajectory.battery import BatteryTally, TrajectoryResult, score_trajectory
from earnest.trajectory.readers import read_trajectories
from earnest.trajectory.report import ReadReport
from earnest.trajectory.scorers import DimensionScorer, scorers_for

BATCH_BYTES = 2 * 1024 * 1024
"""A batch closes once its files reach this size (or :data:`BATCH_FILES` files)."""
BATCH_FILES = 16


_NO_DECLARATIONS = ToolDeclarations()


@dataclass(frozen=True, slots=True)
class ScoreConfig:
    """What every worker needs: dimension names, gate budget, input format, output shape.

    ``output`` is ``jsonl`` (one compact line per trajectory), ``json`` (each trajectory as
    the indented element of ``score --format json``'s array) or anything else (keep the
    :class:`TrajectoryResult` objects for a table or JUnit).
    """

    dimensions: tuple[str, ...]
    max_downgrades: int
    input_format: str | None
    output: str
    strict_claims: bool = True
    """Check the final message's claims (:mod:`earnest.trajectory.said_did`)."""
    tools: ToolDeclarations = _NO_DECLARATIONS
    """The user's own tools (``[effects.tools]``, ``--tool``) over the built-in names."""


@dataclass
class BatchScore:
    """One batch scored: rendered text per trajectory, the tally, the reading report."""

    texts: list[str] = field(default_factory=list)
    results: list[TrajectoryResult] = field(default_factory=list)
    tally: BatteryTally = field(default_factory=BatteryTally)
    report: ReadReport = field(default_factory=ReadReport)


_config: ScoreConfig | None = None
_scorers: Sequence[DimensionScorer] = ()


def _setup(config: ScoreConfig) -> None:
    """Per process: keep the config and build the scorers once."""
    global _config, _scorers
    _config = config
    _scorers = scorers_for(list(config.dimensions), config.tools.registry())


def score_batch(files: Sequence[Path]) -> BatchScore:
    """Read and score ``files`` (after :func:`_setup`), in order."""
    config = _config
    assert config is not None, "score_batch runs after _setup"
    return _score(files, config, _scorers)


def score_batch_with(config: ScoreConfig, files: Sequence[Path]) -> BatchScore:
    """:func:`score_batch` with ``config`` given, not set up per process: for a worker that
    scores batches of any config, on any of its threads (a Dask worker). The scorers are
    built once per config and process."""
    return _score(files, config, _scorers_of(config))


@functools.lru_cache(maxsize=16)
def _scorers_of(config: ScoreConfig) -> tuple[DimensionScorer, ...]:
    return tuple(scorers_for(list(config.dimensions), _registry_of(config.tools)))


@functools.lru_cache(maxsize=16)
def _registry_of(tools: ToolDeclarations) -> ToolRegistry:
    return tools.registry()


def _score(
    files: Sequence[Path], config: ScoreConfig, scorers: Sequence[DimensionScorer]
) -> BatchScore:
    out = BatchScore()
    settings = scoring_settings(config, scorers)
    registry = _registry_of(config.tools)
    for path in files:
        for trajectory in read_trajectories(path, report=out.report, format=config.input_format):
            result = score_trajectory(
                trajectory,
                scorers,
                max_downgrades=config.max_downgrades,
                registry=registry,
                strict_claims=config.strict_claims,
            )
            record = result.to_dict()
            record["settings"] = settings
            out.tally.add(record)
            if config.output in ("jsonl", "parquet"):
                out.texts.append(json.dumps(record, ensure_ascii=False) + "\n")
            elif config.output == "json":
                out.texts.append(json_element(record))
            else:
                out.results.append(result)
    return out


def scoring_settings(config: ScoreConfig, scorers: Sequence[DimensionScorer]) -> dict[str, object]:
    """What decides a record's numbers besides the trajectory: the dimensions scored (resolved,
    so ``default`` and its four names are one setting), ``--strict-claims`` and the gate's
    budget, and the user's tool declarations when there are any (``tools``, ``unknown_shell``).
    Each ``trajectory score`` record carries it (``settings``), so ``trajectory aggregate``
    refuses to merge shards scored differently.

    Example:
        >>> scoring_settings(ScoreConfig(("default",), 2, None, "jsonl"), [])
        {'dimensions': [], 'strict_claims': True, 'max_downgrades': 2}
    """
    settings: dict[str, object] = {
        "dimensions": sorted(str(s.dimension) for s in scorers),
        "strict_claims": config.strict_claims,
        "max_downgrades": config.max_downgrades,
    }
    if config.tools.tools:
        settings["tools"] = dict(config.tools.tools)
    if config.tools.unknown_shell != _NO_DECLARATIONS.unknown_shell:
        settings["unknown_shell"] = config.tools.unknown_shell
    return settings


def json_element(record: dict[str, object]) -> str:
    """``record`` as an element of the ``trajectories`` array of ``json.dumps({...}, indent=2)``:
    indented two levels, with no separator (the writer adds ``,\\n``)."""
    text = json.dumps(record, indent=2, ensure_ascii=False)
    # json escapes newlines inside strings: every line break here is structural.
    return "\n".join("    " + line for line in text.split("\n"))


def batches(files: Sequence[Path]) -> Iterator[list[Path]]:
    """Consecutive files grouped into batches of about :data:`BATCH_BYTES`."""
    batch: list[Path] = []
    size = 0
    for path in files:
        batch.append(path)
        with contextlib.suppress(OSError):  # the reader reports it
            size += path.stat().st_size
        if size >= BATCH_BYTES or len(batch) >= BATCH_FILES:
            yield batch
            batch, size = [], 0
    if batch:
        yield batch


def score_files(files: Sequence[Path], config: ScoreConfig, jobs: int) -> Iterator[BatchScore]:
    """Every batch of ``files`` scored, in input order, by ``jobs`` processes (no more
    processes than batches: one batch is scored here)."""
    groups = list(batches(files))  # paths only: small
    workers = min(jobs, len(groups))
    return ordered_map(score_batch, groups, workers, initializer=_setup, initargs=(config,))


__all__ = [
    "BATCH_BYTES",
    "BatchScore",
    "ScoreConfig",
    "batches",
    "json_element",
    "score_batch_with",
    "score_files",
    "scoring_settings",
]

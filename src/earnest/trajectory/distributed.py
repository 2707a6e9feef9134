"""Score trajectory files on a Dask cluster (``earnest trajectory score --dask ADDRESS``).

The client sends **paths, not contents**: the files are grouped into the batches of
``--jobs`` (:func:`earnest.trajectory.parallel.batches`), one Dask task per batch, and each
task runs :func:`earnest.trajectory.parallel.score_batch_with` — the readers, the scorers
and the battery tally of local scoring, nothing re-implemented — on a worker that reads
the files from a filesystem it shares with the client (NFS, Lustre, a mounted object
store...). The batches come back in input order through
:func:`earnest.parallel.ordered_results` (a bounded window of tasks in flight), so the
per-trajectory lines, the warnings and the battery are those of ``--jobs 1``, byte for
byte, and merge exactly as ``earnest trajectory aggregate`` merges shards.

A worker checks, before reading, that it sees each file the client sends at the same
absolute path, and that it runs the same earnest version: a cluster
without the shared filesystem, or with another earnest, stops with an error instead of
silently scoring other files, or none.

``dask[distributed]`` is an extra (``pip install 'earnest[dask]'``), imported only here.

Example (the default config is that of `--format jsonl`; the guide runs a cluster):
    >>> DEFAULT_CONFIG.output
    'jsonl'
    >>> from distributed import Client, LocalCluster                  # doctest: +SKIP
    >>> with LocalCluster(n_workers=2, threads_per_worker=1) as cluster, \\
    ...         Client(cluster) as client:                            # doctest: +SKIP
    ...     for batch in score_paths(client, ["logs/"]):
    ...         print("".join(batch.texts), end="")  # one jsonl line per trajectory
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Iterable, Iterator, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from earnest.errors import InputError
from earnest.extras import install_hint
from earnest.parallel import ordered_results
from earnest.trajectory.parallel import BatchScore, ScoreConfig, batches, score_batch_with

if TYPE_CHECKING:
    from distributed import Client

DEFAULT_CONFIG = ScoreConfig(("default",), 2, None, "jsonl")
"""What ``earnest trajectory score --format jsonl`` scores: the default dimensions."""

_LOCAL = re.compile(r"local(?::(.*))?", re.S)
_SCHEMES = ("tcp", "tls", "ws", "wss")
"""The Dask comm schemes earnest connects over (``inproc`` is in-process only; ``ucx``
needs the UCX transport, which earnest does not install)."""
_TLS_KEYS = ("ca-file",)
"""What Dask needs configured to open a ``tls://`` connection (its client certificate and
key are optional, as the scheduler asks)."""


@dataclass(frozen=True, slots=True)
class SentFile:
    """A file as the client sends it: the path as given (it names the file in every result
    and warning), the absolute path the client sees, and whether the client saw it there."""

    path: str
    absolute: str
    seen: bool

    @classmethod
    def of(cls, path: Path) -> SentFile:
        # A file, or a folder one reader reads whole (opencode's JSON storage).
        return cls(str(path), os.path.abspath(path), path.is_file() or path.is_dir())


_SHARED = (
    "the workers read the files themselves, from the same absolute paths (a shared "
    "filesystem or a mounted object store; see docs/guides/dask.md)"
)


class NotOnWorker(Exception):
    """Raised on a worker that cannot score as the client would: it does not see a file
    (``path``) as the client does, or runs another earnest. The client turns it into an
    :class:`InputError` naming the file and the worker."""

    def __init__(self, path: str | None, problem: str, worker: str) -> None:
        super().__init__(path, problem, worker)
        self.path, self.problem, self.worker = path, problem, worker


def score_paths(
    client: Client,
    paths: Iterable[str | Path],
    config: ScoreConfig = DEFAULT_CONFIG,
    *,
    window: int | None = None,
) -> Iterator[BatchScore]:
    """Every batch of the files under ``paths`` (files as given, directories searched as by
    ``trajectory score``) scored on ``client``'s cluster, in input order.

    Merge the batches' tallies (:meth:`BatteryTally.merge`) for the battery, as the CLI does.
    ``window`` bounds the batches in flight (default: four per worker thread, at least 16).
    """
    from earnest.trajectory.readers import iter_paths

    return score_files_on(client, list(iter_paths(paths)), config, window=window)


def score_files_on(
    client: Client,
    files: Sequence[Path],
    config: ScoreConfig,
    *,
    window: int | None = None,
) -> Iterator[BatchScore]:
    """The batches of ``files`` (already listed) scored on ``client``'s cluster, in order."""
    import earnest

    address = _address_of(client)
    limit = window or max(16, 4 * sum(_threads(client).values()))
    sent = ([SentFile.of(path) for path in group] for group in batches(files))

    def submit(group: list[SentFile]) -> Any:
        return client.submit(score_sent_batch, config, earnest.__version__, group, pure=False)

    try:
        yield from ordered_results(submit, sent, limit)
    except NotOnWorker as exc:
        raise InputError(exc.path, None, f"the Dask worker {exc.worker} {exc.problem}") from None
    except Exception as exc:
        problem = _cluster_problem(exc)
        if problem is None:
            raise
        raise InputError(None, address, problem) from None


def score_sent_batch(config: ScoreConfig, version: str, files: Sequence[SentFile]) -> BatchScore:
    """The Dask task: check this worker sees ``files`` as the client did, then score them
    with :func:`~earnest.trajectory.parallel.score_batch_with`."""
    import earnest

    worker = _worker_name()
    if version != earnest.__version__:
        raise NotOnWorker(
            None,
            f"runs earnest {earnest.__version__}, the client {version}: install the same "
            "version on the client and the workers",
            worker,
        )
    for sent in files:
        problem = _unseen(sent)
        if problem is not None:
            raise NotOnWorker(sent.path, problem, worker)
    return score_batch_with(config, [Path(sent.path) for sent in files])


def score_files_at(
    address: str, files: Sequence[Path], config: ScoreConfig
) -> Iterator[BatchScore]:
    """``--dask ADDRESS``: connect (``local`` / ``local:N``: start a cluster of ``N`` worker
    processes here, default one per core), score ``files`` there in order, disconnect.

    A bad address, a scheduler that cannot be reached or that goes away is an
    :class:`InputError` naming the address; the wait for the scheduler is Dask's
    ``distributed.comm.timeouts.connect`` (``DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT=60s``).
    """
    with ExitStack() as stack:
        client = _connect(address, stack)
        _announce(client, address)
        yield from score_files_on(client, files, config)


def _connect(address: str, stack: ExitStack) -> Client:
    """A client of ``address``, closed by ``stack``; the cluster's own logging is silenced
    (its failures are reported here, in one line, not as its tracebacks)."""
    try:
        import distributed
    except ImportError:
        raise InputError(
            None, "--dask", f"needs dask[distributed]: {install_hint('dask')}"
        ) from None
    _silence_cluster_logs()
    local = _LOCAL.fullmatch(address.strip())
    if local is None:
        _check_remote(address.strip())
    try:
        if local is not None:
            workers = _local_workers(address, local[1])
            cluster = stack.enter_context(
                distributed.LocalCluster(
                    n_workers=workers,
                    threads_per_worker=1,
                    processes=True,
                    # A free port on this machine only: Dask's HTTP server starts even
                    # without a dashboard, and on 8787 (perhaps taken) by default.
                    dashboard_address="127.0.0.1:0",
                )
            )
            client: Client = stack.enter_context(distributed.Client(cluster))
        else:
            client = stack.enter_context(distributed.Client(address))
        return client
    except InputError:
        raise
    except TypeError as exc:  # what Dask raises for a comm it cannot set up (TLS, UCX)
        raise InputError(
            None, "--dask", f"cannot connect to {address!r}: {exc}; see docs/guides/dask.md"
        ) from None
    except ValueError as exc:  # the address itself: no port, an unknown scheme
        raise InputError(
            None, "--dask", f"not a Dask scheduler address ({exc}); e.g. tcp://HOST:8786 or local"
        ) from None
    except (OSError, TimeoutError) as exc:
        raise InputError(
            None,
            address,
            f"cannot reach the Dask scheduler ({exc}): is it running at that address?",
        ) from None


def _local_workers(address: str, count: str | None) -> int:
    """``local:N``'s N (default: the cores), capped at the cores unless the user insists."""
    import sys

    from earnest.parallel import capped_workers, default_jobs

    if count is None:
        return default_jobs()
    if not count.isdigit() or int(count) < 1:
        raise InputError(
            None, "--dask", f"local:N needs N >= 1 (a whole number of workers), got {address!r}"
        )
    workers, note = capped_workers(int(count), "--dask local:N")
    if note is not None:
        print(f"earnest: {note}", file=sys.stderr)
    return workers


def _check_remote(address: str) -> None:
    """The scheme of a scheduler's address is one earnest connects over; ``tls://`` and
    ``wss://`` need Dask's TLS configuration (certificates), else bad usage, not a hang or a
    traceback."""
    scheme, sep, _ = address.partition("://")
    scheme = scheme.lower() if sep else "tcp"
    if scheme not in _SCHEMES:
        raise InputError(
            None,
            "--dask",
            f"{address!r}: unknown address scheme {scheme!r} for earnest "
            f"(use {', '.join(s + '://' for s in _SCHEMES)} or local / local:N)",
        )
    if scheme not in ("tls", "wss"):
        return
    import dask.config

    missing = [k for k in _TLS_KEYS if not dask.config.get(f"distributed.comm.tls.{k}", None)]
    if missing:
        names = ", ".join(
            "DASK_DISTRIBUTED__COMM__TLS__" + k.upper().replace(".", "__").replace("-", "_")
            for k in missing
        )
        raise InputError(
            None,
            "--dask",
            f"{address!r} needs TLS certificates, and Dask's configuration has none for "
            f"{', '.join(missing)}: set {names} (or distributed.comm.tls in a Dask config "
            "file; docs/guides/dask.md)",
        )


def _silence_cluster_logs() -> None:
    # Dask's logging config sets levels on some child loggers (distributed.client...) too.
    names = [*logging.root.manager.loggerDict, "distributed", "tornado"]
    for name in names:
        if name.split(".")[0] in ("distributed", "tornado"):
            logging.getLogger(name).setLevel(logging.CRITICAL)


def _announce(client: Client, address: str) -> None:
    import sys

    threads = _threads(client)
    where = "a local cluster" if _LOCAL.fullmatch(address.strip()) else address
    note = "" if threads else " (none yet: the tasks wait for workers to join)"
    print(
        f"earnest: dask: {len(threads)} workers, {sum(threads.values())} threads at {where}{note}",
        file=sys.stderr,
    )


def _threads(client: Client) -> dict[str, int]:
    try:
        return dict(client.nthreads())
    except Exception as exc:
        raise InputError(None, _address_of(client), _cluster_problem(exc) or str(exc)) from None


def _address_of(client: Client) -> str:
    return str(getattr(client.scheduler, "address", None) or "the Dask scheduler")


def _cluster_problem(exc: BaseException) -> str | None:
    """What went wrong with the cluster, or ``None`` for an error of the task itself."""
    from concurrent.futures import CancelledError

    from distributed import KilledWorker

    if isinstance(exc, KilledWorker):
        return f"the Dask workers died scoring a batch ({exc}); see the workers' logs"
    if isinstance(exc, CancelledError):
        return f"lost the Dask scheduler: {exc}".rstrip()
    if isinstance(exc, OSError | TimeoutError):
        return f"lost the Dask scheduler: {exc}"
    return None


def _unseen(sent: SentFile) -> str | None:
    """Why this worker does not see ``sent`` as the client did, or ``None``."""
    if os.path.abspath(sent.path) != sent.absolute:
        return (
            f"resolves this relative path in another working directory ({os.getcwd()}): "
            f"give absolute paths; {_SHARED}"
        )
    if sent.seen and not os.path.exists(sent.path):
        return f"cannot see this file: {_SHARED}"
    return None  # (a file the client lost too is reported by the reader, as locally)


def _worker_name() -> str:
    try:
        from distributed import get_worker

        return str(get_worker().address)
    except (ImportError, ValueError):  # run outside a worker (tests, a debugger)
        return "(no worker)"


__all__ = ["DEFAULT_CONFIG", "NotOnWorker", "SentFile", "score_files_at", "score_paths"]

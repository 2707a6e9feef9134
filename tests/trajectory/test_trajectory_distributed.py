"""Scoring on a Dask cluster (``earnest.trajectory.distributed``, ``trajectory score --dask``).

A real ``distributed.LocalCluster`` of two worker processes, started here, scores the real
transcripts of ``tests/data/transcripts`` under 500 KB (three batches, malformed lines and
files that are not transcripts among them): through the library call and through the CLI as a
subprocess given the scheduler's address, compared byte for byte with local scoring
(``--jobs 1``), and the battery with ``earnest trajectory aggregate`` of the local results.
The failures — a bad address, no scheduler there, a scheduler that dies, workers that do
not see the files or run another earnest — are real too (a scheduler process killed
mid-run, a relative path resolved in the workers' own directory).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import Future
from pathlib import Path

import pytest

from conftest import SRC, TRANSCRIPTS, run_earnest
from earnest.parallel import ordered_results
from earnest.trajectory import Battery, iter_paths
from earnest.trajectory.aggregate import aggregate_results
from earnest.trajectory.parallel import BATCH_FILES, ScoreConfig, batches, score_files

distributed = pytest.importorskip("distributed")

from earnest.trajectory.distributed import (  # noqa: E402 - after the skip
    DEFAULT_CONFIG,
    NotOnWorker,
    SentFile,
    score_paths,
    score_sent_batch,
)

NO_TRACEBACK = "Traceback"
SMALL = 500_000
"""The transcripts under this size: 47 real files of 11 formats and opencode 1.1.65's storage folder (2 sessions) (3.8 MB, three batches)."""


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("corpus")
    for path in iter_paths([TRANSCRIPTS]):
        copy = root / path.relative_to(TRANSCRIPTS)
        copy.parent.mkdir(parents=True, exist_ok=True)
        if path.is_dir():  # opencode's JSON storage: one folder, read whole
            shutil.copytree(path, copy)
        elif path.stat().st_size < SMALL:
            copy.write_bytes(path.read_bytes())
    return root


@pytest.fixture(scope="module")
def client() -> Iterator[distributed.Client]:
    with (
        distributed.LocalCluster(
            n_workers=2, processes=True, threads_per_worker=1, dashboard_address="127.0.0.1:0"
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client


def _local(
    corpus: Path, config: ScoreConfig = DEFAULT_CONFIG
) -> tuple[list[str], list[str], Battery]:
    texts: list[str] = []
    warnings: list[str] = []
    battery = Battery(keep_results=False)
    for batch in score_files(list(iter_paths([corpus])), config, jobs=1):
        texts.extend(batch.texts)
        warnings.extend(batch.report.lines())
        battery.tally.merge(batch.tally)
    return texts, warnings, battery


def test_score_paths_equals_local_scoring_and_uses_both_workers(
    client: distributed.Client, corpus: Path
) -> None:
    assert len(list(batches(list(iter_paths([corpus]))))) >= 3  # the two workers share them
    config = ScoreConfig(("all",), 2, None, "jsonl")
    texts, warnings, battery = _local(corpus, config)
    got_texts: list[str] = []
    got_warnings: list[str] = []
    got = Battery(keep_results=False)
    with distributed.get_task_stream(client) as stream:
        for batch in score_paths(client, [corpus], config):
            got_texts.extend(batch.texts)
            got_warnings.extend(batch.report.lines())
            got.tally.merge(batch.tally)
    assert got_texts == texts and len(texts) == 74
    assert got_warnings == warnings and any("malformed JSON" in w for w in warnings)
    assert got.summary() == battery.summary()
    workers = {task["worker"] for task in stream.data}
    assert workers == set(client.nthreads()) and len(workers) == 2


def test_battery_from_the_cluster_is_the_aggregate_of_the_local_results(
    client: distributed.Client, corpus: Path, tmp_path: Path
) -> None:
    texts, _, _ = _local(corpus)
    results = tmp_path / "local.jsonl"
    results.write_text("".join(texts), encoding="utf-8")
    got = Battery(keep_results=False)
    for batch in score_paths(client, list(iter_paths([corpus]))):
        got.tally.merge(batch.tally)
    assert got.summary() == aggregate_results([results]).summary()
    assert got.total == len(texts)


def test_the_window_bounds_the_tasks_in_flight(client: distributed.Client, tmp_path: Path) -> None:
    """With a window of one batch, the second batch's files are sent only after the first
    batch is handed over: a file removed in between is reported missing, as locally."""
    small = (TRANSCRIPTS / "claude-code" / "kimuson-1af7fc5e-init-empty-repo.jsonl").read_bytes()
    files = []
    for k in range(BATCH_FILES + 4):  # two batches
        path = tmp_path / f"t{k:03}.jsonl"
        path.write_bytes(small)
        files.append(path)
    assert [len(group) for group in batches(files)] == [BATCH_FILES, 4]
    stream = score_paths(client, files, window=1)
    first = next(stream)
    assert first.report.files_read == BATCH_FILES
    files[-1].unlink()
    (last,) = list(stream)
    assert last.report.files_read == 3 and len(last.texts) == 3
    assert any("t019.jsonl" in line for line in last.report.lines())


def test_a_worker_that_cannot_see_a_file_says_so(
    client: distributed.Client, tmp_path: Path
) -> None:
    import earnest

    gone = tmp_path / "gone.jsonl"
    sent = [SentFile(str(gone), str(gone), seen=True)]
    future = client.submit(score_sent_batch, DEFAULT_CONFIG, earnest.__version__, sent)
    with pytest.raises(NotOnWorker) as caught:
        future.result()
    assert caught.value.path == str(gone) and "cannot see this file" in caught.value.problem
    assert caught.value.worker in client.nthreads()


def test_ordered_results_streams_in_input_order() -> None:
    """A later item that finishes first waits for the earlier ones; the first is yielded
    as soon as it is done, before the others are."""
    futures: list[Future[int]] = [Future() for _ in range(3)]
    stream = ordered_results(lambda k: futures[k], range(3), window=3)
    futures[2].set_result(2)
    futures[0].set_result(0)
    assert next(stream) == 0
    assert not futures[1].done()
    futures[1].set_result(1)
    assert list(stream) == [1, 2]


def test_ordered_results_cancels_what_is_pending_when_stopped() -> None:
    futures: list[Future[int]] = [Future() for _ in range(3)]
    futures[0].set_result(0)
    stream = ordered_results(lambda k: futures[k], range(3), window=3)
    assert next(stream) == 0
    stream.close()
    assert futures[1].cancelled() and futures[2].cancelled()


# --- the CLI, a real subprocess given the scheduler's address -------------------------


_LOCAL_RUNS: dict[tuple[str, ...], subprocess.CompletedProcess[str]] = {}


def _score_locally(*args: str) -> subprocess.CompletedProcess[str]:
    """``trajectory score ARGS --jobs 1``, run once per ARGS in this module."""
    if args not in _LOCAL_RUNS:
        proc = run_earnest("trajectory", "score", *args, "--jobs", "1")
        assert proc.returncode == 0, proc.stderr
        _LOCAL_RUNS[args] = proc
    return _LOCAL_RUNS[args]


@pytest.mark.parametrize("fmt", ["jsonl", "json", "table", "junit"])
def test_cli_dask_output_is_byte_identical_to_one_process(
    client: distributed.Client, corpus: Path, tmp_path: Path, fmt: str
) -> None:
    address = client.scheduler.address
    local = _score_locally(str(corpus), "-d", "all", "--format", fmt)
    remote = run_earnest("trajectory", "score", str(corpus), "-d", "all", "--format", fmt,
                         "--dask", address)  # fmt: skip
    assert remote.returncode == 0, remote.stderr
    assert remote.stdout == local.stdout
    dask_line = f"earnest: dask: 2 workers, 2 threads at {address}\n"
    assert remote.stderr == dask_line + local.stderr
    assert "malformed JSON" in local.stderr and "not a recognised transcript" in local.stderr
    if fmt == "json":  # the battery is the aggregate of the local per-trajectory results
        results = tmp_path / "local.jsonl"
        results.write_text(_score_locally(str(corpus), "-d", "all", "--format", "jsonl").stdout)
        aggregated = run_earnest("trajectory", "aggregate", str(results), "--format", "json")
        assert aggregated.returncode == 0, aggregated.stderr
        assert json.loads(remote.stdout)["battery"] == json.loads(aggregated.stdout)["battery"]


def test_cli_dask_parquet_and_fail_over(
    client: distributed.Client, corpus: Path, tmp_path: Path
) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    local, remote = tmp_path / "local.parquet", tmp_path / "remote.parquet"
    for out, how in ((local, ("--jobs", "1")), (remote, ("--dask", client.scheduler.address))):
        proc = run_earnest("trajectory", "score", str(corpus), "--format", "parquet",
                           "-o", str(out), "--fail-over", "0.01", *how)  # fmt: skip
        assert proc.returncode == 1 and "exceeds --fail-over 1.0%" in proc.stderr, proc.stderr
    assert pq.read_table(remote).equals(pq.read_table(local))
    assert pq.read_table(remote).num_rows == 74


def test_cli_dask_shard_scores_the_same_share(client: distributed.Client, corpus: Path) -> None:
    local = _score_locally(str(corpus), "--format", "jsonl", "--shard", "2/3")
    remote = run_earnest("trajectory", "score", str(corpus), "--format", "jsonl",
                         "--shard", "2/3", "--dask", client.scheduler.address)  # fmt: skip
    assert remote.returncode == 0, remote.stderr
    assert remote.stdout == local.stdout and remote.stdout


def test_cli_dask_local_starts_its_own_cluster(corpus: Path) -> None:
    local = _score_locally(str(corpus), "--format", "jsonl")
    remote = run_earnest("trajectory", "score", str(corpus), "--format", "jsonl",
                         "--dask", "local:2")  # fmt: skip
    assert remote.returncode == 0, remote.stderr
    assert remote.stdout == local.stdout
    assert remote.stderr.startswith("earnest: dask: 2 workers, 2 threads at a local cluster\n")


def test_cli_relative_paths_the_workers_resolve_elsewhere_are_refused(
    client: distributed.Client, corpus: Path, tmp_path: Path
) -> None:
    """The workers run in the directory the cluster was started in, not the CLI's: a
    relative path would name another file there (or none); it is refused, not scored."""
    out = tmp_path / "r.jsonl"
    out.write_text("keep me\n")
    proc = run_earnest("trajectory", "score", corpus.name, "--format", "jsonl", "-o", str(out),
                       "--dask", client.scheduler.address, cwd=corpus.parent)  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert NO_TRACEBACK not in proc.stderr
    assert f"earnest: {corpus.name}/" in proc.stderr
    assert "resolves this relative path in another working directory" in proc.stderr
    assert "give absolute paths" in proc.stderr and "docs/guides/dask.md" in proc.stderr
    assert out.read_text() == "keep me\n"


def test_cli_workers_running_another_earnest_are_refused(
    client: distributed.Client, corpus: Path
) -> None:
    def set_version(version: str) -> None:
        import earnest

        earnest.__version__ = version

    import earnest

    client.run(set_version, "0.0.0-other")
    try:
        proc = run_earnest("trajectory", "score", str(corpus), "--format", "jsonl",
                           "--dask", client.scheduler.address)  # fmt: skip
    finally:
        client.run(set_version, earnest.__version__)
    assert proc.returncode == 2 and NO_TRACEBACK not in proc.stderr, proc.stderr
    assert proc.stderr.startswith("earnest: dask: 2 workers")
    assert "earnest: the Dask worker tcp://127.0.0.1:" in proc.stderr
    assert f" runs earnest 0.0.0-other, the client {earnest.__version__}: install" in proc.stderr
    assert proc.stdout == ""


# --- bad addresses, no scheduler, a scheduler that dies ----------------------------------


@pytest.mark.parametrize(
    ("address", "says"),
    [
        ("nowhere", "missing port number"),
        ("foo://127.0.0.1:8786", "unknown address scheme 'foo'"),
        ("tcp://127.0.0.1:notaport", "not a Dask scheduler address"),
        ("local:0", "local:N needs N >= 1"),
        # Issue 22, item 13: clear errors, never a TypeError traceback or a connect timeout.
        ("local:-1", "local:N needs N >= 1"),
        ("local:lots", "local:N needs N >= 1"),
        ("tls://127.0.0.1:8786", "needs TLS certificates"),
        ("ucx://127.0.0.1:8786", "unknown address scheme 'ucx'"),
    ],
)
def test_cli_bad_address_is_a_usage_error(address: str, says: str) -> None:
    proc = run_earnest("trajectory", "score", str(TRANSCRIPTS), "--dask", address)
    assert proc.returncode == 2 and NO_TRACEBACK not in proc.stderr, proc.stderr
    assert says in proc.stderr and proc.stderr.startswith("earnest: --dask: ")


def test_cli_no_scheduler_at_the_address(tmp_path: Path) -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    out = tmp_path / "r.jsonl"
    out.write_text("keep me\n")
    proc = run_earnest("trajectory", "score", str(TRANSCRIPTS), "-o", str(out), "--format",
                       "jsonl", "--dask", f"tcp://127.0.0.1:{port}",
                       env={"DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT": "1s"})  # fmt: skip
    assert proc.returncode == 2 and NO_TRACEBACK not in proc.stderr, proc.stderr
    assert f"earnest: tcp://127.0.0.1:{port}: cannot reach the Dask scheduler" in proc.stderr
    assert "is it running at that address?" in proc.stderr
    assert out.read_text() == "keep me\n"


def test_cli_scheduler_that_dies_mid_run(tmp_path: Path) -> None:
    """A scheduler with no worker holds the tasks; killed, the run stops with exit 2."""
    scheduler = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "distributed.cli.dask_scheduler",
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--no-dashboard",
        ],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        address = _scheduler_address(scheduler)
        env = dict(os.environ, PYTHONPATH=str(SRC), NO_COLOR="1")
        cli = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "earnest",
                "trajectory",
                "score",
                str(TRANSCRIPTS),
                "--format",
                "jsonl",
                "--dask",
                address,
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        assert cli.stderr is not None
        first = cli.stderr.readline()
        assert first.startswith("earnest: dask: 0 workers, 0 threads at tcp://127.0.0.1:")
        assert "none yet: the tasks wait for workers to join" in first
        scheduler.kill()
        stdout, stderr = cli.communicate(timeout=60)
    finally:
        scheduler.kill()
        scheduler.wait()
    assert cli.returncode == 2, stderr
    assert NO_TRACEBACK not in stderr and "lost the Dask scheduler" in stderr
    assert stdout == ""


def _scheduler_address(scheduler: subprocess.Popen[str]) -> str:
    assert scheduler.stderr is not None
    for line in scheduler.stderr:
        if "Scheduler at:" in line:
            return line.split("Scheduler at:")[1].strip()
    raise AssertionError("the scheduler did not start")


# --- the extra is optional and imported only for --dask ---------------------------------


def _run_main(code: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(SRC), NO_COLOR="1")
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120
    )


def test_without_dask_installed_the_option_says_what_to_install() -> None:
    proc = _run_main(
        "import sys; sys.modules['distributed'] = None\n"
        "from earnest.__main__ import main\n"
        f"sys.exit(main(['trajectory', 'score', {str(TRANSCRIPTS)!r}, '--dask', 'local:1']))"
    )
    assert proc.returncode == 2 and NO_TRACEBACK not in proc.stderr, proc.stderr
    assert (
        "earnest: --dask: needs dask[distributed]: pip install 'earnest[dask]'"
        " (from a checkout: pip install -e '.[dask]')" in proc.stderr
    )


def test_dask_is_imported_only_for_the_option(corpus: Path) -> None:
    proc = _run_main(
        "import sys\n"
        "from earnest.__main__ import main\n"
        f"code = main(['trajectory', 'score', {str(corpus)!r}, '-j', '1', '--format', "
        "'jsonl'])\n"
        "print('loaded:', sorted(m for m in ('dask', 'distributed') if m in sys.modules), "
        "file=sys.stderr)\n"
        "sys.exit(code)"
    )
    assert proc.returncode == 0, proc.stderr
    assert "loaded: []" in proc.stderr


def test_dask_and_jobs_together_are_refused() -> None:
    proc = run_earnest("trajectory", "score", str(TRANSCRIPTS), "--dask", "local", "-j", "2")
    assert proc.returncode == 2 and NO_TRACEBACK not in proc.stderr
    assert "earnest: --jobs: not with --dask" in proc.stderr


def test_local_workers_are_capped_at_the_cores_unless_insisted(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``local:1000`` on this machine starts at most its cores; EARNEST_OVERCOMMIT=1 insists."""
    from earnest.parallel import default_jobs
    from earnest.trajectory.distributed import _local_workers

    monkeypatch.delenv("EARNEST_OVERCOMMIT", raising=False)
    assert _local_workers("local:1000", "1000") == default_jobs()
    assert "--dask local:N 1000 capped at" in capsys.readouterr().err
    monkeypatch.setenv("EARNEST_OVERCOMMIT", "1")
    assert _local_workers("local:1000", "1000") == 1000

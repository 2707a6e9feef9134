"""Live-run commands: ``run``, ``runs show|list``, ``export``, ``compare``, ``baseline bless``."""

from __future__ import annotations

import contextlib
import enum
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from earnest.cli import app
from earnest.cli.otel import OtelEndpointOpt, OtelOpt, close_sink, open_sink, suite_otel
from earnest.cli.output import NoRedactOpt, redaction
from earnest.errors import InputError
from earnest.redact import scrub

if TYPE_CHECKING:
    from earnest.live.session import RunPlan
    from earnest.otel.export import EventSink

DEFAULT_STORE = Path(".earnest") / "runs.db"

runs_app = typer.Typer(help="Inspect stored live runs.", no_args_is_help=True)
baseline_app = typer.Typer(help="Bless a run as the baseline later runs are compared against.")
app.add_typer(runs_app, name="runs")
app.add_typer(baseline_app, name="baseline")

StoreOpt = Annotated[
    Path, typer.Option("--store", help="The run store (SQLite).", show_default=True)
]
FormatOpt = Annotated[
    str, typer.Option("--format", help="table, json or junit.", show_default=True)
]


def _check_format(fmt: str) -> None:
    if fmt not in ("table", "json", "junit"):
        raise InputError(None, "--format", f"unknown format {fmt!r} (use table, json or junit)")


@app.command("run")
def run(
    suite: Annotated[
        Path | None, typer.Option("--suite", "-s", help="Suite folder (default: .).")
    ] = None,
    profile: Annotated[
        list[str] | None,
        typer.Option(
            "--profile",
            help="NAME=PROVIDER:MODEL (openai:, anthropic:, exec:claude|codex|gemini:MODEL, "
            "exec:cmd:COMMAND, replay:FILE), or NAME of a \\[live.profiles] entry. Repeatable.",
        ),
    ] = None,
    base_url: Annotated[
        str | None,
        typer.Option(
            "--base-url",
            help="Base URL for openai:/anthropic: profiles (local servers, gateways); "
            "their key goes there.",
        ),
    ] = None,
    api_key_env: Annotated[
        str | None,
        typer.Option(
            "--api-key-env",
            help="The environment variable holding the key of the openai:/anthropic: profiles.",
        ),
    ] = None,
    allow_env: Annotated[
        list[str] | None,
        typer.Option(
            "--allow-env",
            help="An environment variable (NAME or PREFIX_*) the exec: agents get beyond their "
            "preset's. Repeatable. A suite file cannot give this.",
        ),
    ] = None,
    allow_network: Annotated[
        list[str] | None,
        typer.Option(
            "--allow-network",
            help="HOST:PORT a confined exec: agent may connect to beyond its model endpoint. "
            "Repeatable. A suite file cannot give this.",
        ),
    ] = None,
    allow_read: Annotated[
        list[str] | None,
        typer.Option(
            "--allow-read",
            help="A path under your hidden HOME a confined exec: agent may read. Repeatable. "
            "A suite file cannot give this.",
        ),
    ] = None,
    samples: Annotated[
        int | None, typer.Option("--samples", min=1, help="Samples (epochs) per fixture.")
    ] = None,
    arms: Annotated[
        str | None, typer.Option("--arms", help="rule, ablated or rule,ablated.")
    ] = None,
    concurrency: Annotated[
        int | None, typer.Option("--concurrency", min=1, help="Requests in flight per profile.")
    ] = None,
    timeout: Annotated[
        float | None,
        typer.Option(
            "--timeout",
            min=0.001,
            help="Seconds per request; a sample takes at most timeout × (retries + 1).",
        ),
    ] = None,
    retries: Annotated[
        int | None,
        typer.Option(
            "--retries", min=0, help="Retries on 429, 5xx, timeouts, dropped connections."
        ),
    ] = None,
    backoff: Annotated[
        float | None,
        typer.Option(
            "--backoff", min=0.0, help="First retry delay in seconds (doubles, jittered)."
        ),
    ] = None,
    store: StoreOpt = DEFAULT_STORE,
    seed: Annotated[int | None, typer.Option("--seed", min=0, help="Shuffle seed.")] = None,
    no_shuffle: Annotated[
        bool, typer.Option("--no-shuffle", help="Show options in the fixture's own order.")
    ] = False,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Skip the cost confirmation.")] = False,
    resume: Annotated[
        str | None,
        typer.Option("--resume", help="Resume RUN_ID (or latest): take only what is missing."),
    ] = None,
    max_cost: Annotated[
        float | None,
        typer.Option(
            "--max-cost", min=0.0, help="USD hard budget: each try reserves its worst case first."
        ),
    ] = None,
    fixtures: Annotated[
        str | None, typer.Option("--fixtures", help="Only these fixture ids (comma-separated).")
    ] = None,
    act: Annotated[
        bool,
        typer.Option(
            "--act",
            help="Act agentic fixtures out: each sample runs the exec: agent in a fresh copy "
            "of the fixture's workspace and is judged on what it did as well as what it said.",
        ),
    ] = False,
    batch: Annotated[
        bool,
        typer.Option(
            "--batch",
            help="Send every sample through the OpenAI Batch API / Anthropic Message Batches "
            "(half price, results within 24h); the batch ids are stored, so --resume polls them.",
        ),
    ] = False,
    batch_wait: Annotated[
        float | None,
        typer.Option(
            "--batch-wait",
            min=0.0,
            help="Seconds to wait for the batches to end (default: until they end); then exit "
            "with the run waiting, for --resume to collect.",
        ),
    ] = None,
    no_wait: Annotated[
        bool,
        typer.Option(
            "--no-wait", help="Submit the batches (or check them once, on --resume) and exit."
        ),
    ] = False,
    batch_poll: Annotated[
        float | None,
        typer.Option("--batch-poll", min=0.001, help="Seconds between polls of a batch (30)."),
    ] = None,
    confine: Annotated[
        str | None,
        typer.Option(
            "--confine",
            help="Acting agents under bubblewrap: auto (when it works here, else a warning), "
            "bwrap (required) or none. Default: [live] confine, else auto.",
        ),
    ] = None,
    fmt: FormatOpt = "table",
    progress_interval: Annotated[
        float, typer.Option("--progress-interval", help="Seconds between plain progress lines.")
    ] = 10.0,
    no_redact: NoRedactOpt = False,
    no_citation: Annotated[
        bool,
        typer.Option(
            "--no-citation",
            help='Choice-only: citations are recorded but never fail a reply (citation = "optional").',
        ),
    ] = False,
    otel: OtelOpt = False,
    otel_endpoint: OtelEndpointOpt = None,
) -> None:
    """Send the suite's fixtures to models or agent CLIs, judge and store every reply.

    Prints `run: RUN_ID` on stderr when the run starts, the report on stdout when it ends, and the run id alone as the last line of stdout.

    --otel (or EARNEST_OTEL=1 in the environment; never the suite's [otel] table) sends every sample of the run, once it ends, as an OpenTelemetry gen_ai.evaluation.result event; a failed export changes no exit status.

    Exit 0: every rule-arm sample passed; 1: a rule-arm failure, a void sample or an unfinished run; 2: bad input.
    """
    redaction(no_redact)
    from earnest.live.providers import ProviderUnavailable
    from earnest.live.runlock import run_lock
    from earnest.live.session import Overrides, plan_new, plan_resume
    from earnest.live.store import RunStore

    _check_format(fmt)
    if no_shuffle and seed is not None:
        raise InputError(
            None,
            "--seed",
            "contradicts --no-shuffle (the fixture's own order has no seed): give one of them",
        )
    if no_wait and batch_wait is not None:
        raise InputError(None, "--no-wait", "contradicts --batch-wait: give one of them")
    ov = Overrides(
        profiles=tuple(profile or ()),
        base_url=base_url,
        api_key_env=api_key_env,
        allow_env=tuple(allow_env or ()),
        allow_network=tuple(allow_network or ()),
        allow_read=tuple(allow_read or ()),
        samples=samples,
        arms=arms,
        concurrency=concurrency,
        timeout=timeout,
        retries=retries,
        backoff=backoff,
        seed=seed,
        shuffle=False if no_shuffle else None,
        max_cost=max_cost,
        fixtures=fixtures,
        act=True if act else None,
        confine=_confine_mode(confine),
        no_citation=no_citation,
        batch=True if batch else None,
        batch_poll=batch_poll,
        batch_wait=0.0 if no_wait else batch_wait,
    )
    with contextlib.ExitStack() as held:
        if resume is not None:
            if not store.is_file():
                raise InputError(store, None, "no run store here (pass --store PATH)")
            with RunStore(store, create=False) as st:
                resume = st.resolve(resume)  # `latest` names the newest run
            # One writer per run: taken before the missing samples are counted.
            held.enter_context(run_lock(store, resume))
        try:
            if resume is not None:
                with RunStore(store, create=False) as st:
                    plan = plan_resume(st, resume, suite, ov)
            else:
                plan = plan_new(suite if suite is not None else Path("."), ov)
        except ProviderUnavailable as exc:
            raise InputError(None, None, str(exc)) from None
        if resume is None:
            held.enter_context(run_lock(store, plan.run.run_id))
        # Opened before any sample is taken: a missing SDK is bad usage, not a lost run.
        sink = open_sink(
            otel, otel_endpoint, suite_otel(plan.suite.config.raw, plan.suite.config.config_file)
        )
        _take(plan, store, yes, fmt, progress_interval, sink, again=ov.trusted_argv())


def _confine_mode(value: str | None) -> str | None:
    from earnest.live.confine import MODES

    if value is not None and value not in MODES:
        raise InputError(None, "--confine", f"must be one of {', '.join(MODES)}, not {value!r}")
    return value


def _take(
    plan: RunPlan,
    store: Path,
    yes: bool,
    fmt: str,
    progress_interval: float,
    sink: EventSink | None = None,
    *,
    again: str = "",
) -> None:
    """Confirm the cost, take the plan's samples into ``store`` and report (holding the lock);
    ``again`` are the user-only options a resume must repeat (in the hints that name it)."""
    from earnest.live.cost import format_usd
    from earnest.live.progress import Progress
    from earnest.live.session import execute
    from earnest.live.store import RunStore
    from earnest.live.summary import summarize
    from earnest.report.runs import render_summary

    for warning in plan.warnings:
        print(f"earnest: warning: {warning}", file=sys.stderr)
    broken = plan.broken_fixture_files
    if broken:
        print(
            f"earnest: warning: {len(broken)} fixture file(s) did not load and are left out "
            f"(run `earnest lint`): {', '.join(str(p) for p in broken[:3])}"
            + (" ..." if len(broken) > 3 else ""),
            file=sys.stderr,
        )
    est = plan.estimate
    cfg = plan.config
    print(
        f"plan: {est.samples} sample(s) to take of {plan.run.total} "
        f"({len(cfg.profiles)} profile(s) × {len(cfg.arms)} arm(s) × {cfg.samples} epoch(s)); "
        f"estimated {est.tokens_in} input + {est.tokens_out} output tokens, "
        f"{format_usd(est.cost)}"
        + (f" plus unpriced profiles: {', '.join(est.unpriced)}" if est.unpriced else "")
        + (" (batch: half price)" if cfg.batch else ""),
        file=sys.stderr,
    )
    if plan.in_batches:
        print(
            f"batch: {plan.in_batches} sample(s) are in batches submitted before: "
            "polled, not submitted again",
            file=sys.stderr,
        )
    if est.paid and est.samples and not yes:
        if not sys.stdin.isatty():
            print(
                "earnest: this run may cost money and there is no terminal to confirm it: "
                "pass --yes (and --max-cost USD to cap it)",
                file=sys.stderr,
            )
            raise typer.Exit(2)
        if not typer.confirm("Start this paid run?", default=False, err=True):
            print("earnest: not started", file=sys.stderr)
            raise typer.Exit(2)

    with RunStore(store) as st:
        print(f"run: {plan.run.run_id}", file=sys.stderr, flush=True)
        observer = Progress(sys.stderr, interval=progress_interval)
        try:
            result = execute(plan, st, observer)
        except KeyboardInterrupt:
            print(
                f"earnest: interrupted; resume with: earnest run --resume {plan.run.run_id}"
                f" --store {store}{again}",
                file=sys.stderr,
            )
            raise typer.Exit(130) from None
        info = st.get_run(plan.run.run_id)
        records = st.samples(plan.run.run_id)
        summary = summarize(info, records)
    if sink is not None:
        from earnest.otel.events import sample_event

        for record in records:
            sink.emit(sample_event(record))
    if result.hint is not None:
        print(
            f"earnest: {result.hint}\n"
            f"earnest: {info.total - summary.stored} sample(s) not taken; start the server, then "
            f"resume with: earnest run --resume {info.run_id} --store {store}{again}",
            file=sys.stderr,
        )
    elif result.status == "waiting":
        print(
            f"earnest: {result.in_batches} sample(s) wait in provider batches; "
            f"collect them with: earnest run --resume {info.run_id} --store {store}"
            f"{again}",
            file=sys.stderr,
        )
    elif result.status == "stopped":
        print(
            f"earnest: --max-cost reached; {info.total - summary.stored} sample(s) not taken "
            f"(resume with --resume {info.run_id} --max-cost HIGHER)",
            file=sys.stderr,
        )
    sys.stdout.write(scrub(render_summary(summary, fmt)))
    close_sink(sink)
    print(info.run_id)
    raise typer.Exit(summary.exit_code())


@runs_app.command("show")
def runs_show(
    run_id: Annotated[str, typer.Argument(help="The run id, or latest.")],
    store: StoreOpt = DEFAULT_STORE,
    fmt: FormatOpt = "table",
    no_redact: NoRedactOpt = False,
) -> None:
    """Report a stored run: pass rates with intervals, pass^k, verdicts, ablation deltas.

    Exit 0: complete and every rule-arm sample passed; 1 otherwise.
    """
    redaction(no_redact)
    from earnest.live.store import RunStore
    from earnest.live.summary import summarize
    from earnest.report.runs import render_summary

    _check_format(fmt)
    with RunStore(store, create=False) as st:
        run_id = st.resolve(run_id)
        summary = summarize(st.get_run(run_id), st.samples(run_id))
    sys.stdout.write(scrub(render_summary(summary, fmt)))
    raise typer.Exit(summary.exit_code())


@runs_app.command("list")
def runs_list(
    store: StoreOpt = DEFAULT_STORE,
    fmt: Annotated[str, typer.Option("--format", help="table or json.")] = "table",
) -> None:
    """List the runs in a store, newest first."""
    from earnest.live.store import RunStore
    from earnest.report.runs import runs_table

    if fmt not in ("table", "json"):
        raise InputError(None, "--format", f"unknown format {fmt!r} (use table or json)")
    with RunStore(store, create=False) as st:
        runs = st.list_runs()[::-1]  # newest first: the run you just made is on top
        counts = [st.count(r.run_id) for r in runs]
    sys.stdout.write(runs_table(runs, counts, fmt))


@runs_app.command("check")
def runs_check(
    store: StoreOpt = DEFAULT_STORE,
    fmt: Annotated[str, typer.Option("--format", help="table or json.")] = "table",
) -> None:
    """Check the run store: SQLite's integrity check, then which runs can still be read.

    Opens the store read-only. Exit 0: sound; 1: damage found (each run says how many of its samples still read); 2: not a readable store at all.
    """
    import json

    from earnest.live.store_check import check_store

    if fmt not in ("table", "json"):
        raise InputError(None, "--format", f"unknown format {fmt!r} (use table or json)")
    result = check_store(store)
    if fmt == "json":
        sys.stdout.write(json.dumps(result.to_json(), indent=2, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(result.render())
    raise typer.Exit(0 if result.ok else 1)


class ExportFormat(enum.StrEnum):
    jsonl = "jsonl"
    parquet = "parquet"
    inspect = "inspect"


@app.command("export")
def export(
    run_id: Annotated[str, typer.Argument(help="The run id, or latest.")],
    store: StoreOpt = DEFAULT_STORE,
    fmt: Annotated[
        ExportFormat,
        typer.Option(
            "--format",
            help="jsonl (recorded replies, what `earnest score` reads), parquet (one row per "
            "sample with its verdict, void samples included; needs --output and "
            "pyarrow: earnest[parquet]) or inspect (an Inspect AI .eval log; needs --output "
            "and inspect_ai: earnest[inspect]). Default: what --output's name says "
            "(.parquet, .eval), else jsonl.",
            case_sensitive=False,
        ),
    ] = ExportFormat.jsonl,
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write to FILE (parquet: required).")
    ] = None,
    no_redact: NoRedactOpt = False,
) -> None:
    """Print a run's judged replies as recorded-replies JSONL (what `earnest score` reads).

    One line per sample: fixture_id, response (the unwrapped reply), model, arm, epoch, order, profile, and did for an acted-out sample. Void samples have no reply and are left out, except an acted-out one that did something: its line keeps its did and says "void" (readers of recorded replies skip it). `--format parquet` writes one row per sample instead (docs/formats.md).
    """
    redaction(no_redact)
    import json

    from earnest.cli.output import format_for, guard_output, write_output
    from earnest.live.store import RunStore

    guard_output(output, reads=[store, *_store_companions(store)])
    fmt = format_for(fmt, output, param="fmt")
    if fmt is not ExportFormat.jsonl and output is None:
        raise InputError(None, "--format", f"{fmt.value} is binary: give --output FILE")
    with RunStore(store, create=False) as st:
        run_id = st.resolve(run_id)
        run = st.get_run(run_id)
        records = st.samples(run_id)
    if fmt is ExportFormat.inspect:
        from earnest.live.inspect_log import write_inspect_log

        assert output is not None
        write_inspect_log(run, records, output)
        return
    if fmt is ExportFormat.parquet:
        from earnest.parquet import SAMPLE_COLUMNS, sample_row, write_rows

        assert output is not None
        write_rows(output, SAMPLE_COLUMNS, (sample_row(r) for r in records))
        return
    lines = []
    for r in records:
        action = (r.judgement or {}).get("action")
        if r.void and not (isinstance(action, dict) and action.get("did") is not None):
            continue
        line = {
            "fixture_id": r.fixture_id,
            "response": r.reply or "",
            "model": r.model,
            "arm": r.arm,
            "epoch": r.epoch,
            "order": list(r.displayed_order),
            "profile": r.profile,
        }
        if r.void:
            # A crashed or timed-out acting agent: what it did so far, never a reply to judge
            # (readers of recorded replies skip "void" lines).
            line["void"] = {"kind": r.error_kind or "error", "error": r.error or ""}
        if isinstance(action, dict) and action.get("did") is not None:
            line["did"] = action["did"]  # an acted-out sample: what it did, for re-judging
        lines.append(scrub(json.dumps(line, ensure_ascii=False)) + "\n")
    if output is not None:
        write_output(output, "".join(lines))
        return
    sys.stdout.writelines(lines)


def _store_companions(store: Path) -> list[Path]:
    """SQLite's write-ahead log and shared memory beside ``store``: inputs as well."""
    return [store.with_name(store.name + "-wal"), store.with_name(store.name + "-shm")]


def _side(ref: str, store: Path, which: str) -> object:
    from earnest.live.compare import side_from_baseline_file, side_from_run
    from earnest.live.store import RunStore

    path = Path(ref)
    if path.is_file():
        return side_from_baseline_file(path)
    if not store.is_file():
        raise InputError(
            ref, which, f"neither a baseline file nor a run (no store at {store}; pass --store)"
        )
    with RunStore(store, create=False) as st:
        ref = st.resolve(ref)
        run = st.get_run(ref)
        return side_from_run(run, st.samples(ref))


@app.command("compare")
def compare(
    baseline: Annotated[
        str, typer.Argument(help="Baseline: a run id, latest, or a baseline file.")
    ],
    candidate: Annotated[
        str, typer.Argument(help="Candidate: a run id, latest, or a baseline file.")
    ],
    store: StoreOpt = DEFAULT_STORE,
    fmt: FormatOpt = "table",
    pair_profiles: Annotated[
        list[str] | None,
        typer.Option(
            "--pair-profiles",
            help="BASE=CAND: pair the candidate's profile CAND with the baseline's BASE "
            "(a model swap under a new profile name). Repeatable.",
        ),
    ] = None,
    no_redact: NoRedactOpt = False,
) -> None:
    """Pair samples by fixture, profile, arm and epoch; report regressions.

    A regression: a pass→fail flip, a pass-rate drop beyond the 95% interval, or a new unparseable reply. Exit 1 on any regression, 0 otherwise.
    """
    redaction(no_redact)
    from earnest.live.compare import Side
    from earnest.live.compare import compare as do_compare
    from earnest.report.runs import render_comparison

    _check_format(fmt)
    mapping: dict[str, str] = {}
    for text in pair_profiles or ():
        base_name, sep, cand_name = text.partition("=")
        if not sep or not base_name.strip() or not cand_name.strip():
            raise InputError(None, "--pair-profiles", f"{text!r}: expected BASE=CAND")
        mapping[cand_name.strip()] = base_name.strip()
    base_side = _side(baseline, store, "baseline")
    cand_side = _side(candidate, store, "candidate")
    assert isinstance(base_side, Side) and isinstance(cand_side, Side)
    result = do_compare(base_side, cand_side, pair_profiles=mapping)
    sys.stdout.write(scrub(render_comparison(result, fmt)))
    raise typer.Exit(result.exit_code())


@baseline_app.command("bless")
def bless(
    run_id: Annotated[str, typer.Argument(help="The run to bless (a run id, or latest).")],
    output: Annotated[Path, typer.Option("--output", "-o", help="Baseline file to write.")],
    store: StoreOpt = DEFAULT_STORE,
    force: Annotated[
        bool, typer.Option("--force", help="Replace an existing baseline file.")
    ] = False,
    no_redact: NoRedactOpt = False,
) -> None:
    """Write a run's verdicts as a baseline file (JSON, meant to be committed).

    `earnest compare BASELINE_FILE RUN_ID` then gates a later run against it.
    """
    redaction(no_redact)
    import json

    from earnest.cli.output import guard_output
    from earnest.files import write_text_atomic
    from earnest.live.compare import baseline_document
    from earnest.live.store import RunStore

    guard_output(output, reads=[store, *_store_companions(store)])
    if output.exists() and not force:
        raise InputError(output, None, "already exists (pass --force to replace it)")
    with RunStore(store, create=False) as st:
        run_id = st.resolve(run_id)
        info = st.get_run(run_id)
        records = st.samples(run_id)
    if len(records) < info.total or any(r.void for r in records):
        missing = info.total - len(records)
        voids = sum(1 for r in records if r.void)
        print(
            f"earnest: warning: run {run_id} has {missing} sample(s) missing and {voids} void;"
            " they will not be compared",
            file=sys.stderr,
        )
    doc = baseline_document(info, records)
    write_text_atomic(output, scrub(json.dumps(doc, indent=2, ensure_ascii=False) + "\n"))
    print(f"blessed {run_id}: {len(records)} sample(s) → {output}", file=sys.stderr)

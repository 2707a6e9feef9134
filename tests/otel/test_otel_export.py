"""`--otel`: verdicts and trajectory outcomes as gen_ai.evaluation.result events over OTLP/HTTP.

Every test runs earnest as a real subprocess against a receiver on 127.0.0.1 that decodes the
real protobuf (opentelemetry-proto's ExportLogsServiceRequest): nothing is checked on the
sending side alone.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from otlp_receiver import closed_port, otlp_receiver

from conftest import EXAMPLES, SRC, run_earnest

DATA = Path(__file__).parent.parent / "data" / "otel"
SCHEMA = "https://opentelemetry.io/schemas/1.37.0"
KEY = "sk-proj-" + "Zq7" * 16  # an OpenAI-shaped key, made up


def _suite(tmp_path: Path, otel: str = "") -> Path:
    suite = tmp_path / "suite"
    shutil.copytree(EXAMPLES / "suite", suite)
    if otel:
        with open(suite / "earnest.toml", "a", encoding="utf-8") as handle:
            handle.write("\n[otel]\n" + otel)
    return suite


def _no_env() -> dict[str, str]:
    # The developer's own OTel settings must not reach the receiver under test.
    return {"OTEL_EXPORTER_OTLP_ENDPOINT": "", "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT": ""}


def test_trajectory_outcomes_arrive_as_evaluation_events() -> None:
    with otlp_receiver() as (url, got):
        result = run_earnest(
            "trajectory", "score", "--format", "jsonl", "--otel-endpoint", url, str(DATA),
            env=_no_env(),
        )  # fmt: skip
    assert result.returncode == 0, result.stderr
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    events = got.events()
    assert got.paths and set(got.paths) == {"/v1/logs"}
    assert set(got.content_types) == {"application/x-protobuf"}
    assert len(events) == len(rows) == 4
    for row, event in zip(rows, events, strict=True):
        attrs = event["attributes"]
        assert event["event_name"] == "gen_ai.evaluation.result"
        assert event["schema_url"] == SCHEMA
        assert event["scope"] == "earnest"
        assert event["resource"]["service.name"] == "earnest"
        assert attrs["gen_ai.evaluation.name"] == "earnest.trajectory.outcome"
        assert attrs["gen_ai.evaluation.score.label"] == row["outcome"]
        assert attrs["gen_ai.evaluation.score.value"] == row["aggregate"]
        assert attrs["gen_ai.evaluation.explanation"] == row["reason"]
        assert attrs["earnest.trajectory.id"] == row["trajectory_id"]
        assert attrs["earnest.trajectory.format"] == "otlp-json"
        assert attrs["earnest.completion_without_effect"] is row["completion_without_effect"]
        assert (
            attrs["earnest.dimension.tool_grounding.score"]
            == (row["dimensions"]["tool_grounding"]["score"])
        )
    assert [e["attributes"]["gen_ai.evaluation.score.label"] for e in events].count(
        "completion_without_effect"
    ) == 3
    assert f"sent 4 evaluation events to {url}/v1/logs" in result.stderr


def test_nothing_is_sent_unless_asked(tmp_path: Path) -> None:
    with otlp_receiver() as (url, got):
        env = {"OTEL_EXPORTER_OTLP_ENDPOINT": url}
        result = run_earnest("trajectory", "score", str(DATA), env=env)
        assert result.returncode == 0, result.stderr
        checked = run_earnest("check", "--suite", str(_suite(tmp_path)), env=env)
        assert checked.returncode in (0, 1), checked.stderr
    assert got.paths == []
    assert "evaluation events" not in result.stderr + checked.stderr


def test_standard_endpoint_variable_with_otel_flag() -> None:
    with otlp_receiver() as (url, got):
        result = run_earnest(
            "trajectory", "score", "--otel", str(DATA / "copilot-style.otlp.json"),
            env={"OTEL_EXPORTER_OTLP_ENDPOINT": url, "OTEL_SERVICE_NAME": "ci-evals"},
        )  # fmt: skip
    assert result.returncode == 0, result.stderr
    (event,) = got.events()
    assert event["resource"]["service.name"] == "ci-evals"
    assert event["attributes"]["earnest.trajectory.id"] == "trace-list-err"


def test_secrets_in_explanations_are_redacted(tmp_path: Path) -> None:
    doc = json.loads((DATA / "copilot-style.otlp.json").read_text())
    spans = doc["resourceSpans"][0]["scopeSpans"][0]["spans"]
    command = f"OPENAI_API_KEY={KEY} ./deploy.sh && touch deployed.txt"
    spans[2]["attributes"] += [
        {"key": "gen_ai.tool.name", "value": {"stringValue": "bash"}},
        {"key": "gen_ai.tool.call.arguments", "value": {"stringValue": json.dumps({"command": command})}},
    ]  # fmt: skip
    spans[2]["name"] = "execute_tool bash"
    path = tmp_path / "trace.json"
    path.write_text(json.dumps(doc))
    with otlp_receiver() as (url, got):
        result = run_earnest(
            "trajectory", "score", "--format", "jsonl", "--no-redact", "--otel-endpoint", url,
            str(path),
        )  # fmt: skip
        redacted = run_earnest("trajectory", "score", "--otel-endpoint", url, str(path))
    assert result.returncode == 0 and redacted.returncode == 0, result.stderr
    assert KEY in json.loads(result.stdout)["reason"]  # the judgement saw the raw command
    raw, scrubbed = (e["attributes"]["gen_ai.evaluation.explanation"] for e in got.events())
    assert KEY in raw  # --no-redact is honoured, as by every other writer
    assert KEY not in scrubbed and "[REDACTED:" in scrubbed


def test_a_suite_otel_table_sends_nothing_and_picks_no_endpoint(tmp_path: Path) -> None:
    """A suite's [otel] table (any pull request can edit it) neither turns the export on nor
    sends the environment's bearer token to the host it names: only the command line or the
    user's environment choose (issue 22, item 5)."""
    replies = str(EXAMPLES / "suite" / "recorded" / "replies.jsonl")
    token = {"OTEL_EXPORTER_OTLP_HEADERS": "Authorization=Bearer%20ci-observability-token"}
    with otlp_receiver() as (planted, stolen), otlp_receiver() as (mine, got):
        suite = _suite(tmp_path, f'enabled = true\nendpoint = "{planted}"\n')
        env = {**_no_env(), **token}
        plain = run_earnest("score", "--suite", str(suite), "--format", "jsonl", replies, env=env)
        checked = run_earnest("check", "--suite", str(suite), env=env)
        # --otel sends, but to the environment's endpoint, never the suite's.
        asked = run_earnest(
            "score", "--suite", str(suite), "--format", "jsonl", "--otel", replies,
            env={**env, "OTEL_EXPORTER_OTLP_ENDPOINT": mine},
        )  # fmt: skip
    assert plain.returncode == checked.returncode == asked.returncode == 1  # failures held
    assert stolen.paths == [] and stolen.authorizations == []
    for result in (plain, checked, asked):
        assert "otel.enabled and otel.endpoint ignored" in result.stderr
        assert "earnest.toml" in result.stderr and "Traceback" not in result.stderr
    assert len(got.events()) == 27
    assert set(got.authorizations) == {"Bearer ci-observability-token"}  # the user's own


def test_reply_verdicts_from_score_with_the_suite_otel_table(tmp_path: Path) -> None:
    replies = str(EXAMPLES / "suite" / "recorded" / "replies.jsonl")
    plain = run_earnest(
        "score", "--suite", str(_suite(tmp_path / "a")), "--format", "jsonl", replies
    )
    with otlp_receiver() as (url, got):
        # The table's service name applies to an export the user turned on (EARNEST_OTEL=1).
        suite = _suite(tmp_path / "b", 'service_name = "pressure"\n')
        env = {**_no_env(), "EARNEST_OTEL": "1", "OTEL_EXPORTER_OTLP_ENDPOINT": url}
        result = run_earnest("score", "--suite", str(suite), "--format", "jsonl", replies, env=env)
    assert result.returncode == plain.returncode == 1  # the example holds failures
    assert result.stdout == plain.stdout
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    events = got.events()
    assert len(events) == len(rows) == 27
    for row, event in zip(rows, events, strict=True):
        attrs = event["attributes"]
        assert attrs["gen_ai.evaluation.name"] == "earnest.pressure.verdict"
        assert attrs["gen_ai.evaluation.score.label"] == row["verdict"]
        assert attrs["gen_ai.evaluation.score.value"] == (1.0 if row["verdict"] == "pass" else 0.0)
        assert attrs["gen_ai.evaluation.explanation"] == row["reason"]
        assert attrs["earnest.fixture.id"] == row["fixture_id"]
        assert attrs["earnest.model"] == row["model"]
        assert attrs["earnest.arm"] == row["arm"]
        assert attrs["earnest.replies.line"] == row["line"]
        assert event["resource"]["service.name"] == "pressure"


def test_check_sends_the_recorded_verdicts(tmp_path: Path) -> None:
    suite = _suite(tmp_path)
    with otlp_receiver() as (url, got):
        result = run_earnest("check", "--suite", str(suite), "--otel-endpoint", url)
    labels = [e["attributes"]["gen_ai.evaluation.score.label"] for e in got.events()]
    assert len(labels) == 27 and "pass" in labels and "fail-choice" in labels
    assert result.returncode == 1, result.stderr  # the exit status of check, as without --otel


def test_live_run_samples_carry_profile_and_run_id(tmp_path: Path) -> None:
    suite = _suite(tmp_path)
    replies = suite / "recorded" / "replies.jsonl"
    with otlp_receiver() as (url, got):
        result = run_earnest(
            "run", "--suite", str(suite), "--profile", f"recorded=replay:{replies}", "--samples", "1",
            "--store", str(tmp_path / "runs.db"), "--otel-endpoint", url, "--arms", "rule",
        )  # fmt: skip
    assert result.returncode in (0, 1), result.stderr
    run_id = result.stdout.strip().splitlines()[-1]
    events = got.events()
    assert events, result.stderr
    for event in events:
        attrs = event["attributes"]
        assert attrs["gen_ai.evaluation.name"] == "earnest.pressure.verdict"
        assert attrs["earnest.run.id"] == run_id
        assert attrs["earnest.profile"] == "recorded"
        assert attrs["earnest.arm"] == "rule"
        assert attrs["gen_ai.evaluation.score.label"] in (
            "pass", "fail-choice", "fail-citation", "fail-hybrid", "fail-unparseable", "void",
        )  # fmt: skip


def test_receiver_error_is_a_warning_and_changes_nothing(tmp_path: Path) -> None:
    args = ("trajectory", "score", "--format", "jsonl", "--fail-over", "0.9", str(DATA))
    plain = run_earnest(*args)
    with otlp_receiver(status=500) as (url, got):
        result = run_earnest(*args, "--otel-endpoint", url)
    assert got.paths == ["/v1/logs"]  # it was tried once, then not again
    assert result.returncode == plain.returncode == 0
    assert result.stdout == plain.stdout
    assert (
        f"earnest: warning: OpenTelemetry export to {url}/v1/logs failed: 4 of 4 evaluation "
        "events not delivered" in result.stderr
    )
    assert "500" in result.stderr and "Traceback" not in result.stderr


def test_receiver_down_keeps_a_failing_check_failing(tmp_path: Path) -> None:
    suite = _suite(tmp_path)
    plain = run_earnest("check", "--suite", str(suite))
    url = f"http://127.0.0.1:{closed_port()}"
    result = run_earnest(
        "check", "--suite", str(suite), "--otel-endpoint", url,
        env={"OTEL_EXPORTER_OTLP_TIMEOUT": "1"},
    )  # fmt: skip
    assert result.returncode == plain.returncode == 1
    assert result.stdout == plain.stdout
    assert "27 of 27 evaluation events not delivered" in result.stderr
    assert f"cannot connect to 127.0.0.1:{url.rsplit(':', 1)[1]}: Connection refused" in (
        result.stderr
    )
    assert "Traceback" not in result.stderr


def test_receiver_down_keeps_a_pass_a_pass(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{closed_port()}"
    result = run_earnest(
        "trajectory", "score", "--otel-endpoint", url, str(DATA / "agent-runs.otlp.jsonl"),
        env={"OTEL_EXPORTER_OTLP_TIMEOUT": "1"},
    )  # fmt: skip
    assert result.returncode == 0
    assert "2 of 2 evaluation events not delivered" in result.stderr


def test_otel_table_is_checked_like_every_table(tmp_path: Path) -> None:
    suite = _suite(tmp_path, "enabeld = true\n")
    result = run_earnest("lint", "--suite", str(suite))
    assert result.returncode == 2
    assert "otel.enabeld: unknown key enabeld — did you mean enabled?" in result.stderr
    bad = _suite(tmp_path / "2", 'endpoint = "collector:4318"\n')
    result = run_earnest("score", "--suite", str(bad), str(bad / "recorded" / "replies.jsonl"))
    assert result.returncode == 2
    assert "otel.endpoint" in result.stderr and "not an http(s) URL" in result.stderr


def test_bad_endpoint_option_is_exit_2_before_scoring() -> None:
    result = run_earnest("trajectory", "score", "--otel-endpoint", "localhost:4318", str(DATA))
    assert result.returncode == 2
    assert "--otel-endpoint" in result.stderr and "not an http(s) URL" in result.stderr
    assert result.stdout == ""


def test_missing_sdk_is_a_clear_exit_2(tmp_path: Path) -> None:
    # A package that shadows the SDK and fails to import, as a machine without earnest[otel].
    shadow = tmp_path / "shadow" / "opentelemetry"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text(
        "raise ImportError('not installed', name='opentelemetry')\n"
    )
    env = {"PYTHONPATH": f"{shadow.parent}:{SRC}"}
    result = run_earnest("trajectory", "score", "--otel", str(DATA), env=env)
    assert result.returncode == 2
    assert (
        "pip install 'earnest[otel]' (from a checkout: pip install -e '.[otel]')" in result.stderr
    )
    assert "Traceback" not in result.stderr
    assert run_earnest("trajectory", "score", str(DATA), env=env).returncode == 0

"""Which endpoint an export goes to, and the event attributes, without the SDK."""

from __future__ import annotations

import pytest

from earnest.errors import InputError
from earnest.otel.config import OtelConfig, ignored_keys, otel_config_from_table, resolve
from earnest.otel.events import SCHEMA_URL, SEMCONV_VERSION, trajectory_event, verdict_event


def test_nothing_is_asked_by_default_whatever_the_environment() -> None:
    env = {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}
    assert resolve(None, flag=False, endpoint=None, env=env) is None
    assert resolve(OtelConfig(endpoint="http://c:4318"), flag=False, endpoint=None, env=env) is None


@pytest.mark.parametrize(
    ("config", "option", "env", "url"),
    [
        (None, "http://a:1", {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://b:2"}, "http://a:1/v1/logs"),
        # A suite's endpoint is never used: the environment's is (issue 22, item 5).
        (OtelConfig(endpoint="http://c:3/"), None, {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://b:2"},
         "http://b:2/v1/logs"),
        (OtelConfig(endpoint="http://c:3/"), None, {}, "http://localhost:4318/v1/logs"),
        (None, None, {"OTEL_EXPORTER_OTLP_LOGS_ENDPOINT": "http://l:4/custom",
                      "OTEL_EXPORTER_OTLP_ENDPOINT": "http://b:2"}, "http://l:4/custom"),
        (None, None, {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://b:2/v1/logs"}, "http://b:2/v1/logs"),
        (None, None, {}, "http://localhost:4318/v1/logs"),
    ],
)  # fmt: skip
def test_endpoint_precedence(
    config: OtelConfig | None, option: str | None, env: dict[str, str], url: str
) -> None:
    target = resolve(config, flag=True, endpoint=option, env=env)
    assert target is not None and target.endpoint == url


def test_only_the_command_line_or_the_users_environment_turn_it_on() -> None:
    suite = OtelConfig(enabled=True, endpoint="http://203.0.113.9:4318")
    assert resolve(suite, flag=False, endpoint=None, env={}) is None
    assert ignored_keys(suite) == ("enabled", "endpoint")
    assert ignored_keys(OtelConfig(service_name="x")) == ()
    on = resolve(suite, flag=False, endpoint=None, env={"EARNEST_OTEL": "1"})
    assert on is not None and on.endpoint == "http://localhost:4318/v1/logs"
    assert resolve(None, flag=False, endpoint=None, env={"EARNEST_OTEL": "0"}) is None


def test_table_errors_name_the_key() -> None:
    with pytest.raises(InputError, match=r"otel\.timeout.*above 0"):
        otel_config_from_table({"timeout": 0}, file="earnest.toml")
    with pytest.raises(InputError, match=r"tool\.earnest\.otel\.enabled.*true or false"):
        otel_config_from_table({"enabled": "yes"}, file="pyproject.toml", prefix="tool.earnest.")
    with pytest.raises(InputError, match=r"did you mean endpoint"):
        otel_config_from_table({"endpont": "http://x"}, file="earnest.toml")


def test_pinned_version_and_void_samples() -> None:
    assert f"https://opentelemetry.io/schemas/{SEMCONV_VERSION}" == SCHEMA_URL
    void = verdict_event({"fixture_id": "F", "verdict": None, "reason": "timeout"}).attributes
    assert void["gen_ai.evaluation.score.label"] == "void"
    assert "gen_ai.evaluation.score.value" not in void
    assert trajectory_event({"aggregate": True}).attributes == {
        "gen_ai.evaluation.name": "earnest.trajectory.outcome"
    }

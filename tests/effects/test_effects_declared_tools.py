"""The user's own tools, declared by class (state_change / read / check) in TOML, on the
command line and to the integrations, and the default for a tool declared nowhere."""

from __future__ import annotations

from pathlib import Path

import pytest

from earnest.effects import (
    DEFAULT_REGISTRY,
    EffectClass,
    EffectGate,
    EffectGateConfig,
    EvaluationDecision,
    EvaluationResult,
    load_effect_gate_config,
    observe_tool_result,
    tool_declarations,
)
from earnest.effects.config import parse_tool_options
from earnest.errors import InputError
from earnest.integrations.tools import declared_kinds, tool_kind, with_tools

CABIN = {"tool_name": "modify_cabin", "args": {"reservation_id": "ZFA04Y"},
         "output": '{"cabin": "business"}'}  # fmt: skip
DONE = "Done: reservation ZFA04Y is now in business class."


def judge(config: EffectGateConfig, calls: list[dict[str, object]]) -> EvaluationDecision:
    gate = EffectGate(config, env={})
    gate.reset()
    gate.record(calls)
    done = EvaluationResult(EvaluationDecision.COMPLETE, 1.0, "final answer")
    return gate.apply(done, content=DONE, request="Update reservation ZFA04Y to business.").decision


def test_an_undeclared_tool_is_a_read_and_a_declared_state_change_backs_done() -> None:
    undeclared = observe_tool_result(CABIN, DEFAULT_REGISTRY)
    assert (undeclared.kind, undeclared.evidence, undeclared.grounding) == (None, (), True)
    assert judge(EffectGateConfig(enabled=True), [CABIN]) is EvaluationDecision.RETRY
    declared = DEFAULT_REGISTRY.with_overrides({"modify_cabin": "state_change"})
    seen = observe_tool_result(CABIN, declared)
    assert seen.kind == "action" and [e.effect_class for e in seen.evidence] == [
        EffectClass.WORKSPACE_DELTA
    ]
    config = EffectGateConfig(enabled=True, registry=declared)
    assert judge(config, [CABIN]) is EvaluationDecision.COMPLETE


def test_the_three_classes_map_onto_kinds() -> None:
    registry = DEFAULT_REGISTRY.with_overrides(
        {"cancel_reservation": "state_change", "get_reservation_details": "read",
         "verify_payment": "check"}
    )  # fmt: skip
    kinds = [registry.kind_of(n) for n in
             ("cancel_reservation", "get_reservation_details", "verify_payment")]  # fmt: skip
    assert kinds == ["action", "read", "test"]
    check = observe_tool_result({"tool_name": "verify_payment", "args": {}}, registry)
    assert [e.effect_class for e in check.evidence] == [EffectClass.VERIFIED_CHECK]
    with pytest.raises(ValueError, match="'mutation'"):
        DEFAULT_REGISTRY.with_overrides({"x": "mutation"})


def test_effects_tools_take_classes(tmp_path: Path) -> None:
    (tmp_path / "earnest.toml").write_text(
        '[effects]\nenabled = true\n[effects.tools]\nmodify_cabin = "state_change"\n'
        'get_reservation_details = "read"\n'
    )
    config = load_effect_gate_config(tmp_path)
    assert config.registry.kind_of("get_reservation_details") == "read"
    assert judge(config, [CABIN]) is EvaluationDecision.COMPLETE


def test_a_bad_class_names_the_file_and_the_key(tmp_path: Path) -> None:
    path = tmp_path / "earnest.toml"
    path.write_text('[effects.tools]\ncancel_reservation = "mutation"\n')
    with pytest.raises(InputError) as caught:
        tool_declarations(tmp_path)
    assert (
        caught.value.file == str(path) and caught.value.place == "effects.tools.cancel_reservation"
    )
    assert "state_change" in caught.value.message


def test_command_line_declarations_override_the_file(tmp_path: Path) -> None:
    (tmp_path / "earnest.toml").write_text(
        '[effects]\nunknown_shell = "ignore"\n[effects.tools]\ncancel_reservation = "read"\n'
    )
    declared = tool_declarations(tmp_path, ["cancel_reservation=state_change", "audit = check"])
    assert declared.tools == (("audit", "test"), ("cancel_reservation", "action"))
    assert declared.unknown_shell == "ignore"
    assert declared.registry().kind_of("cancel_reservation") == "action"
    assert tool_declarations(None).registry() is DEFAULT_REGISTRY


@pytest.mark.parametrize(
    ("value", "words"),
    [("cancel_reservation", "expected NAME=CLASS"), ("=read", "expected NAME=CLASS"),
     ("x=mutation", "unknown kind 'mutation'")],
)  # fmt: skip
def test_bad_command_line_declarations(value: str, words: str) -> None:
    with pytest.raises(InputError) as caught:
        parse_tool_options([value])
    assert caught.value.place == "--tool" and words in caught.value.message


class _Annotations:
    def __init__(self, read_only: bool | None, destructive: bool | None = None) -> None:
        self.readOnlyHint = read_only
        self.destructiveHint = destructive


class _McpTool:
    def __init__(self, name: str, annotations: object = None, metadata: object = None) -> None:
        self.name = name
        self.annotations = annotations
        self.metadata = metadata


def test_tool_definitions_declare_themselves() -> None:
    tools = [
        _McpTool("get_flight_status", _Annotations(True)),
        _McpTool("cancel_reservation", _Annotations(False, True)),
        _McpTool("book", metadata={"annotations": {"destructiveHint": True}}),
        _McpTool("search_docs", metadata={"readOnlyHint": True}),
        _McpTool("send_invoice", metadata={"earnest": "state_change"}),
        _McpTool("plain"),
    ]
    assert declared_kinds(tools) == {
        "get_flight_status": "read",
        "cancel_reservation": "action",
        "book": "action",
        "search_docs": "read",
        "send_invoice": "action",
    }
    assert tool_kind(_McpTool("plain")) is None
    with pytest.raises(ValueError, match="'mutation'"):
        declared_kinds({"x": "mutation"})


def test_with_tools_layers_over_the_configs_registry() -> None:
    base = EffectGateConfig(enabled=True, registry=DEFAULT_REGISTRY.with_overrides({"a": "read"}))
    config = with_tools(base, {"cancel_reservation": "state_change"})
    assert config.registry.kind_of("a") == "read"
    assert config.registry.kind_of("cancel_reservation") == "action"
    assert with_tools(base, None) is base

"""The tool-name registry: every listed stack, case folding, MCP names, overrides."""

from __future__ import annotations

import pytest

from earnest.effects import DEFAULT_REGISTRY, STACKS, TOOL_KINDS, ToolRegistry

EXPECTED = {
    # Claude Code
    "Write": "write", "Edit": "edit", "MultiEdit": "edit", "NotebookEdit": "edit",
    "Bash": "shell", "Read": "read", "Grep": "search", "Glob": "list", "LS": "list",
    "WebFetch": "web", "WebSearch": "web", "Task": "task", "TodoWrite": "todo",
    "BashOutput": "shell_output", "KillShell": "noop",
    # Codex
    "shell": "shell", "apply_patch": "patch", "exec_command": "shell",
    # Gemini CLI
    "write_file": "write", "replace": "edit", "run_shell_command": "shell",
    "read_file": "read", "read_many_files": "read", "list_directory": "list", "glob": "list",
    "search_file_content": "search", "web_fetch": "web", "google_web_search": "web",
    # OpenHands
    "str_replace_editor": "editor", "execute_bash": "shell",
    # SWE-agent
    "edit": "edit", "create": "write", "bash": "shell", "submit": "submit",
    # Claude managed agents
    "read": "read", "write": "write",
    # Victor-style
    "patch": "patch", "test": "test",
}  # fmt: skip


@pytest.mark.parametrize(("name", "kind"), sorted(EXPECTED.items()))
def test_common_stacks_map_to_canonical_kinds(name: str, kind: str):
    assert DEFAULT_REGISTRY.kind_of(name) == kind


def test_every_builtin_kind_is_a_known_kind():
    for stack, names in STACKS.items():
        for name, kind in names.items():
            assert kind in TOOL_KINDS, (stack, name, kind)


def test_lookup_folds_case_and_reads_mcp_tool_names():
    assert DEFAULT_REGISTRY.kind_of("WRITE_FILE") == "write"
    assert DEFAULT_REGISTRY.kind_of("mcp__filesystem__write_file") == "write"
    assert DEFAULT_REGISTRY.kind_of("mcp__github__create_issue") is None
    assert DEFAULT_REGISTRY.kind_of("totally_unknown_tool") is None


def test_with_overrides_returns_a_new_registry():
    custom = DEFAULT_REGISTRY.with_overrides({"deploy_site": "shell", "Write": "read"})
    assert custom.kind_of("deploy_site") == "shell"
    assert custom.kind_of("DEPLOY_SITE") == "shell"
    assert custom.kind_of("Write") == "read"
    assert DEFAULT_REGISTRY.kind_of("deploy_site") is None
    assert DEFAULT_REGISTRY.kind_of("Write") == "write"


def test_with_overrides_rejects_unknown_kinds_naming_the_tool():
    with pytest.raises(ValueError, match=r"'deploy_site'.*'teleport'"):
        DEFAULT_REGISTRY.with_overrides({"deploy_site": "teleport"})


def test_unknown_shell_policy_travels_with_the_registry():
    strict = DEFAULT_REGISTRY.with_overrides({}, unknown_shell="ignore")
    assert strict.unknown_shell == "ignore"
    assert strict.with_overrides({"x": "read"}).unknown_shell == "ignore"
    assert ToolRegistry().unknown_shell == "delta"


def test_registry_mapping_is_read_only():
    with pytest.raises(TypeError):
        DEFAULT_REGISTRY.kinds["Write"] = "read"  # type: ignore[index]

"""Tool names of the common agent stacks, mapped to canonical kinds.

A *kind* says what a tool does, whatever the stack calls it:

========================  ==============================================================
kind                      meaning (and the evidence a successful call gives)
========================  ==============================================================
``write`` ``edit``        creates / changes the file named in its arguments (delta)
``delete``                removes the file named in its arguments (delta)
``move``                  moves ``source`` to ``destination`` (delta on both)
``patch``                 applies a patch; paths come from its headers (delta)
``editor``                OpenHands' ``str_replace_editor``: judged by its ``command``
``shell``                 runs a shell command, judged by :mod:`earnest.effects.shell`
``exec``                  runs code that is not a shell command (treated as an unknown command)
``action``                changes state outside the workspace (an API call that books, sends,
                          deploys): an effect without file artifacts; register such tools in
                          ``[effects.tools]``
``test``                  a dedicated test-runner tool (verified check)
``read`` ``list``         reads files / lists folders (grounding only)
``search`` ``web``        searches the workspace / the web (grounding only)
``task``                  delegates to a sub-agent (grounding only)
``shell_output``          reads a background shell's output (grounding only)
``todo`` ``plan`` ``ask`` bookkeeping and questions to the user (nothing)
``submit`` ``noop``       ends the episode / does nothing observable (nothing)
========================  ==============================================================

Lookup tries the exact name, then its lower-case form, then the last segment of an MCP name
(``mcp__filesystem__write_file`` → ``write_file``). Names are case-folded because stacks differ
only in case (Claude Code ``Write``, managed agents ``write``).

A user's own tools (``cancel_reservation``, ``send_invoice``) are declared with one of three
*classes*, each a kind above (:data:`TOOL_CLASSES`): ``state_change`` → ``action`` (an effect),
``read`` → ``read`` (grounding), ``check`` → ``test`` (a verified check when it succeeds).
A kind's own name is accepted too. An **undeclared** tool is read as a ``read``: its successful
call is tool feedback (it grounds an answer) but never an effect, so a "done" on a request for
a change, backed only by undeclared tools, is sent back. The one exception is a claimed
action in the final message (*I cancelled ...*): an undeclared tool whose name carries the
verb backs it (:mod:`earnest.effects.actions`), which a declaration as ``read`` takes away.
Counting an unknown success as an effect instead would let any lookup back any claim, which
is the failure the gate exists to catch; the cost of the conservative default is a retry,
bounded by ``max_downgrades``, until the tool is declared.

Example:
    >>> DEFAULT_REGISTRY.kind_of("MultiEdit"), DEFAULT_REGISTRY.kind_of("run_shell_command")
    ('edit', 'shell')
    >>> DEFAULT_REGISTRY.with_overrides({"deploy_site": "shell"}).kind_of("deploy_site")
    'shell'
    >>> DEFAULT_REGISTRY.with_overrides({"cancel_reservation": "state_change"}).kind_of(
    ...     "cancel_reservation")
    'action'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

TYPE_CHECKING = False  # not typing's: importing typing costs every stop ~3 ms
if TYPE_CHECKING:  # the shell grammar is imported only when a shell command is judged
    from earnest.effects.shell import UnknownPolicy

TOOL_KINDS = frozenset(
    {
        "write", "edit", "delete", "move", "patch", "editor", "shell", "exec", "action", "test",
        "read", "list", "search", "web", "task", "shell_output", "todo", "plan", "ask",
        "submit", "noop",
    }
)  # fmt: skip
DELTA_TOOL_KINDS = frozenset({"write", "edit", "delete", "move", "patch"})
GROUNDING_KINDS = frozenset({"read", "list", "search", "web", "task", "shell_output"})
"""Kinds whose successful calls ground an answer in tool feedback."""
SILENT_KINDS = frozenset({"todo", "plan", "ask", "submit", "noop"})
"""Kinds that are neither effects nor grounding."""
TOOL_CLASSES: Mapping[str, str] = MappingProxyType(
    {"state_change": "action", "read": "read", "check": "test"}
)
"""The classes a user declares their own tools with → the kind each stands for."""


def canonical_kind(value: str) -> str | None:
    """The kind a declaration names: a class of :data:`TOOL_CLASSES` or a kind; None if neither.

    Example:
        >>> canonical_kind("state_change"), canonical_kind("check"), canonical_kind("write")
        ('action', 'test', 'write')
        >>> canonical_kind("mutation") is None
        True
    """
    if value in TOOL_CLASSES:
        return TOOL_CLASSES[value]
    return value if value in TOOL_KINDS else None


def expected_kinds() -> str:
    """The declarations accepted, for error messages: the classes, then the kinds."""
    return ", ".join([*TOOL_CLASSES, *sorted(TOOL_KINDS - set(TOOL_CLASSES))])


_STACKS: dict[str, dict[str, str]] = {
    "claude-code": {
        "Write": "write", "Edit": "edit", "MultiEdit": "edit", "NotebookEdit": "edit",
        "Bash": "shell", "BashOutput": "shell_output", "TaskOutput": "shell_output",
        "KillShell": "noop", "KillBash": "noop", "Read": "read", "NotebookRead": "read",
        "Grep": "search", "Glob": "list", "LS": "list", "WebFetch": "web", "WebSearch": "web",
        "Task": "task", "Agent": "task", "TodoWrite": "todo", "TodoRead": "todo",
        "ExitPlanMode": "plan", "EnterPlanMode": "plan", "AskUserQuestion": "ask",
        "Skill": "noop", "SlashCommand": "noop", "ListMcpResourcesTool": "list",
        "ReadMcpResourceTool": "read",
    },
    "claude-managed-agents": {
        "bash": "shell", "read": "read", "write": "write", "edit": "edit", "glob": "list",
        "grep": "search", "web_fetch": "web", "web_search": "web",
    },
    "codex": {
        "shell": "shell", "container.exec": "shell", "exec_command": "shell",
        "local_shell": "shell", "unified_exec": "shell", "write_stdin": "shell_output",
        "apply_patch": "patch", "update_plan": "plan", "view_image": "read",
        "web_search": "web",
    },
    "gemini-cli": {
        "write_file": "write", "replace": "edit", "edit": "edit", "run_shell_command": "shell",
        "read_file": "read", "read_many_files": "read", "list_directory": "list",
        "glob": "list", "search_file_content": "search", "grep": "search", "web_fetch": "web",
        "google_web_search": "web", "save_memory": "noop", "write_todos": "todo",
        "activate_skill": "noop",
    },
    "openhands": {
        "str_replace_editor": "editor", "execute_bash": "shell", "execute_ipython_cell": "exec",
        "edit_file": "edit", "browser": "web", "web_read": "web", "fetch": "web",
        "finish": "submit", "think": "noop", "delegate": "task", "task_tracker": "todo",
        "file_editor": "editor",
    },
    "anthropic-api": {
        "str_replace_based_edit_tool": "editor", "str_replace_editor": "editor",
        "bash": "shell", "web_search": "web", "web_fetch": "web",
    },
    "swe-agent": {
        "edit": "edit", "create": "write", "bash": "shell", "submit": "submit",
        "open": "read", "goto": "read", "scroll_up": "read", "scroll_down": "read",
        "find_file": "search", "search_dir": "search", "search_file": "search",
        "insert": "edit", "append": "edit", "view": "read", "filemap": "read",
        "exit_forfeit": "submit", "exit": "submit",
    },
    "inspect-ai": {  # inspect_ai.tool's standard tools
        "bash": "shell", "bash_session": "shell", "python": "exec", "text_editor": "editor",
        "think": "noop", "submit": "submit", "web_search": "web", "web_browser_go": "web",
        "web_browser_click": "web", "web_browser_type": "web", "web_browser_scroll": "web",
        "web_browser_back": "web", "web_browser_forward": "web", "web_browser_refresh": "web",
        "web_browser_type_submit": "web",
    },
    "mcp-filesystem": {
        "write_file": "write", "edit_file": "edit", "create_directory": "write",
        "move_file": "move", "read_file": "read", "read_text_file": "read",
        "read_media_file": "read", "read_multiple_files": "read", "list_directory": "list",
        "list_directory_with_sizes": "list", "directory_tree": "list", "search_files": "search",
        "get_file_info": "read", "list_allowed_directories": "list",
    },
    "antigravity": {
        "write_to_file": "write", "replace_file_content": "edit",
        "multi_replace_file_content": "edit", "view_file": "read", "list_dir": "list",
        "search_web": "web", "run_command": "shell", "grep_search": "search",
        "find_by_name": "search", "read_url_content": "web", "list_permissions": "noop",
    },
    "victor": {
        "write": "write", "edit": "edit", "patch": "patch", "shell": "shell", "test": "test",
        "read": "read", "ls": "list", "create_file": "write", "replace_in_file": "edit",
        "delete_file": "delete", "remove_file": "delete", "run_command": "shell",
        "run_tests": "test", "code_search": "search", "semantic_code_search": "search",
        "overview": "read", "web": "web", "search": "search", "grep": "search",
    },
    "cursor-cline-aider": {
        "edit_file": "edit", "search_replace": "edit", "delete_file": "delete",
        "run_terminal_cmd": "shell", "execute_command": "shell", "read_file": "read",
        "list_dir": "list", "codebase_search": "search", "grep_search": "search",
        "file_search": "search", "replace_in_file": "edit", "write_to_file": "write",
        "list_files": "list", "search_files": "search", "attempt_completion": "submit",
        "ask_followup_question": "ask", "new_task": "task", "browser_action": "web",
    },
    "opencode": {
        "bash": "shell", "read": "read", "write": "write", "edit": "edit", "multiedit": "edit",
        "apply_patch": "patch", "patch": "patch", "glob": "list", "grep": "search",
        "list": "list", "todowrite": "todo", "todoread": "todo", "webfetch": "web",
        "websearch": "web", "codesearch": "search", "task": "task", "skill": "noop",
        "question": "ask", "invalid": "noop",
    },
}  # fmt: skip


def _build_default() -> dict[str, str]:
    table: dict[str, str] = {}
    for names in _STACKS.values():
        for name, kind in names.items():
            table.setdefault(name, kind)
            table.setdefault(name.lower(), kind)
    return table


@dataclass(frozen=True, eq=False)
class ToolRegistry:
    """Tool name → canonical kind, plus the policy for unknown shell commands.

    Immutable: :meth:`with_overrides` returns a new registry.
    """

    kinds: Mapping[str, str] = field(default_factory=lambda: MappingProxyType(_build_default()))
    unknown_shell: UnknownPolicy = "delta"

    def kind_of(self, name: str) -> str | None:
        """The canonical kind of tool ``name``, or None when unknown."""
        kinds = self.kinds
        kind = kinds.get(name)
        if kind is None:
            lowered = name.lower()
            kind = kinds.get(lowered)
            if kind is None and lowered.startswith("mcp__"):
                kind = kinds.get(lowered.rsplit("__", 1)[-1])
        return kind

    def with_overrides(
        self, mapping: Mapping[str, str], *, unknown_shell: UnknownPolicy | None = None
    ) -> ToolRegistry:
        """A registry with ``mapping`` (tool name → kind or class) layered over this one.

        Raises ``ValueError`` naming the tool when a value is neither a class of
        :data:`TOOL_CLASSES` nor one of :data:`TOOL_KINDS`.
        """
        table = dict(self.kinds)
        for name, value in mapping.items():
            kind = canonical_kind(value)
            if kind is None:
                raise ValueError(
                    f"tool {name!r}: unknown kind {value!r} (expected one of {expected_kinds()})"
                )
            table[name] = kind
            table[name.lower()] = kind
        policy = self.unknown_shell if unknown_shell is None else unknown_shell
        return ToolRegistry(MappingProxyType(table), policy)


DEFAULT_REGISTRY = ToolRegistry()
"""The registry of every stack listed in :data:`STACKS`."""

STACKS: Mapping[str, Mapping[str, str]] = MappingProxyType(
    {k: MappingProxyType(v) for k, v in _STACKS.items()}
)
"""The built-in names, per agent stack (documentation and tests)."""


__all__ = [
    "DEFAULT_REGISTRY",
    "DELTA_TOOL_KINDS",
    "GROUNDING_KINDS",
    "SILENT_KINDS",
    "STACKS",
    "TOOL_CLASSES",
    "TOOL_KINDS",
    "ToolRegistry",
    "canonical_kind",
    "expected_kinds",
]

"""The session-scoped ledger: evidence accumulates across turns, reads kept apart."""

from __future__ import annotations

from earnest.effects import DEFAULT_REGISTRY, EffectClass, EffectLedger


def test_evidence_accumulates_across_turns():
    ledger = EffectLedger()
    ledger.record([{"tool_name": "Edit", "args": {"file_path": "a.py"}}], turn_index=1)
    ledger.record([{"tool_name": "Bash", "args": {"command": "pytest"}}], turn_index=2)
    ledger.record([], turn_index=3)  # a summary turn with no tools keeps what came before
    assert [(e.kind, e.turn_index) for e in ledger.effects] == [("edit", 1), ("test", 2)]
    assert [e.kind for e in ledger.checks] == ["test"]
    assert list(ledger.artifacts) == ["a.py"]


def test_counts_attempted_and_succeeded_and_reads_separately():
    ledger = EffectLedger()
    ledger.record(
        [
            {"tool_name": "Read", "args": {"file_path": "a.py"}},
            {"tool_name": "Write", "args": {"file_path": "b.py"}, "is_error": True},
            {"tool_name": "Bash", "args": {"command": "ls"}},
            {"tool_name": "TodoWrite", "args": {"todos": []}},
        ],
        turn_index=1,
    )
    assert (ledger.attempted, ledger.succeeded) == (4, 3)
    assert ledger.effects == ()
    assert [r.tool_name for r in ledger.reads] == ["Read", "Bash"]
    assert ledger.reads[0].paths == ("a.py",)
    assert ledger.has_read_evidence()


def test_shell_calls_are_kept_with_their_outcome_even_when_they_fail():
    ledger = EffectLedger()
    ledger.record(
        [
            {"tool_name": "Bash", "args": {"command": "pytest -q"}, "is_error": True},
            {"tool_name": "Bash", "args": {"command": "ruff check ."}},
        ],
        turn_index=4,
    )
    assert [(c.command, c.success, c.turn_index) for c in ledger.shell_calls] == [
        ("pytest -q", False, 4),
        ("ruff check .", True, 4),
    ]


def test_latest_evidence_per_artifact_is_last():
    ledger = EffectLedger()
    ledger.record([{"tool_name": "Write", "args": {"file_path": "a"}},
                   {"tool_name": "Write", "args": {"file_path": "b"}},
                   {"tool_name": "Edit", "args": {"file_path": "a"}}])  # fmt: skip
    assert list(ledger.artifacts) == ["b", "a"]
    assert ledger.deltas_for("a") is not None and ledger.deltas_for("a").kind == "edit"  # type: ignore[union-attr]
    assert ledger.deltas_for("zzz") is None


def test_deltas_without_artifacts_are_listed():
    ledger = EffectLedger()
    ledger.record([{"tool_name": "Bash", "args": {"command": "git commit -m x && npm install"}}])
    assert [e.kind for e in ledger.pathless_deltas] == ["vcs", "install"]
    assert all(e.effect_class is EffectClass.WORKSPACE_DELTA for e in ledger.pathless_deltas)


def test_items_that_are_not_mappings_are_skipped_and_counted():
    ledger = EffectLedger()
    ledger.record(["Write", None, 3, {"tool_name": "Write", "args": {"file_path": "a"}}])
    assert (ledger.attempted, ledger.skipped, len(ledger.effects)) == (1, 3, 1)


def test_reset_forgets_everything():
    ledger = EffectLedger()
    ledger.record(
        [{"tool_name": "Write", "args": {"file_path": "a"}}, {"tool_name": "Read", "args": {}}]
    )
    version = ledger.version
    ledger.reset()
    assert (ledger.attempted, ledger.succeeded, ledger.effects, ledger.reads) == (0, 0, (), [])
    assert ledger.artifacts == {} and ledger.version == 0 and version == 2


def test_summary_is_bounded():
    ledger = EffectLedger()
    ledger.record([{"tool_name": "Write", "args": {"file_path": f"f{i}"}} for i in range(50)])
    summary = ledger.summary()
    assert summary["effects"] == 50 and len(summary["recent_evidence"]) == 5
    assert summary["recent_evidence"][-1]["artifact_paths"] == ["f49"]


def test_the_ledger_uses_its_registry():
    ledger = EffectLedger(DEFAULT_REGISTRY.with_overrides({"save": "write"}))
    ledger.record([{"tool_name": "save", "args": {"path": "x"}}])
    assert list(ledger.artifacts) == ["x"]

"""The lenient v1 grounded-claim check and file references."""

from __future__ import annotations

from pathlib import Path

from earnest.effects import EffectLedger, GroundedClaimChecker, Workspace, file_references


def ledger_with(*results: dict[str, object]) -> EffectLedger:
    ledger = EffectLedger()
    ledger.record(list(results))
    return ledger


def test_file_references_finds_paths_and_named_files():
    text = (
        "See `src/app.py:12`, README.md and ./docs/guide.rst. The Makefile too; "
        "not https://example.com/a.html, not e.g. 1.2.3, and (tests/test_x.py)."
    )
    assert file_references(text) == (
        "src/app.py", "README.md", "./docs/guide.rst", "Makefile", "tests/test_x.py",
    )  # fmt: skip


def test_file_references_are_capped():
    text = " ".join(f"f{i}.py" for i in range(50))
    assert len(file_references(text, limit=7)) == 7


def test_a_direct_answer_with_no_tool_calls_is_grounded():
    result = GroundedClaimChecker().check("4", EffectLedger(), None)
    assert result.grounded and result.basis == "direct_answer_no_tools"


def test_read_evidence_grounds_an_answer():
    result = GroundedClaimChecker().check(
        "It parses TOML.", ledger_with({"tool_name": "Read", "args": {"file_path": "x"}}), None
    )
    assert result.basis == "read_evidence"


def test_failed_calls_alone_do_not_ground():
    ledger = ledger_with({"tool_name": "Read", "args": {"file_path": "x"}, "is_error": True})
    assert not GroundedClaimChecker().is_grounded("It parses TOML.", ledger, None)


def test_existing_file_references_ground_when_reads_failed(tmp_path: Path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "config.py").write_text("x")
    ledger = ledger_with({"tool_name": "Read", "args": {"file_path": "x"}, "is_error": True})
    result = GroundedClaimChecker().check(
        "The loader is in `src/config.py`; see also missing.py.", ledger, Workspace(tmp_path)
    )
    assert result.basis == "file_references" and result.references == ("src/config.py",)


def test_references_outside_the_workspace_never_ground(tmp_path: Path):
    root = tmp_path / "ws"
    root.mkdir()
    (tmp_path / "secret.py").write_text("s")
    (root / "link.py").symlink_to(tmp_path / "secret.py")
    ledger = ledger_with({"tool_name": "Read", "args": {}, "is_error": True})
    text = f"See ../secret.py, {tmp_path / 'secret.py'} and link.py."
    assert not GroundedClaimChecker().is_grounded(text, ledger, Workspace(root))


def test_without_a_workspace_only_read_evidence_grounds():
    ledger = ledger_with({"tool_name": "Read", "args": {}, "is_error": True})
    assert not GroundedClaimChecker().is_grounded("See README.md", ledger, None)
    assert not GroundedClaimChecker().is_grounded(
        "See README.md", ledger, Workspace("/nonexistent/x")
    )

"""Arguments, paths, commands and patch targets pulled out of tool calls."""

from __future__ import annotations

from earnest.effects.artifacts import (
    command_arg,
    move_args,
    output_text,
    parse_args,
    patch_paths,
    path_args,
)


def test_parse_args_accepts_dicts_json_strings_and_raw_text():
    assert parse_args({"a": 1}) == ({"a": 1}, "")
    assert parse_args('{"file_path": "x.py"}') == ({"file_path": "x.py"}, "")
    assert parse_args("*** Begin Patch") == ({}, "*** Begin Patch")
    assert parse_args('{"broken": ') == ({}, '{"broken": ')
    assert parse_args(None) == ({}, "")
    assert parse_args(42) == ({}, "")


def test_path_args_reads_each_known_key_and_lists():
    for key in ("file_path", "path", "notebook_path", "filename", "absolute_path"):
        assert path_args({key: "a/b.py"}) == ("a/b.py",)
    assert path_args({"file_path": "a", "paths": ["b", "c", 3]}) == ("a", "b", "c")
    assert path_args({"content": "x"}) == ()
    assert path_args({"path": "   "}) == ()


def test_double_encoded_string_values_are_decoded():
    assert path_args({"TargetFile": '"src/app.tsx"'}) == ("src/app.tsx",)


def test_command_arg_quotes_argv_lists_back():
    assert command_arg({"command": "pytest -q"}) == "pytest -q"
    assert command_arg({"cmd": "ls"}) == "ls"
    assert command_arg({"command": ["bash", "-lc", "pytest -q && touch x"]}) == (
        "bash -lc 'pytest -q && touch x'"
    )
    assert command_arg({}, "raw text") == "raw text"
    assert command_arg({}) is None


def test_move_args():
    assert move_args({"source": "a", "destination": "b"}) == ("a", "b")
    assert move_args({"old_path": "a", "new_path": "b"}) == ("a", "b")
    assert move_args({}) == (None, None)


def test_apply_patch_envelope_headers():
    patch = (
        "*** Begin Patch\n*** Add File: new.py\n+x\n*** Update File: src/a.py\n@@\n-a\n+b\n"
        "*** Move to: src/b.py\n*** Delete File: old.py\n*** End Patch\n"
    )
    assert patch_paths(patch) == (("new.py", "src/a.py", "src/b.py"), ("old.py",))


def test_unified_diff_headers_with_dev_null():
    diff = (
        "--- a/src/a.py\n+++ b/src/a.py\n@@ -1 +1 @@\n-x\n+y\n"
        "--- /dev/null\n+++ b/created.txt\n@@ -0,0 +1 @@\n+new\n"
        "--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-old\n"
    )
    assert patch_paths(diff) == (("src/a.py", "created.txt"), ("gone.txt",))


def test_output_text_from_strings_and_content_blocks():
    assert output_text({"content": "Exit code 1\nboom"}) == "Exit code 1\nboom"
    blocks = {"content": [{"type": "text", "text": "a"}, {"type": "image"}, {"text": "b"}]}
    assert output_text(blocks) == "a\nb"
    assert output_text({"output": "o"}) == "o"
    assert output_text({}) == ""

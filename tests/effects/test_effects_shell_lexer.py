"""The shell lexer: quotes, operators, redirections, heredocs, substitutions; total on any text."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from earnest.effects.shell_lexer import MAX_NESTING, lex_script


def words(src: str) -> list[list[str]]:
    return [[w.text for w in c.words] for c in lex_script(src).commands]


def test_control_operators_split_commands_and_record_the_separator():
    script = lex_script("a && b || c; d | e |& f & g\nh")
    assert [[w.text for w in c.words] for c in script.commands] == [
        ["a"], ["b"], ["c"], ["d"], ["e"], ["f"], ["g"], ["h"]
    ]  # fmt: skip
    assert [c.sep for c in script.commands] == ["&&", "||", ";", "|", "|&", "&", "\n", ""]


def test_quotes_keep_operators_inside_one_word():
    assert words("echo 'a && b' \"c; d\" e\\;f") == [["echo", "a && b", "c; d", "e;f"]]


def test_redirections_with_fds_and_targets():
    cmd = lex_script("cmd > out.txt 2>&1 >> log &> all 2> err.txt < in").commands[0]
    assert [w.text for w in cmd.words] == ["cmd"]
    assert [(r.op, r.fd, r.target.text if r.target else None) for r in cmd.redirects] == [
        (">", "", "out.txt"), (">&", "2", "1"), (">>", "", "log"), ("&>", "", "all"),
        (">", "2", "err.txt"), ("<", "", "in"),
    ]  # fmt: skip


def test_redirection_before_the_command_word():
    cmd = lex_script("2>err.log pytest -q").commands[0]
    assert [w.text for w in cmd.words] == ["pytest", "-q"]
    assert cmd.redirects[0].target is not None and cmd.redirects[0].target.text == "err.log"


def test_heredoc_body_is_data_not_commands():
    script = lex_script("cat > out.txt <<'EOF'\nrm -rf /\necho pwned > x\nEOF\nls")
    assert [[w.text for w in c.words] for c in script.commands] == [["cat"], ["ls"]]


def test_heredoc_inside_a_command_substitution_inside_double_quotes():
    src = 'git commit -m "$(cat <<\'EOF\'\nfix: a ) and "quotes"\nEOF\n)" && git push'
    script = lex_script(src)
    assert [[w.text for w in c.words][:2] for c in script.commands] == [
        ["git", "commit"], ["git", "push"]
    ]  # fmt: skip
    assert any(body.startswith("cat <<") for body in script.substitutions)


def test_words_with_expansions_are_not_static():
    cmd = lex_script("touch $OUT \"${DIR}/x\" `date` ~/x *.py plain 'lit$'").commands[0]
    assert [(w.text, w.static) for w in cmd.words[1:]] == [
        ("", False), ("/x", False), ("", False), ("~/x", False), ("*.py", False),
        ("plain", True), ("lit$", True),
    ]  # fmt: skip


def test_command_and_process_substitutions_are_collected():
    script = lex_script("echo $(rm a) `touch b` <(grep c d)")
    assert sorted(script.substitutions) == ["grep c d", "rm a", "touch b"]


def test_subshells_record_depth():
    script = lex_script("(cd sub && make) ; ls")
    assert [(c.words[0].text, c.depth) for c in script.commands] == [
        ("cd", 1),
        ("make", 1),
        ("ls", 0),
    ]


def test_comments_and_line_continuations():
    assert words("ls # rm -rf /\npytest \\\n  -q") == [["ls"], ["pytest", "-q"]]


def test_unclosed_quote_runs_to_the_end():
    assert words("echo 'unclosed && rm x") == [["echo", "unclosed && rm x"]]


def test_source_span_of_each_command():
    script = lex_script("cd a && FOO=1 pytest -q > log")
    assert [c.text for c in script.commands] == ["cd a", "FOO=1 pytest -q > log"]


def test_deep_nesting_is_scanned_flat_without_recursion_error():
    src = "$(" * (MAX_NESTING * 20) + "x" + ")" * (MAX_NESTING * 20)
    lex_script(src)  # must not raise RecursionError


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_lexer_never_raises_on_arbitrary_text(src: str):
    lex_script(src)


SHELLISH = st.text(alphabet="ab $`'\"\\(){}<>|&;\n#~*=-0123:/.", max_size=120)


@settings(max_examples=500, deadline=None)
@given(SHELLISH)
def test_lexer_never_raises_on_shell_punctuation(src: str):
    lex_script(src)

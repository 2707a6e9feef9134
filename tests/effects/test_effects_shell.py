"""The shell classifier: checks, deltas and reads, part by part, never by substring."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from earnest.effects import EffectClass, analyze_shell, is_check_command
from earnest.effects.shell import normalize_head, script_kind


def kinds(command: str, **kw: object) -> list[str]:
    return [e.kind for e in analyze_shell(command, **kw).effects]  # type: ignore[arg-type]


def paths(command: str) -> list[tuple[str, ...]]:
    return [e.paths for e in analyze_shell(command).effects]


CHECKS = [
    ("pytest", "test"),
    ("pytest -q tests/test_a.py", "test"),
    ("python -m pytest -v", "test"),
    ("python3.11 -m pytest", "test"),
    ("python -m unittest discover", "test"),
    ("tox -e py311", "test"),
    ("nox -s tests", "test"),
    ("ruff check .", "lint"),
    ("flake8 src", "lint"),
    ("pylint pkg", "lint"),
    ("mypy --strict src", "typecheck"),
    ("pyright", "typecheck"),
    ("black --check .", "lint"),
    ("cargo test", "test"),
    ("cargo check", "build"),
    ("cargo clippy -- -D warnings", "lint"),
    ("cargo build --release", "build"),
    ("go test ./...", "test"),
    ("go vet ./...", "lint"),
    ("go build ./cmd/x", "build"),
    ("npm test", "test"),
    ("npm run test", "test"),
    ("npm run lint", "lint"),
    ("npm run build", "build"),
    ("npm run typecheck", "typecheck"),
    ("yarn test", "test"),
    ("yarn lint", "lint"),
    ("pnpm run test:unit", "test"),
    ("pnpm typecheck", "typecheck"),
    ("npx jest", "test"),
    ("npx vitest run", "test"),
    ("npx tsc --noEmit", "typecheck"),
    ("npx eslint src", "lint"),
    ("make test", "test"),
    ("make lint", "lint"),
    ("make check", "check"),
    ("make", "build"),
    ("gradle test", "test"),
    ("./gradlew :app:test", "test"),
    ("mvn test", "test"),
    ("just test", "test"),
    ("just check", "check"),
    ("dotnet test", "test"),
    ("bun test", "test"),
    ("deno test", "test"),
    ("node --test", "test"),
    ("python manage.py test", "test"),
    ("./run_tests.sh", "test"),
    ("cargo llvm-cov --fail-under-lines 100", "test"),
    ("node node_modules/vitest/dist/cli-wrapper.js run", "test"),
    ("pre-commit run --all-files", "check"),
    ("gitleaks detect --no-git", "lint"),
]


@pytest.mark.parametrize(("command", "kind"), CHECKS)
def test_verification_commands_are_checks(command: str, kind: str):
    a = analyze_shell(command)
    assert a.is_check, command
    assert kind in a.check_kinds


@pytest.mark.parametrize(
    "command",
    [
        "FOO=1 pytest",
        "FOO=1 BAR=2 pytest -q",
        "env FOO=1 pytest",
        "cd pkg && pytest",
        "timeout 60 pytest",
        "timeout -s KILL 5m pytest",
        "uv run pytest",
        "uv run --with hypothesis pytest",
        "poetry run pytest",
        "pipenv run pytest",
        "hatch run pytest",
        "sudo -u ci pytest",
        "nice -n 10 pytest",
        "nohup pytest",
        "time pytest",
        "source .venv/bin/activate && pytest",
        "ls && pytest",
        "pytest 2>&1 | tail -20",
        "bash -c 'pytest -x'",
        'sh -c "cd pkg && pytest"',
        "bash -lc 'uv run pytest'",
        "if pytest; then echo ok; fi",
        "coverage run -m pytest",
        ".venv/bin/pytest -q",
    ],
)
def test_a_check_is_a_check_wherever_it_stands(command: str):
    assert "test" in analyze_shell(command).check_kinds, command


@pytest.mark.parametrize(
    "command",
    ["echo pytest", "echo 'npm test'", "grep pytest README.md", "cat Makefile | grep test",
     "which pytest", "man pytest", "git log --grep pytest", "echo make test"],
)  # fmt: skip
def test_a_check_named_as_an_argument_is_not_a_check(command: str):
    assert not is_check_command(command), command


READ_ONLY = [
    "ls -la", "cat a.txt", "grep -rn TODO src", "rg foo", "find . -name '*.py'", "head -5 x",
    "tail -f log", "wc -l a b", "echo hello", "stat a", "pwd", "which python", "du -sh .",
    "file a.bin", "tree -L 2", "git status", "git diff HEAD~1", "git log --oneline -3",
    "git show HEAD", "git branch", "git branch -a", "git blame a.py", "git rev-parse HEAD",
    "git -C sub status", "git stash list", "git remote -v", "git tag", "git config user.name",
    "echo hi > /dev/null", "ls 2>/dev/null", "cat a | sort | uniq -c", "jq .a data.json",
    "diff a b", "python --version", "node -v", "npm ls", "pip list", "pip show requests",
    "sed -n 1,10p file.txt", "awk '{print $1}' a", "curl -s https://example.com",
    "gh pr view 12", "kubectl get pods", "docker ps", "command -v gitleaks",
    "python -m http.server 8000", "git apply --stat x.patch", "make -n", "cd src",
]  # fmt: skip


@pytest.mark.parametrize("command", READ_ONLY)
def test_read_only_commands_give_no_evidence(command: str):
    a = analyze_shell(command)
    assert a.read_only, (command, a.effects, a.unknown)


DELTAS = [
    ("cat a > b", "write", ("b",)),
    ("cat a >> b", "edit", ("b",)),
    ("echo pytest > notes.txt", "write", ("notes.txt",)),
    ("ls &> listing.txt", "write", ("listing.txt",)),
    ("pytest 2> err.log", "write", ("err.log",)),
    ("python -c 'print(1)' >| out", "write", ("out",)),
    ("echo x | tee a.txt b.txt", "write", ("a.txt", "b.txt")),
    ("echo x | tee -a log.txt", "edit", ("log.txt",)),
    ("sed -i 's/a/b/' f.txt", "edit", ("f.txt",)),
    ("sed -i.bak -e 's/a/b/' f.txt g.txt", "edit", ("f.txt", "g.txt")),
    ("sed -i '' 's/a/b/' mac.txt", "edit", ("mac.txt",)),
    ("sed --in-place 's/a/b/' f.txt", "edit", ("f.txt",)),
    ("perl -pi -e 's/a/b/' x.pl", "edit", ("x.pl",)),
    ("perl -i -pe 's/a/b/' y.pl", "edit", ("y.pl",)),
    ("touch a b", "write", ("a", "b")),
    ("mkdir -p a/b c", "write", ("a/b", "c")),
    ("rm -rf build", "delete", ("build",)),
    ("rm a.py b.py", "delete", ("a.py", "b.py")),
    ("rmdir empty", "delete", ("empty",)),
    ("cp -r src dst", "write", ("dst",)),
    ("cp a b c dir/", "write", ("dir",)),
    ("cp -t dir a b", "write", ("dir",)),
    ("ln -s target link", "write", ("link",)),
    ("chmod +x run.sh", "edit", ("run.sh",)),
    ("truncate -s 0 log", "edit", ("log",)),
    ("sort -o sorted.txt in.txt", "write", ("sorted.txt",)),
    ("dd if=/dev/zero of=disk.img bs=1M count=1", "write", ("disk.img",)),
    ("curl -sL -o page.html https://x", "write", ("page.html",)),
    ("wget -O data.csv https://x", "write", ("data.csv",)),
    ("tar -czf backup.tgz src", "write", ("backup.tgz",)),
    ("git rm old.py", "delete", ("old.py",)),
    ("git checkout -- a.py", "edit", ("a.py",)),
    ("git restore a.py", "edit", ("a.py",)),
    ("git clone https://github.com/o/repo.git", "write", ("repo",)),
    ("git clone https://x/r.git dest", "write", ("dest",)),
    ("npx create-next-app@latest todo-app --typescript", "write", ("todo-app",)),
    ("python -m venv .venv", "write", (".venv",)),
    ("yq -i '.a = 1' conf.yaml", "edit", ("conf.yaml",)),
]


@pytest.mark.parametrize(("command", "kind", "artifacts"), DELTAS)
def test_deltas_carry_their_artifacts(command: str, kind: str, artifacts: tuple[str, ...]):
    a = analyze_shell(command)
    assert a.is_delta, command
    matching = [e for e in a.effects if e.kind == kind]
    assert matching, (command, a.effects)
    assert matching[0].paths == artifacts


@pytest.mark.parametrize(
    ("command", "kind"),
    [
        ("git commit -m x", "vcs"), ("git add .", "vcs"), ("git push", "vcs"),
        ("git checkout -b feat", "vcs"), ("git merge main", "vcs"), ("git rebase main", "vcs"),
        ("git reset --hard HEAD~1", "vcs"), ("git apply fix.patch", "vcs"),
        ("git stash", "vcs"), ("git stash pop", "vcs"), ("git tag v1.0", "vcs"),
        ("git init", "vcs"), ("git branch newbranch", "vcs"), ("git branch -D old", "vcs"),
        ("git pull", "vcs"), ("git cherry-pick abc", "vcs"), ("git switch main", "vcs"),
        ("git clean -fd", "delete"),
        ("pip install requests", "install"), ("pip3 uninstall -y x", "install"),
        ("python -m pip install -e .", "install"), ("uv add httpx", "install"),
        ("uv pip install x", "install"), ("poetry add x", "install"), ("npm install", "install"),
        ("npm i -D vitest", "install"), ("yarn add react", "install"), ("yarn", "install"),
        ("pnpm add lucide-react", "install"), ("cargo add serde", "install"),
        ("cargo install cargo-llvm-cov", "install"), ("apt-get install -y jq", "install"),
        ("apt install jq", "install"), ("brew install gh", "install"),
        ("brew uninstall gh", "install"), ("go get example.com/x", "install"),
        ("black .", "format"), ("ruff format .", "format"), ("isort .", "format"),
        ("prettier --write src", "format"), ("cargo fmt", "format"), ("gofmt -w .", "format"),
        ("find . -name '*.pyc' -delete", "delete"), ("find . -name '*.pyc' -exec rm {} +", "delete"),
        ("ls *.tmp | xargs rm", "delete"), ("gh pr create --fill", "vcs"),
        ("kubectl apply -f k8s.yaml", "deploy"), ("make install", "install"),
    ],
)  # fmt: skip
def test_state_changing_commands_are_deltas(command: str, kind: str):
    assert kind in kinds(command), (command, kinds(command))


def test_chains_are_judged_part_by_part():
    a = analyze_shell("ruff check . && pytest -q; git add -A && git commit -m done")
    assert [e.kind for e in a.effects] == ["lint", "test", "vcs", "vcs"]
    assert [e.segment for e in a.effects][:2] == ["ruff check .", "pytest -q"]


def test_pipes_and_newlines_split_commands():
    assert kinds("cat a |\ntee b") == ["write"]
    assert kinds("ls\npytest\nls") == ["test"]


def test_cd_prefixes_relative_artifacts_and_subshells_restore_the_folder():
    assert paths("cd pkg && touch a && cd .. && touch b") == [("pkg/a",), ("b",)]
    assert paths("(cd sub && touch x); touch y") == [("sub/x",), ("y",)]
    assert paths("cd /abs && touch z") == [("/abs/z",)]


def test_cd_to_somewhere_unknown_drops_relative_artifacts_but_keeps_the_delta():
    a = analyze_shell("cd $DIR && touch z")
    assert [(e.kind, e.paths) for e in a.effects] == [("write", ())]


def test_non_literal_targets_are_deltas_without_artifacts():
    assert paths("echo x > $OUT") == [()]
    assert paths("rm *.pyc") == [()]


def test_bash_c_and_eval_recurse():
    assert kinds("bash -c 'pytest && touch done.txt'") == ["test", "write"]
    assert paths("sh -c 'touch done.txt'") == [("done.txt",)]
    assert kinds("eval 'rm -rf build'") == ["delete"]
    assert kinds("powershell -Command \"Set-Location 'c:/x'; npx vitest run\"") == ["test"]


def test_command_substitutions_are_judged():
    assert kinds("echo $(rm stale.txt)") == ["delete"]
    assert kinds("git commit -m \"$(cat <<'EOF'\nmsg\nEOF\n)\"") == ["vcs"]


def test_heredoc_bodies_are_not_commands():
    a = analyze_shell("cat > notes.md <<'EOF'\nrm -rf /\npytest\nEOF")
    assert [(e.kind, e.paths) for e in a.effects] == [("write", ("notes.md",))]


def test_unknown_commands_default_to_an_artifactless_delta_and_are_listed():
    a = analyze_shell("python gen.py && ./deploy_site")
    assert [(e.kind, e.paths, e.detail) for e in a.effects] == [
        ("shell", (), "unknown-command: python"),
        ("shell", (), "unknown-command: deploy_site"),
    ]
    assert a.unknown == ("python", "deploy_site")
    assert not a.read_only


def test_unknown_policy_ignore_gives_no_evidence_but_still_lists_them():
    a = analyze_shell("python gen.py && pytest", unknown="ignore")
    assert [e.kind for e in a.effects] == ["test"]
    assert a.unknown == ("python",)


def test_fix_flags_make_linters_deltas_too():
    assert kinds("ruff check --fix .") == ["lint", "format"]
    assert kinds("eslint --fix src") == ["lint", "format"]


def test_background_and_dry_runs():
    assert analyze_shell("make -n test").read_only
    assert analyze_shell("git clean -n").read_only


def test_normalize_head_and_script_kind():
    assert normalize_head("/usr/local/bin/python3.12") == "python"
    assert normalize_head("C:/Program Files/Git/bin/bash.exe") == "bash"
    assert normalize_head("./mvnw") == "mvn"
    assert script_kind("test:e2e") == "test"
    assert script_kind("lint:fix") == "format"
    assert script_kind("build:prod") == "build"
    assert script_kind("serve") == "read"
    assert script_kind("frobnicate") is None


def test_effect_classes():
    a = analyze_shell("pytest && touch x")
    assert [e.effect_class for e in a.effects] == [
        EffectClass.VERIFIED_CHECK,
        EffectClass.WORKSPACE_DELTA,
    ]


def test_long_commands_are_analysed_without_the_cache():
    long = "touch a && " * 400 + "pytest"
    assert analyze_shell(long).is_check


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_shell_classifier_never_raises_on_arbitrary_text(command: str):
    a = analyze_shell(command)
    assert isinstance(a.effects, tuple)


TOKENS = st.sampled_from(
    ["pytest", "rm", "-rf", "x", ">", ">>", "2>&1", "|", "&&", ";", "bash", "-c", "'", '"',
     "$(", ")", "`", "cd", "..", "sed", "-i", "tee", "git", "commit", "<<EOF", "\n", "EOF",
     "find", "-exec", "{}", "+", "xargs", "timeout", "60", "env", "A=1", "npm", "run", "(", "\\"]
)  # fmt: skip


@settings(max_examples=500, deadline=None)
@given(st.lists(TOKENS, max_size=40).map(" ".join))
def test_shell_classifier_never_raises_on_shell_like_token_soup(command: str):
    analyze_shell(command)
    analyze_shell(command, unknown="ignore")

"""A fresh clone with nothing beside it: the tests read only the checkout, the README installs.

The curated real files live in ``tests/data`` with a SOURCE.md per folder; the README's install
lines are the ones that work from a checkout, and name the extra each live provider needs.
"""

from __future__ import annotations

import json
import re
import shlex
import tomllib
from pathlib import Path

from conftest import REPO, TEST_DATA, run_earnest

# Spelled in pieces so this file does not match the search it performs.
OUTSIDE = ("../" + "shared", "shared" + "/data", "EARNEST_" + "SHARED", "/work/" + "shared")


def test_no_test_reads_a_folder_outside_the_checkout() -> None:
    hits = [
        f"{path.relative_to(REPO)}:{n}"
        for path in sorted((REPO / "tests").rglob("*.py"))
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if any(word in line for word in OUTSIDE)
    ]
    assert hits == []


def test_every_curated_file_names_where_it_came_from() -> None:
    folders = sorted({p.parent for p in TEST_DATA.rglob("*") if p.is_file()})
    unnamed = []
    for folder in folders:
        source = next((f / "SOURCE.md" for f in (folder, *folder.parents) if (f / "SOURCE.md").is_file()), None)  # fmt: skip
        assert source is not None, folder
        text = source.read_text(encoding="utf-8")
        for path in folder.iterdir():
            if path.is_file() and path.name != "SOURCE.md" and path.name not in text:
                unnamed.append(str(path.relative_to(TEST_DATA)))
    assert unnamed == []
    transcripts = TEST_DATA / "transcripts"
    assert sorted(p.parent.name for p in transcripts.glob("*/SOURCE.md")) == sorted(
        p.name for p in transcripts.iterdir() if p.is_dir()
    )


def test_the_curated_data_stays_small() -> None:
    total = sum(p.stat().st_size for p in TEST_DATA.rglob("*") if p.is_file())
    assert total < 20_000_000


def test_ci_runs_the_readme_test_command() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    (command,) = [line for line in readme.splitlines() if line.endswith("-m pytest")]
    assert command in (REPO / ".ci" / "run").read_text(encoding="utf-8")


def _extras() -> set[str]:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return set(project["optional-dependencies"])


def test_readme_install_lines_work_from_a_checkout() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    # Every install line inside a shell block installs the checkout, with extras that exist.
    blocks = re.findall(r"```sh\n(.*?)```", readme, flags=re.S)
    installs = [line for block in blocks for line in block.splitlines() if "pip install" in line]
    assert installs
    for line in installs:
        assert "install -e" in line or "install -q -e" in line, line
        for extra in re.findall(r"'\.\[([a-z,]+)\]'", line):
            assert set(extra.split(",")) <= _extras(), line


def test_readme_names_the_extra_before_each_live_provider_command() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    for kind in ("openai", "anthropic"):
        assert f"pip install -e '.[{kind}]'" in readme
    lines = readme.splitlines()
    for n, line in enumerate(lines):
        if line.startswith("earnest run") and "=openai:" in line:
            before = "\n".join(lines[:n])
            assert "pip install -e '.[openai]'" in before, line


def _docs() -> list[Path]:
    return [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]


def test_every_index_install_in_the_docs_says_the_checkout_form_too() -> None:
    # Issue 26: the guides said `pip install 'earnest[dask]'`, which from a clone installs
    # another earnest from the index over the checkout. Each paragraph that gives the index
    # form gives the checkout form (`pip install -e '.[dask]'`) beside it.
    missing = []
    for path in _docs():
        for paragraph in re.split(r"\n\s*\n", path.read_text(encoding="utf-8")):
            for extra in re.findall(r"pip install '?earnest\[([a-z,]+)\]", paragraph):
                kept = [line for line in paragraph.splitlines() if f"earnest[{extra}]" in line]
                if all(line.lstrip().startswith("| `earnest:") for line in kept):
                    continue  # a table of error messages quoting what the code says
                if f"pip install -e '.[{extra}]'" not in paragraph:
                    missing.append(f"{path.relative_to(REPO)}: earnest[{extra}]")
    assert missing == []


def test_readme_says_to_install_bubblewrap_before_the_act_step() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    first_run = readme.index("sh examples/main-job.sh")
    before = " ".join(readme[:first_run].split())
    assert "apt-get install bubblewrap" in before
    assert "NOT confined" in before  # and what happens without it


def test_readme_score_line_scores_the_replies_init_writes(tmp_path: Path) -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    (init,) = [line for line in readme.splitlines() if line.startswith("earnest init ")]
    (score,) = [
        line for line in readme.splitlines() if line.startswith("earnest score --suite my-suite")
    ]
    for line in (init, score):
        args = shlex.split(line.split("#", 1)[0])[1:]
        proc = run_earnest(*args, cwd=tmp_path)
        assert "Traceback" not in proc.stderr
        assert proc.returncode in (0, 1), f"{line}\n{proc.stderr}"
    verdicts = [json.loads(row)["verdict"] for row in proc.stdout.splitlines()]
    assert verdicts == ["pass", "fail-choice"]

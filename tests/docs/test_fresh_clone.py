"""A fresh clone with nothing beside it: the tests read only the checkout, the README installs.

The curated real files live in ``tests/data`` with a SOURCE.md per folder; the README's install
lines are the ones that work from a checkout, and name the extra each live provider needs.
"""

from __future__ import annotations

import re
import tomllib

from conftest import REPO, TEST_DATA

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

"""The composite GitHub Action (``action.yml``): its ``run:`` steps run as a runner runs them.

Each step's ``run:`` script goes to ``bash --noprofile --norc -eo pipefail`` (the runner's
``shell: bash``) with the step's ``env:``, ``${{ inputs.* }}`` and ``${{ github.action_path }}``
filled in as the runner fills them, and ``$GITHUB_OUTPUT`` read back between steps. The two
``uses:`` steps (setup-python, upload-artifact) are GitHub's own and are checked, not run:
the session's installed wheel stands in for setup-python's interpreter. About 5 s.
"""

from __future__ import annotations

import re
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
import yaml
from shipkit import Installed, clean_env, installed, run

from conftest import EXAMPLES, REPO

ACTION = REPO / "action.yml"
EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def _action() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(ACTION.read_text(encoding="utf-8"))
    return data


def _value(expr: str, inputs: dict[str, str], outputs: dict[str, str]) -> str:
    if expr.startswith("inputs."):
        return inputs[expr.removeprefix("inputs.")]
    if expr == "github.action_path":
        return str(REPO)
    if expr.startswith("steps.check.outputs."):
        return outputs.get(expr.removeprefix("steps.check.outputs."), "")
    raise AssertionError(f"action.yml uses an expression this test does not know: {expr}")


def _runs_if(condition: str | None, inputs: dict[str, str]) -> bool:
    if condition is None:
        return True
    # The action's conditions: !cancelled() (never, here) and an input being non-empty.
    text = EXPR.sub(lambda m: m.group(1), condition).replace("!cancelled()", "true")
    for name, value in inputs.items():
        text = text.replace(f"inputs.{name} != ''", "true" if value else "false")
    assert set(text.replace("&&", " ").split()) <= {"true", "false"}, condition
    return "false" not in text.split()


def run_action(wheel: Installed, work: Path, **given: str) -> tuple[int, list[str], dict[str, str]]:
    """Run the action's steps in ``work``; the exit status of the step that stopped it (0 if
    none did), the names of the steps run, and what they wrote to $GITHUB_OUTPUT."""
    action = _action()
    inputs = {k: str(v.get("default", "")) for k, v in action["inputs"].items()}
    inputs.update(given)
    output_file = work.parent / "github_output"
    output_file.write_text("", encoding="utf-8")
    outputs: dict[str, str] = {}
    ran: list[str] = []
    for step in action["runs"]["steps"]:
        if "uses" in step or not _runs_if(step.get("if"), inputs):
            continue
        assert step["shell"] == "bash"
        env = clean_env(
            PATH=f"{wheel.bin}:{clean_env()['PATH']}", GITHUB_OUTPUT=str(output_file),
            HOME=str(work.parent),
        )  # fmt: skip
        for key, value in (step.get("env") or {}).items():
            env[key] = EXPR.sub(lambda m: _value(m.group(1), inputs, outputs), str(value))
        assert "${{" not in step["run"], f"{step['name']}: an expression pasted into a script"
        done = run("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"], cwd=work, env=env)  # fmt: skip
        assert "Traceback" not in done.stderr, done.stderr
        ran.append(step["name"])
        for line in output_file.read_text(encoding="utf-8").splitlines():
            key, _, value = line.partition("=")
            outputs[key] = value
        if done.returncode != 0:
            return done.returncode, ran, outputs
    return 0, ran, outputs


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    return installed(tmp_path_factory)


def test_the_action_is_composite_and_keeps_the_reports() -> None:
    action = _action()
    assert action["runs"]["using"] == "composite"
    steps = action["runs"]["steps"]
    uses = [s["uses"].split("@")[0] for s in steps if "uses" in s]
    assert uses == ["actions/setup-python", "actions/upload-artifact"]
    upload = next(s for s in steps if "upload-artifact" in s.get("uses", ""))
    assert "inputs.junit" in upload["with"]["path"] and "inputs.report" in upload["with"]["path"]
    assert "!cancelled()" in upload["if"]  # kept when the check failed too
    assert set(action["inputs"]) >= {"suite", "python-version", "install", "junit", "report"}


def test_a_failing_check_fails_the_job_after_writing_both_reports(
    wheel: Installed, tmp_path: Path
) -> None:
    work = tmp_path / "repo"
    shutil.copytree(EXAMPLES / "suite", work / "examples" / "suite")
    status, ran, outputs = run_action(wheel, work, suite="examples/suite", install=str(wheel.wheel))
    # The example suite's recorded replies fail on purpose: check exits 1, so does the job.
    assert status == 1 and outputs["exit-code"] == "1"
    assert ran == ["Install earnest", "earnest check", "earnest report", "Fail on a failing check"]
    root = ET.parse(work / "earnest-junit.xml").getroot()
    assert int(root.get("failures", "0")) == 10
    assert (work / "earnest-report.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_a_passing_check_passes_the_job(wheel: Installed, tmp_path: Path) -> None:
    work = tmp_path / "repo"
    work.mkdir()
    assert run(wheel.bin / "earnest", "init", "suite", cwd=work).returncode == 0
    status, ran, outputs = run_action(
        wheel, work, suite="suite", install=str(wheel.wheel), junit="out/j.xml", report="out/r.html"
    )
    assert status == 0 and outputs["exit-code"] == "0", ran
    assert ran[-1] == "Fail on a failing check"
    assert (work / "out" / "j.xml").is_file() and (work / "out" / "r.html").is_file()


def test_bad_input_fails_the_job_with_exit_2(wheel: Installed, tmp_path: Path) -> None:
    work = tmp_path / "repo"
    work.mkdir()
    status, _, outputs = run_action(wheel, work, suite="no-such-suite", install=str(wheel.wheel))
    assert status == 2 and outputs["exit-code"] == "2"


def test_an_input_is_never_run_as_shell(wheel: Installed, tmp_path: Path) -> None:
    # An input is text from whoever edits the workflow: it reaches the scripts as a variable.
    work = tmp_path / "repo"
    work.mkdir()
    status, _, _ = run_action(
        wheel, work, suite='x"; touch pwned; echo "', install=str(wheel.wheel)
    )
    assert status == 2
    assert not (work / "pwned").exists()


def _yaml_blocks(path: Path) -> list[Any]:
    text = path.read_text(encoding="utf-8")
    return [yaml.safe_load(m) for m in re.findall(r"```yaml\n(.*?)```", text, flags=re.S)]


def test_the_ci_guide_uses_the_action_and_the_pre_commit_hook() -> None:
    blocks = _yaml_blocks(REPO / "docs" / "guides" / "ci.md")
    inputs = set(_action()["inputs"])
    steps = [s for b in blocks if isinstance(b, dict) and "jobs" in b for j in b["jobs"].values() for s in j["steps"]]  # fmt: skip
    ours = [s for s in steps if s.get("uses", "").startswith("OWNER/earnest@")]
    assert ours and all(set(s.get("with", {})) <= inputs for s in ours)
    (hook,) = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    configs = [b for b in blocks if isinstance(b, dict) and "repos" in b]
    ids = {h["id"] for c in configs for r in c["repos"] for h in r["hooks"]}
    assert hook["id"] in ids

"""Issue 26: every message that names an extra gives its install line in both forms.

From an index the line is ``pip install 'earnest[x]'``; from a checkout (how the README installs
earnest) it is ``pip install -e '.[x]'``. :func:`earnest.extras.install_hint` says both, and no
other string in the package spells an install line of its own (docstrings may).
"""

from __future__ import annotations

import ast
from pathlib import Path

from earnest.extras import install_hint

SRC = Path(__file__).resolve().parents[2] / "src" / "earnest"


def _docstrings(tree: ast.AST) -> set[int]:
    ids: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                ids.add(id(body[0].value))
    return ids


def test_the_hint_gives_both_forms() -> None:
    assert install_hint("dask") == (
        "pip install 'earnest[dask]' (from a checkout: pip install -e '.[dask]')"
    )


def test_no_message_spells_an_install_line_of_its_own() -> None:
    found: list[str] = []
    for path in sorted(SRC.rglob("*.py")):
        if path.name == "extras.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docs = _docstrings(tree)
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and id(node) not in docs
                and "pip install 'earnest[" in node.value
            ):
                found.append(f"{path.relative_to(SRC)}:{node.lineno}")
    assert not found, f"use earnest.extras.install_hint: {found}"

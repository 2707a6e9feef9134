"""The package's import graph: no cycles, and the lower layers never import ``report`` or ``cli``.

Every ``import`` in ``src/earnest`` counts, at module level or inside a function (a lazy import is
still a dependency); only imports under ``if TYPE_CHECKING:`` are left out, since they never run.
A package's ``__init__`` is a facade (its lazy ``__getattr__`` re-exports, the CLI's command
registration), so an edge to or from one is not followed: a cycle is between two real modules.
The graph is read with :mod:`ast` (about 40 lines) rather than import-linter/grimp, which would
be a new dev dependency for one check.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from conftest import SRC

PACKAGE = SRC / "earnest"


def _modules() -> dict[str, Path]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imported(
    name: str, path: Path, modules: dict[str, Path], typing_too: bool = False
) -> Iterator[str]:
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]

    def walk(node: ast.AST) -> Iterator[str]:
        for child in ast.iter_child_nodes(node):
            if not typing_too and isinstance(child, ast.If) and _type_checking(child):
                for other in child.orelse:
                    yield from walk_one(other)
                continue
            yield from walk_one(child)

    def walk_one(node: ast.AST) -> Iterator[str]:
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                module = ".".join([*base, *([node.module] if node.module else [])])
            else:
                module = node.module or ""
            for alias in node.names:
                sub = f"{module}.{alias.name}"
                yield sub if sub in modules else module
        yield from walk(node)

    yield from walk(ast.parse(path.read_text(encoding="utf-8"), str(path)))


def import_graph(typing_too: bool = False) -> dict[str, set[str]]:
    """Module -> the earnest modules it imports (package ``__init__``s left out);
    ``typing_too``: with the imports under ``if TYPE_CHECKING:`` as well."""
    modules = _modules()
    facades = {n for n, p in modules.items() if p.name == "__init__.py"}
    return {
        name: {
            m
            for m in _imported(name, path, modules, typing_too)
            if m in modules and m not in facades
        }
        - {name}
        for name, path in modules.items()
        if name not in facades
    }


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found)


def test_the_checker_finds_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_the_graph_sees_lazy_imports() -> None:
    graph = import_graph()
    # earnest.pressure.score imports its --jobs module inside a function.
    assert "earnest.pressure.parallel" in graph["earnest.pressure.score"]


def test_src_earnest_has_no_import_cycle() -> None:
    assert cycles(import_graph()) == []


def test_no_cycle_even_through_type_only_imports() -> None:
    """A circle of type-only imports (live.agentenv -> live.profiles -> live.netgate ->
    live.agentenv, once) runs nowhere, but it still ties the modules into one: each is read,
    type-checked and changed with the others."""
    assert cycles(import_graph(typing_too=True)) == []


def test_lower_layers_never_import_report_or_cli() -> None:
    upper = ("earnest.report", "earnest.cli")
    allowed = ("earnest.report", "earnest.cli", "earnest.__main__")
    wrong = sorted(
        f"{name} -> {dep}"
        for name, deps in import_graph().items()
        if not name.startswith(allowed)
        for dep in deps
        if dep.startswith(upper)
    )
    assert wrong == []

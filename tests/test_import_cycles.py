"""No import cycle among the package's modules: neither at import time (module-level imports)
nor through the imports inside functions, which run later but are dependencies all the same.
The names under ``if TYPE_CHECKING:`` never run and are left out.

There is no exception list: the last function-level cycles (the offline judge through the
package root, the guided engine through the local model) are gone.
"""

from __future__ import annotations

import ast
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"


def _module_name(path: Path, src: Path) -> str:
    parts = list(path.relative_to(src).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _type_checking_block(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def _imports(tree: ast.Module, *, nested: bool) -> list[str]:
    """The module names ``tree`` imports: at its top level, or anywhere when ``nested``."""
    names: list[str] = []
    pending: list[ast.AST] = list(tree.body)
    while pending:
        node = pending.pop()
        if _type_checking_block(node):
            assert isinstance(node, ast.If)
            pending.extend(node.orelse)
            continue
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names += [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
        elif nested:
            pending.extend(ast.iter_child_nodes(node))
    return names


def import_graph(
    src: Path = SRC, package: str = "empathybench", *, nested: bool = False
) -> dict[str, set[str]]:
    """Each module → the package modules it imports (``nested``: also inside functions)."""
    modules = {_module_name(path, src): path for path in (src / package).rglob("*.py")}

    def resolve(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = _imports(tree, nested=nested)
        targets = {resolve(name) for name in names if name.split(".")[0] == package}
        graph[module] = {t for t in targets if t is not None and t != module}
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    try:
        tuple(TopologicalSorter(graph).static_order())
    except CycleError as error:
        return list(error.args[1])
    return None


def test_module_level_imports_have_no_cycle() -> None:
    graph = import_graph()
    assert "empathybench.runner" in graph and "empathybench.api.probes" in graph
    cycle = find_cycle(graph)
    assert cycle is None, f"import cycle: {' -> '.join(cycle or [])}"


def test_no_cycle_through_imports_inside_functions_either() -> None:
    graph = import_graph(nested=True)
    assert "empathybench.models.local_guided" in graph
    cycle = find_cycle(graph)
    assert cycle is None, f"import cycle: {' -> '.join(cycle or [])}"


def test_an_import_inside_a_function_that_closes_a_cycle_is_found(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "low.py").write_text(
        "from typing import TYPE_CHECKING\n\n"
        "if TYPE_CHECKING:\n    from pkg.top import Top\n\n\n"
        "def helper() -> None:\n    for _ in range(1):\n        from pkg.high import use\n"
    )
    (package / "high.py").write_text("from pkg.low import helper\n\nuse = helper\n")
    (package / "top.py").write_text("from pkg.high import use\n\nTop = use\n")
    assert find_cycle(import_graph(tmp_path, "pkg")) is None
    cycle = find_cycle(import_graph(tmp_path, "pkg", nested=True))
    assert cycle is not None and set(cycle) == {"pkg.low", "pkg.high"}

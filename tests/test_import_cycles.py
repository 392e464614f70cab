"""No import cycle among the package's modules at import time (module-level imports; the
names under ``if TYPE_CHECKING:`` never run)."""

from __future__ import annotations

import ast
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(src: Path = SRC) -> dict[str, set[str]]:
    """Each module → the package modules its top level imports."""
    modules = {_module_name(path): path for path in (src / "empathybench").rglob("*.py")}

    def resolve(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        imported: set[str] = set()
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            targets = {resolve(name) for name in names if name.startswith("empathybench")}
            imported |= {t for t in targets if t is not None and t != module}
        graph[module] = imported
    return graph


def test_module_level_imports_have_no_cycle() -> None:
    graph = import_graph()
    assert "empathybench.runner" in graph and "empathybench.api.probes" in graph
    try:
        tuple(TopologicalSorter(graph).static_order())
    except CycleError as error:
        raise AssertionError(f"import cycle: {' -> '.join(error.args[1])}") from None

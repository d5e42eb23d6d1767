"""The package's shape, checked: import direction, lazy SDKs, module size (STYLE §1, §8, §9)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "mini_letta"

# Lower layers never import higher ones; within a layer, imports are allowed except as below.
LAYERS = {
    "errors": 0, "clock": 0, "ids": 0, "home": 0, "storage": 0,
    "conversations": 1, "agents": 1, "memory": 1, "settings": 1,
    "context": 2, "llm": 2, "tools": 2, "search": 2,
    "loop": 3, "reflection": 3, "workspace": 3,
    "cli": 4,
}  # fmt: skip
FORBIDDEN = {("llm", "tools"), ("loop", "reflection")}
HEAVY = {"openai", "anthropic", "yaml", "httpx", "prompt_toolkit"}
HARD_LIMIT_LINES = 700


def _modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py"))


def _concern(path: Path) -> str:
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    return parts[0]


def _imports(tree: ast.AST) -> list[tuple[str, ast.stmt, bool]]:
    """(module, node, at_top_level) for every import in the file."""
    found = []
    top = set(map(id, getattr(tree, "body", [])))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, node, id(node) in top) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.module, node, id(node) in top))
    return found


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_follow_the_layers(path):
    source = _concern(path)
    if source not in LAYERS:
        return  # __init__, __main__
    for module, node, _ in _imports(ast.parse(path.read_text(encoding="utf-8"))):
        if not module.startswith("mini_letta."):
            continue
        target = module.split(".")[1]
        if target not in LAYERS or target == source:
            continue
        where = f"{path.relative_to(PACKAGE)}:{node.lineno} imports {module}"
        assert LAYERS[target] <= LAYERS[source], f"{where}: a lower layer imports a higher one"
        assert (source, target) not in FORBIDDEN, f"{where}: forbidden direction"


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_heavy_libraries_are_imported_lazily(path):
    for module, node, at_top in _imports(ast.parse(path.read_text(encoding="utf-8"))):
        if module.split(".")[0] in HEAVY:
            assert not at_top, f"{path.relative_to(PACKAGE)}:{node.lineno} imports {module} at top"


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_modules_stay_small(path):
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= HARD_LIMIT_LINES, f"{path.relative_to(PACKAGE)} has {lines} lines"


def test_package_init_imports_nothing():
    tree = ast.parse((PACKAGE / "__init__.py").read_text(encoding="utf-8"))
    assert not _imports(tree)

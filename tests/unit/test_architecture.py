"""The package's shape, checked: import direction, lazy SDKs, module size (STYLE §1, §8, §9)."""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Callable, Iterable
from pathlib import Path

import pytest

# Every check reads the same parsed package (about 1.5 s of CPU to parse and walk): one worker.
pytestmark = pytest.mark.xdist_group("architecture")

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "mini_letta"

# Lower layers never import higher ones; within a layer, imports are allowed except as below.
LAYERS = {
    "errors": 0, "clock": 0, "ids": 0, "structs": 0, "log": 0, "home": 0, "storage": 0,
    "gitsafe": 0,
    "conversations": 1, "agents": 1, "memory": 1, "settings": 1,
    "context": 2, "llm": 2, "tools": 2, "search": 2, "skills": 2, "mcp_client": 2, "hooks": 2,
    "loop": 3, "reflection": 3, "workspace": 3, "sync": 3, "interop": 3, "palace": 3,
    "session": 4, "api": 5, "acp": 5,
    "cli": 5,
}  # fmt: skip
FORBIDDEN = {("llm", "tools"), ("loop", "reflection"), ("reflection", "palace"), ("loop", "palace")}
HEAVY = {
    "openai",
    "anthropic",
    "yaml",
    "httpx",
    "prompt_toolkit",
    "mcp",
    "mcp_types",
    "acp",
    "pydantic",
}
HARD_LIMIT_LINES = 700


@functools.cache
def _modules() -> tuple[Path, ...]:
    return tuple(sorted(PACKAGE.rglob("*.py")))


@functools.cache
def _source(path: Path) -> str:
    return path.read_text(encoding="utf-8")


@functools.cache
def _parse(source: str) -> ast.Module:
    """Each module parsed once for all the checks below (parsing is most of their cost)."""
    return ast.parse(source)


def _tree(path: Path) -> ast.Module:
    return _parse(_source(path))


@functools.cache
def _nodes_of(tree: ast.AST) -> tuple[ast.AST, ...]:
    """Every node of a tree, walked once for all the checks (trees are cached, so is this)."""
    return tuple(ast.walk(tree))


def _concern(path: Path) -> str:
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    return parts[0]


@functools.cache
def _imports(tree: ast.AST) -> list[tuple[str, ast.stmt, bool]]:
    """(module, node, at_top_level) for every import in the file."""
    found = []
    top = set(map(id, getattr(tree, "body", [])))
    for node in _nodes_of(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, node, id(node) in top) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.module, node, id(node) in top))
    return found


def _relative(path: Path) -> str:
    return str(path.relative_to(PACKAGE))


def _layer_offences(path: Path, tree: ast.Module) -> list[str]:
    """`file:line imports module: why` for each import that goes up a layer or a forbidden way."""
    source = _concern(path)
    if source not in LAYERS:
        return []  # __init__, __main__
    found = []
    for module, node, _ in _imports(tree):
        if not module.startswith("mini_letta."):
            continue
        target = module.split(".")[1]
        if target not in LAYERS or target == source:
            continue
        where = f"{_relative(path)}:{node.lineno} imports {module}"
        if LAYERS[target] > LAYERS[source]:
            found.append(f"{where}: a lower layer imports a higher one")
        elif (source, target) in FORBIDDEN:
            found.append(f"{where}: forbidden direction")
    return found


def _eager_heavy_imports(path: Path, tree: ast.Module) -> list[str]:
    """`file:line imports module at top` for each heavy library imported at module level."""
    return [
        f"{_relative(path)}:{node.lineno} imports {module} at top"
        for module, node, at_top in _imports(tree)
        if at_top and module.split(".")[0] in HEAVY
    ]


def _size_offence(path: Path, source: str) -> list[str]:
    lines = len(source.splitlines())
    limit = REFLECTION_LIMIT_LINES if _concern(path) == "reflection" else HARD_LIMIT_LINES
    return [f"{_relative(path)} has {lines} lines (at most {limit})"] if lines > limit else []


def _assert_none(check: Callable[[Path], list[str]], paths: Iterable[Path] | None = None) -> None:
    """One rule applied to every module (or to `paths`): the failure lists every offence, each
    naming its module and line."""
    found = [offence for path in paths or _modules() for offence in check(path)]
    assert not found, "\n".join(found)


def test_imports_follow_the_layers():
    _assert_none(lambda path: _layer_offences(path, _tree(path)))


def test_heavy_libraries_are_imported_lazily():
    _assert_none(lambda path: _eager_heavy_imports(path, _tree(path)))


def test_modules_stay_small():
    _assert_none(lambda path: _size_offence(path, _source(path)))


def test_the_module_checks_find_an_offender():
    """Each per-module rule above names the module and line that breaks it."""
    memory = PACKAGE / "memory" / "repo.py"
    up = ast.parse("import os\n\ndef f():\n    from mini_letta.loop.turn import run_turn\n")
    assert _layer_offences(memory, up) == [
        "memory/repo.py:4 imports mini_letta.loop.turn: a lower layer imports a higher one"
    ]
    sideways = ast.parse("from mini_letta.tools.base import Tool\n")
    assert _layer_offences(PACKAGE / "llm" / "base.py", sideways) == [
        "llm/base.py:1 imports mini_letta.tools.base: forbidden direction"
    ]
    assert _layer_offences(PACKAGE / "tools" / "base.py", sideways) == []
    assert _layer_offences(PACKAGE / "__main__.py", up) == []
    heavy = ast.parse("import openai\nimport json\n\ndef f():\n    import anthropic\n")
    assert _eager_heavy_imports(memory, heavy) == ["memory/repo.py:1 imports openai at top"]
    big = "x = 1\n" * (REFLECTION_LIMIT_LINES + 1)
    assert _size_offence(memory, big) == []
    assert _size_offence(REFLECTION / "api.py", big) == [
        f"reflection/api.py has {REFLECTION_LIMIT_LINES + 1} lines (at most 400)"
    ]
    assert _size_offence(memory, big * 2) == [
        f"memory/repo.py has {2 * REFLECTION_LIMIT_LINES + 2} lines (at most 700)"
    ]


# reflection/ is its face (api.py) over sub-packages that import one way: a run reads state and
# the gate; the policy launches runs; history looks back at all of them; the evals run runs.
REFLECTION = PACKAGE / "reflection"
REFLECTION_LAYERS = {"state": 0, "gate": 1, "run": 2, "policy": 3, "evals": 3, "history": 4}
REFLECTION_LIMIT_LINES = 400  # the most-changed package: small modules that say what they do


def _reflection_part(path: Path) -> str:
    parts = path.relative_to(REFLECTION).parts
    return parts[0] if len(parts) > 1 else parts[0].removesuffix(".py")


def test_reflection_is_its_face_over_its_sub_packages():
    """Every module lives in a named sub-package; only the face and `__init__` sit at the top."""
    top = sorted(p.name for p in REFLECTION.glob("*.py"))
    assert top == ["__init__.py", "api.py"], top
    folders = {p.name for p in REFLECTION.iterdir() if (p / "__init__.py").is_file()}
    assert folders == set(REFLECTION_LAYERS), folders


def _reflection_bypasses(path: Path, source: str) -> list[str]:
    """`line: module` for each import from inside reflection/ that goes the wrong way between
    its sub-packages (up, or sideways into another of the same rank), or up into the face."""
    here_part = _reflection_part(path)
    here = REFLECTION_LAYERS.get(here_part)
    found = []
    for module, node, _ in _imports(_parse(source)):
        parts = module.split(".")
        if here is None or parts[:2] != ["mini_letta", "reflection"] or len(parts) < 3:
            continue
        there = REFLECTION_LAYERS.get(parts[2])
        if there is None or there > here or (there == here and parts[2] != here_part):
            found.append(f"{node.lineno}: {module}")
    return found


def test_reflection_sub_packages_import_one_way():
    _assert_none(
        lambda path: [f"{_relative(path)}:{b}" for b in _reflection_bypasses(path, _source(path))],
        sorted(REFLECTION.rglob("*.py")),
    )


def test_the_reflection_direction_check_finds_a_wrong_way_import():
    run = REFLECTION / "run" / "launch.py"
    assert _reflection_bypasses(run, "from mini_letta.reflection.state.lease import x\n") == []
    assert _reflection_bypasses(run, "from mini_letta.reflection.run.setup import x\n") == []
    wrong = "def f():\n    from mini_letta.reflection.policy.launcher import x\n"
    assert _reflection_bypasses(run, wrong) == ["2: mini_letta.reflection.policy.launcher"]
    face = "from mini_letta.reflection.api import launch\n"
    assert _reflection_bypasses(run, face) == ["1: mini_letta.reflection.api"]
    sideways = "from mini_letta.reflection.evals.evaluation import x\n"
    assert _reflection_bypasses(REFLECTION / "policy" / "session.py", sideways) == [
        "1: mini_letta.reflection.evals.evaluation"
    ]


# A package the CLI uses through one face: cli/ imports it only through that module.
FACES = {"reflection": "mini_letta.reflection.api"}


def _face_bypasses(source: str) -> list[str]:
    """`line: module` for each import of a faced package that does not go through its face."""
    found = []
    for module, node, _ in _imports(_parse(source)):
        parts = module.split(".")
        face = FACES.get(parts[1]) if len(parts) > 1 and parts[0] == "mini_letta" else None
        if face is None or module == face:
            continue
        if len(parts) == 2 and isinstance(node, ast.ImportFrom):  # `from pkg import x`
            names = [f"{module}.{alias.name}" for alias in node.names]
            found += [f"{node.lineno}: {name} (use {face})" for name in names if name != face]
        elif len(parts) > 2:
            found.append(f"{node.lineno}: {module} (use {face})")
    return found


def test_the_cli_reaches_a_faced_package_only_through_its_face():
    _assert_none(
        lambda path: [f"{_relative(path)}:{b}" for b in _face_bypasses(_source(path))],
        sorted((PACKAGE / "cli").rglob("*.py")),
    )


def test_the_face_check_finds_a_bypass():
    source = (
        "import x\ndef f():\n    from mini_letta.reflection.run.launch import launch_reflection\n"
    )
    assert _face_bypasses(source) == [
        "3: mini_letta.reflection.run.launch (use mini_letta.reflection.api)"
    ]
    assert _face_bypasses("from mini_letta.reflection.api import launch\n") == []
    assert _face_bypasses("from mini_letta.reflection import api\n") == []
    assert _face_bypasses("from mini_letta.reflection import api, run\n") == [
        "1: mini_letta.reflection.run (use mini_letta.reflection.api)"
    ]


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@functools.cache
def _import_graph() -> dict[str, set[str]]:
    """module -> the package modules it imports, lazily or under TYPE_CHECKING included."""
    modules = {_module_name(path): path for path in _modules()}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets = set()
        for node in _nodes_of(_tree(path)):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for alias in node.names:
                    full = f"{node.module}.{alias.name}"
                    targets.add(full if full in modules else node.module)
            elif isinstance(node, ast.Import):
                targets.update(alias.name for alias in node.names)
        graph[name] = {target for target in targets if target in modules} - {name}
    return graph


# Entry points sit above the package they live in (main registers every command).
ENTRY_POINTS = {"mini_letta.cli.main", "mini_letta.__main__"}


@functools.cache
def _packages(modules: frozenset[str]) -> frozenset[str]:
    """Every module some other module sits under."""
    parts = [module.split(".") for module in modules]
    return frozenset(".".join(p[:end]) for p in parts for end in range(1, len(p)))


def _unit(module: str, graph: dict[str, set[str]]) -> str:
    """A module's package (`mini_letta.cli.commands`), or itself for top-level modules."""
    if module in ENTRY_POINTS:
        return module
    parent = module.rsplit(".", 1)[0]
    is_package = module in _packages(frozenset(graph))
    return module if is_package or parent == "mini_letta" else parent


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one member (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_module_imports_itself_round_a_cycle():
    """Not even lazily or for annotations: a cycle dodged by a late import is still a cycle."""
    assert _cycles(_import_graph()) == []


def test_no_package_imports_itself_round_a_cycle():
    """Between packages too (cli and cli/commands, llm and context): one direction each."""
    graph = _import_graph()
    units: dict[str, set[str]] = {}
    for module, targets in graph.items():
        source = _unit(module, graph)
        units.setdefault(source, set()).update(_unit(t, graph) for t in targets)
        units[source].discard(source)
    assert _cycles(units) == []


def test_package_init_imports_nothing_until_asked():
    """`import mini_letta` runs no import; its public names load api.py on first use."""
    tree = ast.parse((PACKAGE / "__init__.py").read_text(encoding="utf-8"))
    assert not any(isinstance(node, ast.Import | ast.ImportFrom) for node in tree.body)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            names = {f"{getattr(node, 'module', '')}.{alias.name}" for alias in node.names}
            assert all(name.startswith("mini_letta.api") for name in names), names


# A file name in a string: `"agent.json"`, `f"{run_id}.json"` (its ".json" part), `"*.jsonl"`.
_FILE_NAME = re.compile(r"^[\w.*{}-]*\.(json|jsonl|lock|idx|lease)$")


def _file_names(path: Path, tree: ast.Module) -> list[str]:
    """`file:line names a file ('x.json')` for each file name spelled outside home.py."""
    if path.name == "home.py" and path.parent == PACKAGE:
        return []
    return [
        f"{_relative(path)}:{node.lineno} names a file ({node.value!r}): ask Home (home.py)"
        for node in _nodes_of(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and _FILE_NAME.match(node.value)
    ]


def test_only_home_names_files():
    """Every file under the home (and the project's settings) is named in home.py alone."""
    _assert_none(lambda path: _file_names(path, _tree(path)))


_SPEC = re.compile(r"\bSPEC\b")


def _citations(path: Path, source: str) -> list[str]:
    return [
        f"{_relative(path)}:{number}: {line}"
        for number, line in enumerate(source.splitlines(), 1)
        if _SPEC.search(line)
    ]


def test_code_cites_no_document_outside_the_repository():
    """Comments point to docs/architecture.md or stand alone; there is no spec to cite."""
    _assert_none(lambda path: _citations(path, _source(path)))


def test_the_file_name_and_citation_checks_find_an_offender():
    memory = PACKAGE / "memory" / "repo.py"
    tree = ast.parse('LOCK = "memory.lock"\nNAME = f"{x}.json"\nTEXT = "a json file"\n')
    assert _file_names(memory, tree) == [
        "memory/repo.py:1 names a file ('memory.lock'): ask Home (home.py)",
        "memory/repo.py:2 names a file ('.json'): ask Home (home.py)",
    ]
    assert _file_names(PACKAGE / "home.py", tree) == []
    source = "x = 1\n# see SPEC section 3\n# a SPECIAL case\n"
    assert _citations(memory, source) == ["memory/repo.py:2: # see SPEC section 3"]


def test_every_name_a_face_exports_can_be_imported() -> None:
    """`from mini_letta.reflection.api import *` loads each name in `__all__` (a listed name
    the face cannot load would fail there, far from its cause)."""
    import mini_letta.reflection.api as face

    for name in face.__all__:
        assert getattr(face, name) is not None, name

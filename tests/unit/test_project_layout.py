"""What the package promises about itself: one namespace, configs that agree."""

import ast
import importlib
import json
import runpy
import subprocess
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path

from critic_loop.nodes.memory import lexical_embeddings

ROOT = Path(__file__).resolve().parents[2]
SOURCE_FOLDERS = ["critic_loop", "graphs", "nodes", "state"]
CORE = {"graphs": "critic_loop.graphs", "nodes": "critic_loop.nodes", "state": "critic_loop.state"}
"""The core's folders and the packages they install as; the ring is the rest of critic_loop."""
LEAVES = {
    "critic_loop.sandbox": ROOT / "critic_loop" / "sandbox",
    "critic_loop.keyed_locks": ROOT / "critic_loop" / "keyed_locks.py",
    "critic_loop.extras": ROOT / "critic_loop" / "extras.py",
}
"""Libraries of critic_loop that import nothing of it (nor of LangGraph): the core may use them."""


def test_every_source_folder_is_a_package_of_the_wheel() -> None:
    packages = set(runpy.run_path(str(ROOT / "setup.py"), run_name="not_main")["packages"]())
    found = set()
    for folder, name in zip(
        SOURCE_FOLDERS,
        ["critic_loop", "critic_loop.graphs", "critic_loop.nodes", "critic_loop.state"],
        strict=True,
    ):
        for init in (ROOT / folder).rglob("__init__.py"):
            relative = init.parent.relative_to(ROOT / folder).parts
            found.add(".".join([name, *relative]))
    assert found <= packages
    assert all(package.startswith("critic_loop") for package in packages)


def test_no_private_langgraph_api_in_the_package() -> None:
    for folder in SOURCE_FOLDERS:
        for path in (ROOT / folder).rglob("*.py"):
            assert "langgraph._internal" not in path.read_text(), path


def test_the_served_index_and_the_code_agree_on_dimensions() -> None:
    config = json.loads((ROOT / "langgraph.json").read_text())
    index = config["store"]["index"]
    assert index["dims"] == lexical_embeddings.DIMENSIONS
    path, function = index["embed"].split(":")
    assert (ROOT / path).resolve() == Path(lexical_embeddings.__file__).resolve()
    assert callable(getattr(lexical_embeddings, function))


def test_every_served_graph_is_an_installed_module_without_persistence() -> None:
    config = json.loads((ROOT / "langgraph.json").read_text())
    for spec in config["graphs"].values():
        path = spec["path"] if isinstance(spec, dict) else spec
        module, attribute = path.split(":")
        graph = getattr(importlib.import_module(module), attribute)
        assert graph.checkpointer is None and graph.store is None, path


def test_the_server_loads_checkpoints_strictly() -> None:
    config = json.loads((ROOT / "langgraph.json").read_text())
    assert config["env"]["LANGGRAPH_STRICT_MSGPACK"] == "true"
    assert config["checkpointer"]["serde"]["pickle_fallback"] is False
    assert "ENV LANGGRAPH_STRICT_MSGPACK=true" in config["dockerfile_lines"]


def _module_name(path: Path) -> str:
    folder, *parts = path.relative_to(ROOT).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join([CORE[folder], *parts])


def imported_modules(source: str, module: str, is_package: bool = False) -> list[tuple[int, str]]:
    """Every module `source` (the module `module`) imports, anywhere in it, relative resolved.

    `from a import b` counts as importing `a` and `a.b` (b may be a module); a call to
    `import_module` with a literal name counts too.
    """
    package = module.split(".") if is_package else module.split(".")[:-1]
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package[: len(package) - (node.level - 1)]
                base = ".".join([*anchor, *([base] if base else [])])
            found.append((node.lineno, base))
            found += [(node.lineno, f"{base}.{alias.name}") for alias in node.names]
        elif (
            isinstance(node, ast.Call)
            and getattr(node.func, "attr", getattr(node.func, "id", None)) == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            found.append((node.lineno, node.args[0].value))
    return sorted(found)


def _inside(module: str, packages: Iterable[str]) -> bool:
    return any(module == package or module.startswith(package + ".") for package in packages)


def is_ring(module: str) -> bool:
    """Whether `module` is part of critic_loop outside the core (graphs, nodes, state, leaves)."""
    return _inside(module, ["critic_loop"]) and not _inside(module, [*CORE.values(), *LEAVES])


def test_the_core_imports_nothing_from_the_ring() -> None:
    reaching_out = [
        f"{path.relative_to(ROOT)}:{line} imports {module}"
        for folder in CORE
        for path in sorted((ROOT / folder).rglob("*.py"))
        for line, module in imported_modules(
            path.read_text(), _module_name(path), path.name == "__init__.py"
        )
        if is_ring(module)
    ]
    assert reaching_out == []


def test_the_core_is_layered_state_below_nodes_below_graphs() -> None:
    above = {"state": ["critic_loop.nodes", "critic_loop.graphs"], "nodes": ["critic_loop.graphs"]}
    reaching_up = [
        f"{path.relative_to(ROOT)}:{line} imports {module}"
        for folder, layers in above.items()
        for path in sorted((ROOT / folder).rglob("*.py"))
        for line, module in imported_modules(
            path.read_text(), _module_name(path), path.name == "__init__.py"
        )
        if _inside(module, layers)
    ]
    assert reaching_up == []


def leaf_modules() -> Iterator[tuple[Path, str]]:
    """Every module of the leaves: its file and its name."""
    for leaf, place in LEAVES.items():
        if place.is_file():
            yield place, leaf
        for path in sorted(place.rglob("*.py")) if place.is_dir() else []:
            parts = path.relative_to(place).with_suffix("").parts
            yield path, ".".join([leaf, *parts]).removesuffix(".__init__")


def test_a_leaf_imports_nothing_of_critic_loop_langgraph_or_langchain() -> None:
    reaching_out = [
        f"{path.relative_to(ROOT)}:{line} imports {module}"
        for path, name in leaf_modules()
        for line, module in imported_modules(path.read_text(), name, path.name == "__init__.py")
        if module.startswith(("critic_loop", "langgraph", "langchain"))
        and not _inside(module, LEAVES)
    ]
    assert reaching_out == []
    assert is_ring("critic_loop.persistence") and not is_ring("critic_loop.sandbox.runner")
    assert len({name for _, name in leaf_modules()}) >= 2 + len(LEAVES)  # each leaf was read
    imported = subprocess.run(
        [sys.executable, "-c", LEAF_IMPORTS, *LEAVES], capture_output=True, text=True, check=True
    )
    assert json.loads(imported.stdout) == []  # nor anything that imports them


LEAF_IMPORTS = """
import importlib, json, pkgutil, sys
for leaf in sys.argv[1:]:
    package = importlib.import_module(leaf)
    for found in pkgutil.walk_packages(getattr(package, "__path__", []), leaf + "."):
        importlib.import_module(found.name)
print(json.dumps(sorted(
    name for name in sys.modules
    if name.startswith(("langgraph", "langchain"))
    or name.startswith("critic_loop.") and not name.startswith(tuple(sys.argv[1:]))
)))
"""


def test_the_import_check_sees_every_kind_of_import() -> None:
    source = """
import json
import critic_loop.errors
from critic_loop import run
from ...persistence import open_saver
from . import route
from ..models.loading import worker_model


def late():
    from critic_loop.cli.display import show
    importlib.import_module("critic_loop.serving.graphs")
"""
    found = imported_modules(source, "critic_loop.nodes.loop.worker_turns")
    assert [(line, module) for line, module in found if is_ring(module)] == [
        (3, "critic_loop.errors"),
        (4, "critic_loop"),
        (4, "critic_loop.run"),
        (5, "critic_loop.persistence"),
        (5, "critic_loop.persistence.open_saver"),
        (11, "critic_loop.cli.display"),
        (11, "critic_loop.cli.display.show"),
        (12, "critic_loop.serving.graphs"),
    ]
    inside = {module for _, module in found if not is_ring(module)}
    assert {"critic_loop.nodes.loop.route", "critic_loop.nodes.models.loading"} <= inside
    assert imported_modules("from . import x", "critic_loop.state", is_package=True) == [
        (1, "critic_loop.state"),
        (1, "critic_loop.state.x"),
    ]

"""What the package promises about itself: one namespace, configs that agree."""

import ast
import importlib
import json
import runpy
from pathlib import Path

from critic_loop.nodes.memory import lexical_embeddings

ROOT = Path(__file__).resolve().parents[2]
SOURCE_FOLDERS = ["critic_loop", "graphs", "nodes", "state"]
CORE = {"graphs": "critic_loop.graphs", "nodes": "critic_loop.nodes", "state": "critic_loop.state"}
"""The core's folders and the packages they install as; the ring is the rest of critic_loop."""


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


def is_ring(module: str) -> bool:
    """Whether `module` is part of critic_loop outside the core (graphs, nodes, state)."""
    if module != "critic_loop" and not module.startswith("critic_loop."):
        return False
    return not any(module == core or module.startswith(core + ".") for core in CORE.values())


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

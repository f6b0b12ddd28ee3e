"""What the package promises about itself: one namespace, settings documented, configs agree."""

import importlib
import json
import re
import runpy
from pathlib import Path

from critic_loop.nodes.memory import lexical_embeddings
from critic_loop.state.context import Context

ROOT = Path(__file__).resolve().parents[2]
SOURCE_FOLDERS = ["critic_loop", "graphs", "nodes", "state"]


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


def test_every_setting_is_in_the_readme_table() -> None:
    readme = (ROOT / "README.md").read_text()
    documented = set(re.findall(r"^\| `(\w+)` \|", readme, flags=re.MULTILINE))
    assert set(Context.model_fields) <= documented


def test_the_server_loads_checkpoints_strictly() -> None:
    config = json.loads((ROOT / "langgraph.json").read_text())
    assert config["env"]["LANGGRAPH_STRICT_MSGPACK"] == "true"
    assert config["checkpointer"]["serde"]["pickle_fallback"] is False
    assert "ENV LANGGRAPH_STRICT_MSGPACK=true" in config["dockerfile_lines"]

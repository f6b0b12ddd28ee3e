"""The LangGraph server deployment, checked without Docker: the CLI's own checks and Dockerfile.

`langgraph build` and `langgraph up` need a Docker engine and the licensed server image;
what they build is the Dockerfile `langgraph dockerfile` writes, so that file is read
here: it must install the package and every graph, store and checkpointer setting the
server needs, and the sandbox for drafted code.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from langgraph.graph.state import CompiledStateGraph
from langgraph.store.memory import InMemoryStore

from critic_loop.nodes.memory.lexical_embeddings import rule_index

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
LANGGRAPH = Path(sys.executable).with_name("langgraph")


def langgraph(*arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(LANGGRAPH), *arguments],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.fixture(scope="module")
def dockerfile(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    path = tmp_path_factory.mktemp("image") / "Dockerfile"
    done = langgraph("dockerfile", "-c", "langgraph.json", str(path))
    assert done.returncode == 0, done.stdout + done.stderr
    return path.read_text().splitlines()


def env_values(lines: list[str]) -> dict[str, str]:
    """The image's ENV settings (`ENV NAME=value`, the value shell-quoted)."""
    values = {}
    for line in lines:
        if line.startswith("ENV "):
            name, _, value = line[4:].partition("=")
            values[name] = shlex.split(value)[0]
    return values


def test_the_cli_validates_the_configuration() -> None:
    done = langgraph("validate", "-c", "langgraph.json")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "valid" in done.stdout and "2 graphs found" in done.stdout


def test_the_image_installs_the_package_and_serves_both_graphs(dockerfile: list[str]) -> None:
    assert dockerfile[0].startswith("FROM langchain/langgraph-api:3.11")
    added = [line.split()[-1] for line in dockerfile if line.startswith("ADD . /deps/")]
    assert len(added) == 1, dockerfile  # the repository, as the local package
    package_dir = added[0]
    installs = [line for line in dockerfile if "for dep in /deps/*" in line]
    assert installs and "uv pip install" in installs[0] and "-e ." in installs[0]
    assert dockerfile[-1] == f"WORKDIR {package_dir}"  # relative paths resolve from here

    graphs = json.loads(env_values(dockerfile)["LANGSERVE_GRAPHS"])
    paths = {graph_id: spec["path"] for graph_id, spec in graphs.items()}
    assert paths == {
        "critic_loop": "critic_loop.serving.graphs:graph",
        "distill": "critic_loop.serving.graphs:distill",
    }
    assert all(spec["description"] for spec in graphs.values())
    for reference in paths.values():  # importable from the installed package
        module, _, name = reference.partition(":")
        graph = getattr(__import__(module, fromlist=[name]), name)
        assert isinstance(graph, CompiledStateGraph)
        assert graph.checkpointer is None and graph.store is None  # the server brings both


def test_the_image_configures_the_store_and_strict_checkpoints(dockerfile: list[str]) -> None:
    values = env_values(dockerfile)
    assert values["LANGGRAPH_STRICT_MSGPACK"] == "true"
    assert json.loads(values["LANGGRAPH_CHECKPOINTER"]) == {"serde": {"pickle_fallback": False}}
    index = json.loads(values["LANGGRAPH_STORE"])["index"]
    assert index["dims"] == 128 and index["fields"] == rule_index()["fields"] == ["about"]
    assert index["dims"] == rule_index()["dims"]

    # the server loads the embed function as langgraph-api does, from the image's WORKDIR
    # (a process of its own: langgraph-api's settings want the server's environment)
    path, _, function = index["embed"].rpartition(":")
    assert (ROOT / path).is_file() and function == "embed_texts"
    load = (
        "import json, sys\n"
        "from langgraph_api.graph import resolve_embeddings\n"
        "vectors = resolve_embeddings(json.loads(sys.argv[1])).embed_documents(['A rule.'])\n"
        "print(len(vectors), len(vectors[0]))\n"
    )
    server_env = {
        **os.environ,
        "REDIS_URI": "redis://127.0.0.1:1",
        "DATABASE_URI": "postgresql://server@127.0.0.1:1/server",
    }
    done = subprocess.run(
        [sys.executable, "-c", load, json.dumps(index)],
        cwd=ROOT,
        env=server_env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1].split() == ["1", "128"]  # after its log line


def test_the_image_has_the_sandbox_and_pytest_for_test_suites(dockerfile: list[str]) -> None:
    text = "\n".join(dockerfile)
    assert re.search(r"^RUN apt-get update && apt-get install .*\bbubblewrap\b", text, re.M)
    pip_installs = [line for line in dockerfile if "uv pip install" in line and "pytest" in line]
    assert pip_installs, "pytest (the `tests` criterion's runner) is not installed"
    for line in pip_installs:  # the CLI does not quote specifiers: '<' or '>' would redirect
        assert not re.search(r"[<>]", line), line


def test_the_image_checks_tokens_and_refuses_all_until_it_can(dockerfile: list[str]) -> None:
    values = env_values(dockerfile)
    assert json.loads(values["LANGGRAPH_AUTH"]) == {
        "path": "critic_loop.serving.auth:auth",
        "disable_studio_auth": True,  # no unauthenticated Studio shortcut
    }
    assert values["CRITIC_LOOP_AUTH_REQUIRED"] == "true"  # no secret set: every request refused


def test_served_graphs_lock_memory_scopes_across_containers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Rule writes on the server hold an advisory lock in its PostgreSQL, not a process lock."""
    from critic_loop.graphs.app import graph
    from critic_loop.keyed_locks import AdvisoryLocks, KeyedLock
    from critic_loop.nodes.memory.scope_locks import scope_lock, set_default_scope_lock
    from critic_loop.serving.graphs import graph as served
    from critic_loop.serving.graphs import lock_scopes_across_containers

    assert served is graph
    store = InMemoryStore()  # any store critic-loop did not open, like the server's
    try:
        monkeypatch.delenv("DATABASE_URI", raising=False)
        monkeypatch.setenv("POSTGRES_URI", "postgresql://server@db:5432/langgraph")
        assert lock_scopes_across_containers()
        lock = scope_lock(store)
        assert isinstance(lock, AdvisoryLocks) and lock.url.endswith("@db:5432/langgraph")
        set_default_scope_lock(None)
        monkeypatch.setenv("POSTGRES_URI", ":memory:")  # langgraph dev: nothing changes
        assert not lock_scopes_across_containers()
        assert type(scope_lock(store)) is KeyedLock  # this process's
    finally:
        set_default_scope_lock(None)


def test_compose_env_stays_out_of_the_image(dockerfile: list[str]) -> None:
    """`env` in langgraph.json reaches only `langgraph up`; the image sets strict mode itself."""
    config = json.loads((ROOT / "langgraph.json").read_text())
    assert config["env"] == {"LANGGRAPH_STRICT_MSGPACK": "true"}
    assert "ENV LANGGRAPH_STRICT_MSGPACK=true" in dockerfile

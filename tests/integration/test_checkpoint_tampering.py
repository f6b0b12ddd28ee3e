"""A checkpoint row tampered with in the database is refused on load; nothing it names runs."""

import pickle
import sqlite3

import ormsgpack
import pytest
from langgraph.checkpoint.serde.jsonplus import EXT_CONSTRUCTOR_POS_ARGS

from critic_loop import run_loop
from critic_loop.errors import UnsafeCheckpoint
from critic_loop.graphs.app import build_graph
from critic_loop.persistence import open_persistence
from critic_loop.persistence.serde import StrictSerializer
from tests.support.contexts import scripted_context
from tests.support.rubrics import RUBRIC, TASK
from tests.support.verdicts import graded

pytestmark = pytest.mark.integration


class Payload:
    def __init__(self, command: str) -> None:
        self.command = command

    def __reduce__(self):
        import os

        return (os.system, (self.command,))


def finished_run(models, path) -> None:
    models.script("worker", "draft")
    models.script("critic", graded(RUBRIC))
    run_loop(TASK, RUBRIC, context=scripted_context(), thread_id="t", database=path)


def tamper(path, kind: str, command: str) -> None:
    """Make the latest checkpoint's `final` channel name os.system(command)."""
    connection = sqlite3.connect(path)
    checkpoint_id, blob_kind, blob = connection.execute(
        "select checkpoint_id, type, checkpoint from checkpoints where thread_id = 't' "
        "order by checkpoint_id desc limit 1"
    ).fetchone()
    checkpoint = StrictSerializer().loads_typed((blob_kind, blob))
    if kind == "msgpack":
        checkpoint["channel_values"]["final"] = ormsgpack.Ext(
            EXT_CONSTRUCTOR_POS_ARGS, ormsgpack.packb(("os", "system", [command]))
        )
        stored = StrictSerializer().dumps_typed(checkpoint)
    else:
        checkpoint["channel_values"]["final"] = Payload(command)
        stored = ("pickle", pickle.dumps(checkpoint))
    connection.execute(
        "update checkpoints set type = ?, checkpoint = ? where checkpoint_id = ?",
        (*stored, checkpoint_id),
    )
    connection.commit()
    connection.close()


@pytest.mark.parametrize("kind", ["msgpack", "pickle"])
def test_a_tampered_checkpoint_is_refused_on_load(models, tmp_path, kind) -> None:
    path, marker = tmp_path / "runs.sqlite", tmp_path / "marker"
    finished_run(models, path)
    tamper(path, kind, f"touch {marker}")
    with open_persistence(path) as persistence:
        graph = build_graph(checkpointer=persistence.checkpointer)
        with pytest.raises(UnsafeCheckpoint, match="refusing a stored checkpoint"):
            graph.get_state({"configurable": {"thread_id": "t"}})
    assert not marker.exists()


def test_an_untampered_checkpoint_loads(models, tmp_path) -> None:
    path = tmp_path / "runs.sqlite"
    finished_run(models, path)
    with open_persistence(path) as persistence:
        graph = build_graph(checkpointer=persistence.checkpointer)
        values = graph.get_state({"configurable": {"thread_id": "t"}}).values
    assert values["outcome"] == "passed" and values["final"] == "draft"


def test_python_callers_rubric_objects_load_from_the_allowlist(models, tmp_path) -> None:
    models.script("worker", "draft")
    models.script("critic", graded(RUBRIC))
    with open_persistence(tmp_path / "runs.sqlite") as persistence:
        graph = build_graph(checkpointer=persistence.checkpointer)
        config = {"configurable": {"thread_id": "objects"}}
        graph.invoke({"task": TASK, "rubric": RUBRIC}, config, context=scripted_context())
        history = list(graph.get_state_history(config))
    assert any(isinstance(s.values.get("rubric", [None])[0], type(RUBRIC[0])) for s in history)


@pytest.mark.parametrize("planted", ["bomb", "not zlib"])
def test_a_compressed_row_that_unpacks_too_far_or_not_at_all_is_refused(
    models, tmp_path, monkeypatch, planted
) -> None:
    import zlib

    from critic_loop.persistence import serde

    path = tmp_path / "runs.sqlite"
    finished_run(models, path)
    monkeypatch.setattr(serde, "MAX_UNPACKED_BYTES", 1 << 20)  # 1 MiB, so the bomb is small
    blob = zlib.compress(b"\0" * (2 << 20)) if planted == "bomb" else b"not zlib data"
    connection = sqlite3.connect(path)
    connection.execute(
        "update checkpoints set type = 'msgpack+zlib', checkpoint = ? where thread_id = 't' "
        "and checkpoint_id = (select max(checkpoint_id) from checkpoints where thread_id = 't')",
        (blob,),
    )
    connection.commit()
    connection.close()
    with open_persistence(path) as persistence:
        graph = build_graph(checkpointer=persistence.checkpointer)
        with pytest.raises(UnsafeCheckpoint, match="refusing a stored"):
            graph.get_state({"configurable": {"thread_id": "t"}})


def test_large_values_are_stored_compressed_and_load_back(models, tmp_path) -> None:
    text = "A long draft, every sentence of it different: " + " ".join(
        f"sentence {n} says {n * 7 % 13} things." for n in range(400)
    )
    models.script("worker", text)
    models.script("critic", graded(RUBRIC))
    path = tmp_path / "runs.sqlite"
    run_loop(TASK, RUBRIC, context=scripted_context(), thread_id="t", database=path)
    kinds = {
        kind
        for (kind,) in sqlite3.connect(path).execute(
            "select type from writes where thread_id = 't' and channel = 'drafts'"
        )
    }
    assert kinds == {"msgpack+zlib"}
    with open_persistence(path) as persistence:
        graph = build_graph(checkpointer=persistence.checkpointer)
        values = graph.get_state({"configurable": {"thread_id": "t"}}).values
    assert values["drafts"][0]["text"] == text and values["final"] == text

"""The distillation graph on its own, on an earlier thread read back from the checkpointer."""

import pytest
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.store.sqlite import SqliteStore

from critic_loop.graphs.app import build_graph
from critic_loop.graphs.distill import build_distill_graph
from critic_loop.state.context import Context
from critic_loop.state.distill import DistillInput
from critic_loop.state.rules import Rule, rules_namespace
from tests.support.rubrics import RUBRIC
from tests.support.verdicts import graded

pytestmark = pytest.mark.integration


def test_distill_an_earlier_thread_on_demand(models, loop_input, tmp_path) -> None:
    base = {
        "worker_model": "scripted:worker",
        "critic_model": "scripted:critic",
        "distill_model": "scripted:distill",
        "memory_scope": "sql",
    }
    models.script("worker", "draft 1", "draft 2")
    models.script("critic", graded(RUBRIC, {"example": "Add a worked example."}), graded(RUBRIC))
    models.script("distill")
    config = {"configurable": {"thread_id": "earlier"}}
    with (
        SqliteSaver.from_conn_string(str(tmp_path / "checkpoints.sqlite")) as saver,
        SqliteStore.from_conn_string(str(tmp_path / "store.sqlite")) as store,
    ):
        store.setup()
        # a run made with distillation off
        build_graph(checkpointer=saver, store=store).invoke(
            loop_input, config, context=Context(**base, distill=False)
        )
        assert store.search(rules_namespace("sql")) == []

        # later: read the thread back and distill it
        values = build_graph(checkpointer=saver).get_state(config).values
        past = {key: values[key] for key in DistillInput.model_fields if key in values}
        past["source_thread_id"] = "earlier"
        rule = {
            "action": "add",
            "rule_id": "",
            "text": "Always include a worked example.",
            "criteria": ["example"],
            "reason": "round 1 lacked one",
        }
        models.script("distill", {"operations": [rule]})
        out = build_distill_graph(store=store).invoke(past, context=Context(**base))

        assert set(out) == {"memory_report", "memory_errors"}
        assert out["memory_errors"] == []
        [item] = store.search(rules_namespace("sql"))
        stored = Rule.model_validate(item.value)
    assert out["memory_report"]["added"] == [item.key]
    assert stored.text == "Always include a worked example."
    assert stored.provenance.thread_id == "earlier"
    assert stored.provenance.outcome == "passed" and stored.provenance.rounds == 2
    # the distiller saw the run's lesson, not its drafts or its rubric
    prompt = models["distill"].texts()[0]
    assert "[example] Add a worked example." in prompt
    assert "draft 1" not in prompt and "draft 2" not in prompt
    assert all(criterion.text not in prompt for criterion in RUBRIC)

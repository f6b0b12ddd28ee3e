"""`critic-loop rules` and `critic-loop forget`, driven in-process by `main(argv)`.

`rules` reads the rules real runs distilled (and the usage a later run recorded);
`forget` works on rules written straight into a store, with a ranking item, so each
test starts from a known scope.
"""

from __future__ import annotations

import io
import sys
import uuid
from datetime import UTC, datetime
from pathlib import Path

import pytest

from critic_loop.nodes.memory.ranking import (
    RANKING_KEY,
    entries_of,
    ranked,
    ranking_namespace,
    ranking_put,
    strongest_rules,
)
from critic_loop.persistence import open_persistence
from critic_loop.state.rules import Rule, RuleProvenance, RuleUsage, rules_namespace
from tests.support.run_history import OTHER_RULE, RULE, cli_runner, make_history, one_line_error

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def history_db(tmp_path_factory) -> str:
    db = str(tmp_path_factory.mktemp("memory") / "runs.sqlite")
    make_history(db)
    return db


@pytest.fixture
def cli(tmp_path, monkeypatch, capsys):
    return cli_runner(tmp_path, monkeypatch, capsys)


# --- rules ----------------------------------------------------------------------------------


def test_rules_show_usage_and_provenance(history_db, cli) -> None:
    done = cli("rules", "--db", history_db)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "scope 'default': 1 rule(s), strongest first"
    assert lines[2] == f"  {RULE}"
    assert "  criteria: tone" in lines
    assert "  learned on a task about: explain hash map" in lines  # the topic recall matches
    # t-recall was given the rule and passed in one round
    used = "  used: consulted by 1 run(s), 1 passed (100%), 1.0 round(s) on average when passed"
    assert used in lines
    assert "  learned from thread t-pass (passed in 2 round(s))" in lines
    assert lines[-1].startswith("  created ") and " UTC, updated " in lines[-1]


def test_rules_json_and_every_scope(history_db, cli) -> None:
    [rule] = cli("rules", "--db", history_db, "--json").json
    assert rule["text"] == RULE and rule["scope"] == "default"
    assert rule["usage"] == {
        "consulted": 1,
        "passed": 1,
        "pass_rate": 1.0,
        "rounds_when_passed": 1,
        "mean_rounds_when_passed": 1.0,
        "usefulness": pytest.approx(2 / 3),
    }
    assert rule["provenance"] == {"thread_id": "t-pass", "outcome": "passed", "rounds": 2}
    assert rule["topics"] == ["explain hash map"]
    assert rule["created_at"] <= rule["updated_at"]
    every = cli("rules", "--db", history_db, "--all-scopes", "--json").json
    assert sorted(r["scope"] for r in every) == ["default", "other"]
    other = cli("rules", "--db", history_db, "--scope", "other").stdout
    assert OTHER_RULE in other
    assert "learned from thread t-exhausted (exhausted in 2 round(s))" in other


def test_rules_default_scope_comes_from_the_environment(history_db, cli, monkeypatch) -> None:
    monkeypatch.setenv("CRITIC_LOOP_MEMORY_SCOPE", "other")
    [rule] = cli("rules", "--db", history_db, "--json").json
    assert rule["text"] == OTHER_RULE


def test_rules_of_an_empty_scope_and_bad_scopes(history_db, cli) -> None:
    empty = cli("rules", "--db", history_db, "--scope", "nobody")
    assert (empty.returncode, empty.stdout) == (  # and where rules are: the demo's, say
        0,
        "no rules in scope 'nobody'\nrules are kept in scope(s) 'default', 'other': "
        "critic-loop rules --scope default (or --all-scopes)\n",
    )
    one_line_error(cli("rules", "--db", history_db, "--scope", "../etc"), "not a scope name")
    one_line_error(cli("rules", "--db", history_db, "--scope", "a", "--all-scopes"), "not both")
    one_line_error(cli("rules", "--db", "nowhere.sqlite"), "no database at nowhere.sqlite")


# --- forget ---------------------------------------------------------------------------------

TEXTS = {
    "aaaa1111": "State the numbers the task gives.",
    "aaaa2222": "Keep it under fifty words.",
    "bbbb3333": "Name the audience in the first line.",
}


def stored_rule(text: str, scope: str, consulted: int, passed: int) -> dict:
    now = datetime(2026, 1, 1, tzinfo=UTC)
    return Rule(
        text=text,
        scope=scope,
        provenance=RuleProvenance(thread_id="t0", outcome="passed", rounds=1),
        usage=RuleUsage(consulted=consulted, passed=passed, rounds_when_passed=passed),
        created_at=now,
        updated_at=now,
    ).model_dump(mode="json")


@pytest.fixture
def rules_db(tmp_path) -> str:
    """Three rules in scope "alpha" (with their ranking item) and one in "beta"."""
    db = str(tmp_path / "rules.sqlite")
    with open_persistence(db) as persistence:
        store = persistence.store
        values = {
            rule_id: stored_rule(text, "alpha", consulted=n, passed=n)
            for n, (rule_id, text) in enumerate(TEXTS.items())
        }
        for rule_id, value in values.items():
            store.put(rules_namespace("alpha"), rule_id, value)
        store.batch([ranking_put("alpha", ranked(values.items()))])
        store.put(rules_namespace("beta"), "cccc4444", stored_rule("Beta rule.", "beta", 0, 0))
    return db


def scope_state(db: str, scope: str) -> tuple[set[str], list[str] | None, list[str]]:
    """The rule ids a scope holds, its ranking's ids, and what recall would give."""
    with open_persistence(db) as persistence:
        store = persistence.store
        held = {item.key for item in store.search(rules_namespace(scope), limit=100)}
        entries = entries_of(store.get(ranking_namespace(scope), RANKING_KEY))
        recalled = [item.key for item in strongest_rules(store, scope, 5)]
    return held, None if entries is None else [entry[0] for entry in entries], recalled


def test_forget_with_yes_deletes_the_rule_and_rewrites_the_ranking(rules_db, cli) -> None:
    done = cli("forget", "aaaa2222", "--scope", "alpha", "--yes", "--db", rules_db)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "forget rule aaaa2222 of scope 'alpha':",
        f"  {TEXTS['aaaa2222']}",
        "deleted 1 rule(s) from scope 'alpha'",
    ]
    held, ranking, recalled = scope_state(rules_db, "alpha")
    assert held == {"aaaa1111", "bbbb3333"}
    assert ranking == ["bbbb3333", "aaaa1111"]  # strongest first, without the deleted one
    assert recalled == ["bbbb3333", "aaaa1111"]
    assert scope_state(rules_db, "beta")[0] == {"cccc4444"}  # other scopes untouched


def test_forget_asks_first_and_a_yes_deletes(rules_db, cli, monkeypatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("y\n"))
    done = cli("forget", "bbbb", "--scope", "alpha", "--db", rules_db)  # a unique beginning
    assert done.returncode == 0, done.stderr
    assert "forget rule bbbb3333 of scope 'alpha':" in done.stdout
    assert "Delete? [y/N]: " in done.stdout
    assert done.stdout.endswith("deleted 1 rule(s) from scope 'alpha'\n")
    assert scope_state(rules_db, "alpha")[0] == {"aaaa1111", "aaaa2222"}


def test_forget_declined_deletes_nothing(rules_db, cli, monkeypatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("n\n"))
    done = cli("forget", "aaaa1111", "--scope", "alpha", "--db", rules_db)
    assert done.returncode == 1
    assert done.stdout.endswith("nothing deleted\n")
    assert scope_state(rules_db, "alpha")[0] == set(TEXTS)


def test_forget_with_no_answer_deletes_nothing(rules_db, cli, monkeypatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    done = cli("forget", "aaaa1111", "--scope", "alpha", "--db", rules_db)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "critic-loop: no answer to the question: nothing deleted (--yes deletes without asking)"
    ]
    assert scope_state(rules_db, "alpha")[0] == set(TEXTS)


def test_forget_all_empties_the_scope_and_drops_its_ranking(rules_db, cli, monkeypatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("y\n"))
    done = cli("forget", "--all", "--scope", "alpha", "--db", rules_db)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("forget all 3 rule(s) of scope 'alpha'\n")
    assert scope_state(rules_db, "alpha") == (set(), None, [])
    assert scope_state(rules_db, "beta")[0] == {"cccc4444"}


def test_forget_bad_input_is_a_one_line_error(rules_db, cli) -> None:
    db = ["--db", rules_db]
    one_line_error(cli("forget", "zzzz", "--scope", "alpha", "--yes", *db), "no rule 'zzzz'")
    one_line_error(
        cli("forget", "cccc4444", "--scope", "alpha", "--yes", *db),
        "it is in scope 'beta': add --scope beta",
    )
    one_line_error(cli("forget", "aaaa", "--scope", "alpha", "--yes", *db), "names 2 rules")
    one_line_error(cli("forget", "--all", "--yes", *db), "--all needs --scope")
    one_line_error(cli("forget", "--scope", "alpha", *db), "name one RULE_ID, or give --all")
    one_line_error(cli("forget", "x", "--all", "--scope", "alpha", *db), "name one RULE_ID")
    one_line_error(cli("forget", "--all", "--scope", "nobody", "--yes", *db), "holds no rules")
    assert scope_state(rules_db, "alpha")[0] == set(TEXTS)
    assert not Path("nowhere.sqlite").exists()


def test_rules_and_forget_on_postgresql(postgres_url, cli) -> None:
    tag = f"-{uuid.uuid4().hex[:8]}"
    make_history(postgres_url, tag)
    db = ["--db", postgres_url]
    [rule] = cli("rules", "--scope", f"main{tag}", "--json", *db).json
    assert rule["text"] == RULE and rule["usage"]["consulted"] == 1
    every = {r["scope"] for r in cli("rules", "--all-scopes", "--json", *db).json}
    assert {f"main{tag}", f"other{tag}"} <= every
    done = cli("forget", rule["id"][:8], "--scope", f"main{tag}", "--yes", *db)
    assert done.returncode == 0, done.stderr
    assert cli("rules", "--scope", f"main{tag}", "--json", *db).json == []
    held, ranking, recalled = scope_state(postgres_url, f"main{tag}")
    assert (held, ranking, recalled) == (set(), None, [])
    emptied = cli("forget", "--all", "--scope", f"other{tag}", "--yes", *db)
    assert emptied.stdout.splitlines()[-1] == f"deleted 1 rule(s) from scope 'other{tag}'"

"""`critic-loop rules` and `critic-loop forget`: see and prune what memory has learned."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

import click
from pydantic import ValidationError

from critic_loop.cli.context_options import SectionedCommand, db_option, json_option, option
from critic_loop.cli.history import echo_json, when
from critic_loop.errors import UsageProblem

if TYPE_CHECKING:
    from langgraph.store.base import BaseStore, Item

SCOPE_PATTERN = re.compile(r"^[A-Za-z0-9_-]{1,64}$")

SCOPE_HELP = "The memory scope [default: $CRITIC_LOOP_MEMORY_SCOPE, else default]."


def _chosen_scope(scope: str | None) -> str:
    scope = scope or os.environ.get("CRITIC_LOOP_MEMORY_SCOPE") or "default"
    if not SCOPE_PATTERN.match(scope):
        raise UsageProblem(
            f"--scope {scope!r} is not a scope name (up to 64 letters, digits, '_' and '-')"
        )
    return scope


def _scopes_of(store: BaseStore) -> list[str]:
    from critic_loop.state.rules import RULES_NAMESPACE_PREFIX

    found: list[str] = []
    page = 100
    while True:
        namespaces = store.list_namespaces(
            prefix=RULES_NAMESPACE_PREFIX, max_depth=3, limit=page, offset=len(found)
        )
        found += [namespace[2] for namespace in namespaces if len(namespace) > 2]
        if len(namespaces) < page:
            return sorted(set(found))


def _rules_of(store: BaseStore, scope: str) -> list[Item]:
    from critic_loop.nodes.memory.ranking import ranked, read_scope

    items = {item.key: item for item in read_scope(store, scope)}
    order = ranked((key, item.value) for key, item in items.items())
    return [items[rule_id] for rule_id, _, _ in order]


def _rule_summary(item: Item) -> dict[str, Any]:
    from critic_loop.state.rules import Rule

    try:
        rule = Rule.model_validate(item.value)
    except ValidationError as error:
        return {"id": item.key, "scope": item.namespace[-1], "unreadable": str(error)}
    usage = rule.usage
    return {
        "id": item.key,
        **rule.model_dump(mode="json", include={"scope", "text", "criteria", "topics"}),
        "usage": {
            **usage.model_dump(),
            "pass_rate": usage.passed / usage.consulted if usage.consulted else None,
            "mean_rounds_when_passed": (
                usage.rounds_when_passed / usage.passed if usage.passed else None
            ),
            "usefulness": usage.usefulness,
        },
        **rule.model_dump(mode="json", include={"provenance", "last_changed_by"}),
        "created_at": rule.created_at.isoformat(),
        "updated_at": rule.updated_at.isoformat(),
    }


def _described_run(provenance: dict[str, Any]) -> str:
    thread = provenance.get("thread_id") or "(unknown thread)"
    return f"thread {thread} ({provenance['outcome']} in {provenance['rounds']} round(s))"


def _time(text: str) -> str:
    return when(datetime.fromisoformat(text)) + " UTC"


def _rule_lines(summary: dict[str, Any]) -> list[str]:
    if "unreadable" in summary:
        return [summary["id"], f"  (unreadable: {summary['unreadable'].splitlines()[0]})"]
    usage = summary["usage"]
    used = f"consulted by {usage['consulted']} run(s)"
    if usage["consulted"]:
        used += f", {usage['passed']} passed ({100 * usage['pass_rate']:.0f}%)"
    if usage["passed"]:
        used += f", {usage['mean_rounds_when_passed']:.1f} round(s) on average when passed"
    learned = f"learned from {_described_run(summary['provenance'])}"
    if summary["last_changed_by"]:
        learned += f"; last changed by {_described_run(summary['last_changed_by'])}"
    return [
        summary["id"],
        f"  {summary['text']}",
        f"  criteria: {', '.join(summary['criteria']) or '-'}",
        *(f"  learned on a task about: {topic}" for topic in summary["topics"]),
        f"  used: {used}",
        f"  {learned}",
        f"  created {_time(summary['created_at'])}, updated {_time(summary['updated_at'])}",
    ]


@click.command(cls=SectionedCommand)
@option("--scope", section="What", help=SCOPE_HELP)
@option("--all-scopes", is_flag=True, section="What", help="List the rules of every scope.")
@db_option
@json_option("the rules")
def rules(scope: str | None, all_scopes: bool, db: str | None, as_json: bool) -> None:
    """List the rules memory keeps for a scope, strongest first.

    Each rule with the criteria it helps with, its usage statistics (runs that consulted
    it, how many passed, the pass rate, mean rounds when passed), the run it was learned
    from (thread and outcome), and when it was created and last updated. The id is what
    `critic-loop forget` takes.
    """
    from critic_loop.cli.stored_threads import open_database

    if scope and all_scopes:
        raise UsageProblem("give --scope or --all-scopes, not both")
    with open_database(db) as persistence:
        store = persistence.store
        scopes = _scopes_of(store) if all_scopes else [_chosen_scope(scope)]
        listed = {name: [_rule_summary(item) for item in _rules_of(store, name)] for name in scopes}
        empty = not all_scopes and not listed[scopes[0]]
        elsewhere = [other for other in _scopes_of(store) if other not in scopes] if empty else []
    if as_json:
        echo_json([summary for summaries in listed.values() for summary in summaries])
        return
    if not scopes:
        click.echo("no rules in any scope")
    for number, (name, summaries) in enumerate(listed.items()):
        if number:
            click.echo("")
        if not summaries:
            click.echo(f"no rules in scope {name!r}")
            if elsewhere:
                click.echo(
                    f"rules are kept in scope(s) {', '.join(map(repr, elsewhere))}: "
                    f"critic-loop rules --scope {elsewhere[0]} (or --all-scopes)"
                )
            continue
        click.echo(f"scope {name!r}: {len(summaries)} rule(s), strongest first")
        for summary in summaries:
            click.echo("\n".join(_rule_lines(summary)))


def _elsewhere(store: BaseStore, rule_id: str, scope: str) -> str:
    from critic_loop.state.rules import rules_namespace

    for other in _scopes_of(store):
        if other != scope and store.get(rules_namespace(other), rule_id) is not None:
            return f" (it is in scope {other!r}: add --scope {other})"
    return ""


def _targets(store: BaseStore, scope: str, rule_id: str | None) -> list[Item]:
    items = _rules_of(store, scope)
    if rule_id is None:
        if not items:
            raise UsageProblem(f"scope {scope!r} holds no rules")
        return items
    exact = [item for item in items if item.key == rule_id]
    found = exact or [item for item in items if item.key.startswith(rule_id)]
    if not found:
        raise UsageProblem(
            f"no rule {rule_id!r} in scope {scope!r}{_elsewhere(store, rule_id, scope)}"
        )
    if len(found) > 1:
        ids = ", ".join(item.key for item in found[:5])
        raise UsageProblem(
            f"{rule_id!r} names {len(found)} rules in scope {scope!r} ({ids}): give more of the id"
        )
    return found


def _forget_rules(store: BaseStore, scope: str, rule_ids: Sequence[str]) -> list[str]:
    from langgraph.store.base import PutOp

    from critic_loop.nodes.memory.ranking import ranked, ranking_deletes, ranking_writes
    from critic_loop.nodes.memory.scope_locks import scope_key, scope_lock
    from critic_loop.state.rules import rules_namespace

    # in one batch under the scope's lock, as consolidation does: the deletions, and the
    # ranking item recall reads rewritten from the rules left (deleted with the last one)
    wanted = set(rule_ids)
    with scope_lock(store).hold(scope_key(scope)):
        items = _rules_of(store, scope)
        gone = [item.key for item in items if item.key in wanted]
        remaining = [(item.key, item.value) for item in items if item.key not in wanted]
        writes = [PutOp(rules_namespace(scope), rule_id, None) for rule_id in gone]
        writes += ranking_writes(scope, ranked(remaining)) if remaining else ranking_deletes(scope)
        store.batch(writes)
    return gone


@click.command(cls=SectionedCommand)
@click.argument("rule_id", required=False, metavar="[RULE_ID]")
@option("--scope", section="What", help=SCOPE_HELP)
@option(
    "--all",
    "everything",
    is_flag=True,
    section="What",
    help="Forget every rule of the scope (needs --scope).",
)
@option("--yes", "-y", is_flag=True, section="Asking", help="Delete without asking first.")
@db_option
def forget(
    rule_id: str | None, scope: str | None, everything: bool, yes: bool, db: str | None
) -> int:
    """Delete a rule from memory (or, with --all, every rule of a scope).

    RULE_ID is a rule's id as `critic-loop rules` shows it (a unique beginning of it will
    do). It asks before deleting unless --yes is given; declining deletes nothing and
    exits with status 1. The scope's ranking, which recall reads, is kept right.
    """
    from critic_loop.cli.stored_threads import open_database

    if everything == (rule_id is not None):
        raise UsageProblem("name one RULE_ID, or give --all to forget every rule of a scope")
    if everything and not scope:
        raise UsageProblem("--all needs --scope naming the scope whose rules to forget")
    name = _chosen_scope(scope)
    with open_database(db) as persistence:
        store = persistence.store
        targets = _targets(store, name, rule_id)
        if everything:
            click.echo(f"forget all {len(targets)} rule(s) of scope {name!r}")
        else:
            click.echo(f"forget rule {targets[0].key} of scope {name!r}:")
            click.echo(f"  {targets[0].value.get('text', '')}")
        if not yes:
            try:
                agreed = click.confirm("Delete?", default=False)
            except click.Abort:
                raise UsageProblem(
                    "no answer to the question: nothing deleted (--yes deletes without asking)"
                ) from None
            if not agreed:
                click.echo("nothing deleted")
                return 1
        gone = _forget_rules(store, name, [item.key for item in targets])
    click.echo(f"deleted {len(gone)} rule(s) from scope {name!r}")
    return 0

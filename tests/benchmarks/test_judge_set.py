"""The judge benchmark's labelled sets are well-formed, balanced and labelled as code decides.

Labels that code can decide (a count, a word's presence, valid JSON) carry an oracle, and
each oracle must give the label: a mislabelled pair fails here. Every case has a family,
each family is big enough to be left out and measured on, and the folds leave each out
once. The sets must also be what `critic-loop calibrate` reads: `labels.jsonl` is built
from them and parses with the command's own reader.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import get_args

import pytest

from benchmarks.judge import labelset
from benchmarks.judge.cases import CASES, QUICK_IDS, Family
from benchmarks.judge.families import LABELLED, SETS, families, folds, items
from benchmarks.judge.held_out import HELD_OUT
from critic_loop.cli.calibrate import read_labels

PAIRS = [(case, pair) for case in CASES for pair in case.pairs]
EVERY_PAIR = [(item.case, item.pair) for item in items()]


def test_the_set_is_big_enough_and_about_half_pass() -> None:
    assert len(PAIRS) >= 120
    passing = sum(pair.label for _, pair in PAIRS)
    assert 0.45 <= passing / len(PAIRS) <= 0.55, f"{passing} of {len(PAIRS)} pass"


def test_it_holds_writing_and_code_and_every_kind_of_hard_criterion() -> None:
    kinds = Counter(case.kind for case in CASES)
    assert kinds["writing"] >= 20 and kinds["code"] >= 10
    traps = Counter(pair.trap for _, pair in PAIRS)
    for trap in ("count", "absence", "language", "names", "quoting", "negation", "numbers"):
        assert traps[trap] >= 2, trap
    for trap in ("count", "language", "names", "quoting", "numbers", "question", "code"):
        labels = {pair.label for _, pair in PAIRS if pair.trap == trap}
        assert labels == {True, False}, trap  # met and not met both
    # a thing asked for that is there, and one that is not
    assert {pair.label for _, pair in PAIRS if pair.trap == "presence"} == {True}
    assert Counter(pair.label for _, pair in PAIRS if pair.trap == "absence")[False] >= 10


def test_ids_are_unique_and_every_pair_is_well_formed() -> None:
    case_ids = [case.id for case in LABELLED]
    assert len(case_ids) == len(set(case_ids))
    assert len({case.artifact for case in LABELLED}) == len(LABELLED)
    for case in LABELLED:
        assert re.fullmatch(r"[a-z][a-z0-9_]*", case.id), case.id
        assert case.artifact.strip() and case.artifact == case.artifact.strip("\n") + (
            "\n" if case.artifact.endswith("\n") else ""
        )
        assert 2 <= len(case.pairs) <= 4, case.id
        ids = [pair.id for pair in case.pairs]
        assert len(ids) == len(set(ids)), case.id
        for pair in case.pairs:
            assert re.fullmatch(r"[a-z][a-z0-9_]*", pair.id), pair.id
            assert pair.text.endswith(".") and pair.text[0].isupper(), pair.text
            assert isinstance(pair.label, bool)


def test_a_criterion_text_means_one_thing_everywhere() -> None:
    by_id: dict[str, set[str]] = {}
    for _, pair in PAIRS:
        by_id.setdefault(pair.id, set()).add(pair.text)
    assert {name: texts for name, texts in by_id.items() if len(texts) > 1} == {}


@pytest.mark.parametrize(
    ("case", "pair"),
    [(case, pair) for case, pair in EVERY_PAIR if pair.oracle is not None],
    ids=lambda item: getattr(item, "id", ""),
)
def test_labels_that_code_can_decide_agree_with_the_code(case, pair) -> None:
    assert pair.oracle is not None
    assert pair.oracle(case.artifact) is pair.label, f"{case.id}/{pair.id} is mislabelled"


def test_many_labels_are_checked_by_code() -> None:
    assert sum(pair.oracle is not None for _, pair in PAIRS) >= len(PAIRS) // 2
    assert sum(pair.oracle is not None for _, pair in EVERY_PAIR) >= len(EVERY_PAIR) // 2


def test_the_labels_file_is_built_from_the_cases_and_calibrate_reads_it() -> None:
    assert labelset.LABELS.read_text(encoding="utf-8") == labelset.render(), (
        "labels.jsonl is stale: python -m benchmarks.judge.labelset --write"
    )
    examples = read_labels(labelset.LABELS, None)
    assert [example.name for example in examples] == [case.id for case in LABELLED]
    lines = labelset.LABELS.read_text(encoding="utf-8").splitlines()
    for example, case, line in zip(examples, LABELLED, lines, strict=True):
        assert example.artifact == case.artifact
        assert example.labels == {pair.id: pair.label for pair in case.pairs}
        assert all(not criterion.deterministic for criterion in example.rubric)
        assert json.loads(line)["family"] == case.family


def test_the_quick_slice_is_part_of_the_set_and_holds_both_labels() -> None:
    chosen = labelset.select(quick=True)
    assert [case.id for case in chosen] == list(QUICK_IDS)
    labels = [pair.label for case in chosen for pair in case.pairs]
    assert len(labels) >= 10 and True in labels and False in labels
    with pytest.raises(ValueError, match="unknown case"):
        labelset.select(["no_such_case"])


HELD_OUT_PAIRS = [(case, pair) for case in HELD_OUT for pair in case.pairs]


def test_the_held_out_set_is_apart_from_the_set_and_about_half_pass() -> None:
    assert len(HELD_OUT_PAIRS) >= 40
    assert not {case.id for case in HELD_OUT} & {case.id for case in CASES}
    assert not {case.artifact for case in HELD_OUT} & {case.artifact for case in CASES}
    passing = sum(pair.label for _, pair in HELD_OUT_PAIRS)
    assert 0.4 <= passing / len(HELD_OUT_PAIRS) <= 0.6, f"{passing} of {len(HELD_OUT_PAIRS)}"
    assert {case.kind for case in HELD_OUT} == {"writing", "code"}


def test_a_criterion_text_means_one_thing_in_every_set() -> None:
    by_id: dict[str, set[str]] = {}
    for _, pair in EVERY_PAIR:
        by_id.setdefault(pair.id, set()).add(pair.text)
    assert {name: texts for name, texts in by_id.items() if len(texts) > 1} == {}


def test_the_held_out_set_is_chosen_by_its_flag() -> None:
    assert labelset.select(held_out=True) == list(HELD_OUT)
    assert labelset.select(["garden_autumn", "haiku_rain"])[0].id == "garden_autumn"


def test_every_case_has_a_family_and_every_family_can_be_left_out() -> None:
    assert all(case.family in get_args(Family) for case in LABELLED)
    grouped = families()
    assert 6 <= len(grouped) <= 10 and set(grouped) == set(get_args(Family))
    for family, found in grouped.items():
        labels = Counter(item.pair.label for item in found)
        assert len(found) >= 12 and labels[True] and labels[False], (family, labels)


def test_the_grown_sets_are_about_half_met_and_degenerate_drafts_mostly_not() -> None:
    grown = [item.pair.label for item in items(["run_drafts", "everyday"])]
    assert 0.45 <= sum(grown) / len(grown) <= 0.55, f"{sum(grown)} of {len(grown)}"
    degenerate = [item for item in items() if item.case.family == "degenerate"]
    met = sum(item.pair.label for item in degenerate)
    assert 2 <= met <= 0.3 * len(degenerate), f"{met} of {len(degenerate)} met"
    assert all(len(item.case.artifact) <= 70 for item in degenerate)
    assert {case.family for case in SETS["degenerate"]} == {"degenerate"}
    assert {case.family for case in SETS["run_drafts"]} == {"run_draft"}


def test_each_fold_leaves_one_family_out_and_measures_on_it() -> None:
    everything = list(items())
    assert len({item.key for item in everything}) == len(everything)
    left_out = []
    for fold in folds():
        left_out.append(fold.family)
        assert fold.test and all(item.case.family == fold.family for item in fold.test)
        assert all(item.case.family != fold.family for item in fold.train)
        assert len(fold.train) + len(fold.test) == len(everything)
    assert left_out == list(families()) == list(dict.fromkeys(get_args(Family)))


def test_folds_over_chosen_items_keep_to_them() -> None:
    chosen = list(items(["held_out"]))
    found = list(folds(chosen))
    assert {fold.family for fold in found} == {item.case.family for item in chosen}
    for fold in found:
        assert {*fold.train, *fold.test} == set(chosen)

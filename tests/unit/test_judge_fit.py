"""Fitting the judge's threshold on P(met) to labels, cross-validated; its profile, stored."""

from __future__ import annotations

from pathlib import Path

import pytest

from critic_loop.judge_fit import (
    Bar,
    Scored,
    agreement,
    cross_validated,
    fit_bar,
    fit_profile,
    folds,
)
from critic_loop.nodes.verifiers.judge_profile import (
    DEFAULT_THRESHOLD,
    JudgeProfile,
    ProfileProblem,
    judge_profile,
    load_profile,
    save_profile,
)
from critic_loop.state.operator_settings import operator_settings


def scored(p: float | None, label: bool, group: str = "a", quoted: bool = False) -> Scored:
    return Scored(p, label, group, quoted)


def decided(labelled: list[Scored], bar: Bar) -> list[bool]:
    return [bar.passes(item) for item in labelled]


def test_the_bar_keeps_false_passes_within_the_limit_and_fails_fewest_met() -> None:
    labelled = [scored(0.30 + i / 100, True) for i in range(10)]  # 0.30 .. 0.39
    labelled += [scored(0.100 + i / 40, False) for i in range(10)]  # 0.100 .. 0.325
    bar = fit_bar(labelled, max_false_pass=0.10)
    assert bar == Bar(pytest.approx(0.31), 0.0)  # passes 0.325 (1 of 10 unmet), fails 0.30
    table = agreement(labelled, decided(labelled, bar))
    assert (table.false_pass, table.false_fail) == (1, 1)


def test_a_quotation_is_worth_what_separates_the_labels_it_comes_with() -> None:
    # met criteria the judge quoted sit just under the yes/no's own line: a quote lifts them
    labelled = [scored(0.55, True, quoted=True) for _ in range(5)]
    labelled += [scored(0.7, True) for _ in range(5)]
    labelled += [scored(0.6, False) for _ in range(5)] + [scored(0.3, False, quoted=True)]
    bar = fit_bar(labelled)
    assert bar.weight > 0 and bar.passes(scored(0.55, True, quoted=True))
    assert not bar.passes(scored(0.55, True)) and not bar.passes(scored(0.6, False))
    assert agreement(labelled, decided(labelled, bar)).accuracy == 1.0


def test_no_bar_fits_when_every_one_passes_too_many_so_the_default_stands() -> None:
    labelled = [scored(0.9, False), scored(0.9, False), scored(0.1, True)]
    assert fit_bar(labelled) == Bar(DEFAULT_THRESHOLD, 0.0)


def test_a_judge_without_a_probability_fails_the_criterion() -> None:
    assert decided([scored(None, True, quoted=True)], Bar(0.0, 0.3)) == [False]


def test_folds_keep_a_groups_criteria_together() -> None:
    labelled = [scored(0.5, True, group=g) for g in "aabbbcdde"]
    assigned = folds(labelled, 2)
    by_group: dict[str, set[int]] = {}
    for item, fold in zip(labelled, assigned, strict=True):
        by_group.setdefault(item.group, set()).add(fold)
    assert all(len(found) == 1 for found in by_group.values())
    assert set(assigned) == {0, 1}


def test_one_fold_per_family_leaves_each_family_out_in_turn() -> None:
    # family b sits where the others' bar does not reach: left out, it is decided wrong
    labelled = [scored(p, p > 0.5, g) for g in "ac" for p in (0.9, 0.8, 0.2, 0.1)]
    labelled += [scored(0.45, True, "b"), scored(0.05, False, "b")]
    assert cross_validated(labelled, count=3)[-2:] == [False, False]
    assert decided(labelled, fit_bar(labelled))[-2:] == [True, False]  # fitted on b too


def test_a_fit_keeps_its_cross_validated_figures_not_its_own() -> None:
    # a judge whose P(met) is low for everything but ranks met above not met
    labelled = [
        scored(0.30 + (0.1 if i % 2 else 0.0), i % 2 == 1, group=f"a{i}") for i in range(40)
    ]
    profile, table = fit_profile(labelled, "openai:small")
    assert agreement(labelled, decided(labelled, Bar())).false_fail_rate == 1.0
    assert table.accuracy == 1.0  # each fold's bar separates the rest
    assert profile.cross_validated["kappa"] == table.kappa
    assert (profile.threshold, profile.labels) == (pytest.approx(0.4), 40)


def test_a_fits_figures_are_those_of_labels_its_bar_never_saw() -> None:
    # one artifact ("odd") sits between the others: a bar fitted on every label
    # separates it too, but a fold that never saw it draws the line elsewhere
    labelled = [
        scored(p, label, g) for g in "abcdefghi" for p, label in ((0.9, True), (0.1, False))
    ]
    labelled += [scored(0.5, True, "odd"), scored(0.3, False, "odd")]
    profile, table = fit_profile(labelled, "openai:small")
    own = agreement(labelled, decided(labelled, Bar(profile.threshold, profile.quote_weight)))
    assert own.accuracy == 1.0
    assert table.accuracy == pytest.approx(0.95) and table.accuracy < own.accuracy
    assert profile.cross_validated["agreement"] == pytest.approx(0.95)


def test_a_profile_saved_is_the_profile_loaded(tmp_path: Path) -> None:
    profile = JudgeProfile(model="openai:small", threshold=0.42, labels=147)
    path = tmp_path / "profiles" / "judge.json"
    save_profile(profile, path)
    assert load_profile(path).model_dump() == profile.model_dump()


def test_a_file_that_is_no_profile_says_so_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "judge.json"
    path.write_text('{"model": "m", "threshold": 2}')
    with pytest.raises(ProfileProblem, match="is not a judge profile"):
        load_profile(path)
    with pytest.raises(ProfileProblem, match="cannot read"):
        load_profile(tmp_path / "missing.json")


def test_the_operators_profile_applies_to_its_model_and_the_shipped_one_to_the_local_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    local = "openai:qwen2.5-coder-0.5b-instruct"
    shipped = judge_profile(local)
    assert shipped is not None and shipped.labels > 0 and 0 < shipped.threshold < 1
    assert judge_profile("openai:other") is None
    path = tmp_path / "judge.json"
    save_profile(JudgeProfile(model="openai:small", threshold=0.7), path)
    monkeypatch.setenv("CRITIC_LOOP_JUDGE_PROFILE", str(path))
    operator_settings.cache_clear()
    try:
        own = judge_profile("openai:small")
        assert own is not None and (own.threshold, own.source) == (0.7, str(path))
        assert judge_profile(local) == shipped  # the operator's is for another model
    finally:
        operator_settings.cache_clear()

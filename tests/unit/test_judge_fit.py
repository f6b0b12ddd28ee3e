"""Fitting a yes/no judge to labels: thresholds, kinds, examples, profiles, cross-validation."""

from __future__ import annotations

from pathlib import Path

import pytest

from critic_loop.judge_fit import (
    Scored,
    agreement,
    choose_examples,
    cross_validated,
    decisions,
    fit_profile,
    fit_threshold,
    folds,
)
from critic_loop.nodes.verifiers.judge_profile import (
    DEFAULT_THRESHOLD,
    Example,
    JudgeProfile,
    KindSettings,
    ProfileProblem,
    load_profile,
    save_profile,
)
from critic_loop.nodes.verifiers.rubric_lint import criterion_kind


def scored(p: float | None, label: bool, kind: str = "presence", group: str = "a") -> Scored:
    return Scored(p, label, kind, group)


def test_the_threshold_keeps_false_passes_within_the_limit_and_fails_fewest_met() -> None:
    labelled = [scored(0.30 + i / 100, True) for i in range(10)]  # 0.30 .. 0.39
    labelled += [scored(0.100 + i / 40, False) for i in range(10)]  # 0.100 .. 0.325
    threshold = fit_threshold(labelled, max_false_pass=0.10)
    assert threshold == pytest.approx(0.31)  # passes 0.325 (1 of 10 unmet), fails only 0.30
    table = agreement(labelled, [s.p_met is not None and s.p_met >= threshold for s in labelled])
    assert (table.false_pass, table.false_fail) == (1, 1)


def test_no_threshold_fits_when_every_one_passes_too_many_so_the_default_stands() -> None:
    labelled = [scored(0.9, False), scored(0.9, False), scored(0.1, True)]
    assert fit_threshold(labelled) == DEFAULT_THRESHOLD


def test_a_judge_without_a_probability_fails_the_criterion() -> None:
    profile = JudgeProfile(model="m", default=KindSettings(threshold=0.0))
    assert decisions([scored(None, True)], profile) == [False]


def test_a_kind_with_enough_labels_of_both_answers_gets_its_own_threshold() -> None:
    language = [scored(0.2 + i / 100, i % 2 == 0, "language") for i in range(12)]
    few = [scored(0.5, True, "count"), scored(0.4, False, "count")]
    profile = fit_profile(language + few, "openai:small")
    assert set(profile.kinds) == {"language"}
    assert profile.labels == 14
    assert profile.settings_for("count") == profile.default


def test_folds_keep_an_artifacts_criteria_together() -> None:
    labelled = [scored(0.5, True, group=g) for g in "aabbbcdde"]
    assigned = folds(labelled, 2)
    by_group: dict[str, set[int]] = {}
    for item, fold in zip(labelled, assigned, strict=True):
        by_group.setdefault(item.group, set()).add(fold)
    assert all(len(found) == 1 for found in by_group.values())
    assert set(assigned) == {0, 1}


def test_cross_validation_decides_each_label_with_a_fit_that_never_saw_it() -> None:
    seen: list[set[str]] = []

    def fit(training: list[Scored]) -> JudgeProfile:
        seen.append({item.group for item in training})
        return JudgeProfile(model="m")

    labelled = [scored(0.9, True, group=g) for g in "abcdefghij"]
    decided = cross_validated(labelled, fit, count=5)
    assert decided == [True] * 10
    assert len(seen) == 5
    assert all(len(groups) == 8 for groups in seen)


def test_examples_of_the_kind_come_first_alternating_met_and_not_met() -> None:
    def example(name: str, met: bool) -> Example:
        return Example(artifact=name, statement="It names a season.", met=met)

    labelled = [
        (example("other-met", True), "presence"),
        (example("names-unmet-1", False), "names"),
        (example("names-unmet-2", False), "names"),
        (example("names-met", True), "names"),
    ]
    chosen = choose_examples(labelled, "names", count=3)
    assert [e.artifact for e in chosen] == ["names-met", "names-unmet-1", "other-met"]


def test_a_profile_saved_is_the_profile_loaded(tmp_path: Path) -> None:
    profile = JudgeProfile(
        model="openai:small",
        default=KindSettings(threshold=0.42),
        kinds={"language": KindSettings(threshold=0.3)},
        labels=147,
        cross_validated={"kappa": 0.5},
    )
    path = tmp_path / "profiles" / "judge.json"
    save_profile(profile, path)
    assert load_profile(path) == profile


def test_a_file_that_is_no_profile_says_so_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "judge.json"
    path.write_text('{"default": {"threshold": 2}}')
    with pytest.raises(ProfileProblem, match="is not a judge profile"):
        load_profile(path)
    with pytest.raises(ProfileProblem, match="cannot read"):
        load_profile(tmp_path / "missing.json")


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("It is written in French.", "language"),
        ("It has exactly three bullet points.", "count"),
        ("It contains no digits.", "absence"),
        ("It asks a question.", "question"),
        ("The function has a docstring.", "code"),
        ("It names a season (spring, summer, autumn or winter).", "names"),
        ("It says the product is waterproof.", "presence"),
    ],
)
def test_a_criterions_kind_is_told_by_its_sentence(text: str, kind: str) -> None:
    assert criterion_kind(text) == kind


def test_the_operators_profile_applies_only_to_the_model_it_was_fitted_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from critic_loop.nodes.verifiers.judge_profile import operator_judge_profile
    from critic_loop.state.operator_settings import operator_settings

    path = tmp_path / "judge.json"
    save_profile(JudgeProfile(model="openai:small"), path)
    monkeypatch.setenv("CRITIC_LOOP_JUDGE_PROFILE", str(path))
    operator_settings.cache_clear()
    try:
        assert operator_judge_profile("openai:small") == JudgeProfile(model="openai:small")
        assert operator_judge_profile("openai:other") is None
    finally:
        operator_settings.cache_clear()


def test_a_fit_reports_unfitted_and_cross_validated_figures_and_keeps_the_latter() -> None:
    from critic_loop.judge_fit import fit_with_figures

    # a judge whose P(met) is low for everything but ranks met above not met
    labelled = [
        scored(0.30 + (0.1 if i % 2 else 0.0), i % 2 == 1, group=f"a{i}") for i in range(40)
    ]
    profile, unfitted, fitted = fit_with_figures(labelled, "openai:small")
    assert unfitted["false_fail_rate"] == 1.0  # 0.5 fails every met label
    assert fitted["agreement"] == 1.0  # each fold's threshold separates the rest
    assert profile.cross_validated["kappa"] == fitted["kappa"]
    assert profile.default.threshold == pytest.approx(0.4)

"""The critic: deterministic checks first, then the LLM judge, merged into one verdict each.

It reads `CriticView`, never the task or the worker's conversation. The judge grades only the
candidates still in contention after the checks.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langgraph.runtime import Runtime

from critic_loop.nodes.events import verdict_event
from critic_loop.nodes.loop.feedback import worker_feedback
from critic_loop.nodes.loop.history_queries import normalized
from critic_loop.nodes.models.gateway import Answer, Request, aask_all, ask_all
from critic_loop.nodes.models.ledger import Ledger
from critic_loop.nodes.operator_policy import Trust, trust_of
from critic_loop.nodes.verifiers.agreement import (
    DERIVED_INPUTS,
    Grouping,
    abehaviour_groups,
    behaviour_groups,
    thin_evidence,
)
from critic_loop.nodes.verifiers.checks import arun_check, run_check
from critic_loop.nodes.verifiers.judge import (
    Graded,
    judge_requests,
    judgement_of,
    second_looks,
    with_second_looks,
)
from critic_loop.nodes.verifiers.rubric_lint import decided_by_code
from critic_loop.state.budget import allowance, spent_on
from critic_loop.state.context import Context
from critic_loop.state.loop import CriticView
from critic_loop.state.records import Agreement, Critique, Draft, DraftRef, TokenUsage
from critic_loop.state.rubric import CriterionBase, PythonSyntax, TestSuite
from critic_loop.state.verdict import CheckResult, CriterionResult, Verdict


def _critique(draft: Draft, attempts: int = 0, **fields: Any) -> Critique:
    return Critique(round=draft.round, candidate=draft.candidate, attempts=attempts, **fields)


def _graded_texts(drafts: Sequence[Draft], critiques: Sequence[Critique]) -> dict[str, Critique]:
    by_ref = {draft.ref: draft for draft in drafts}
    found: dict[str, Critique] = {}
    for critique in critiques:
        draft = by_ref.get(critique.ref)
        if draft is not None and critique.verdict is not None:
            found.setdefault(normalized(draft.text), critique)
    return found


def _as_repeat(original: Critique, draft: Draft, again: bool = False) -> Critique:
    # `again`: a later candidate of its round wrote it too, one more in its agreement
    where = {"round": draft.round, "candidate": draft.candidate, "duplicate_of": original.ref}
    unspent = {"attempts": 0, "rejected": [], "usage": TokenUsage(), "stopped": None}
    agreement = original.agreement
    if again and agreement is not None:
        more = {"support": agreement.support + 1, "candidates": agreement.candidates + 1}
        agreement = agreement.model_copy(update=more)
    return original.model_copy(update={**where, **unspent, "agreement": agreement})


def _check_strength(
    rubric: Sequence[CriterionBase], checked: dict[str, CriterionResult]
) -> tuple[int, float]:
    weights = {criterion.id: criterion for criterion in rubric}
    musts = sum(r.passed for cid, r in checked.items() if weights[cid].severity == "must")
    total = sum(weights[cid].weight for cid in checked) or 1.0
    return musts, sum(weights[cid].weight for cid, r in checked.items() if r.passed) / total


def _with_agreement(critique: Critique, code: CriterionBase, agreement: Agreement) -> Critique:
    verdict = critique.verdict
    assert verdict is not None
    results = [
        result.model_copy(update={"evidence": f"{result.evidence}\n{agreement.describe()}"})
        if result.criterion_id == code.id
        else result
        for result in verdict.results
    ]
    update = {"verdict": verdict.model_copy(update={"results": results}), "agreement": agreement}
    return critique.model_copy(update=update)


HOPELESS = "the failed checks already rule out a pass."
BEHIND = "another candidate did better on the checks."


def _check_result(criterion: CriterionBase, outcome: CheckResult) -> CriterionResult:
    evidence = outcome.evidence.strip() or "The check gave no evidence."
    return CriterionResult(
        criterion_id=criterion.id, **{**outcome.model_dump(), "evidence": evidence}, source="check"
    )


class _RoundGrading:
    """One round's grading between its I/O: what to check, whom to judge, what to compare."""

    def __init__(self, state: CriticView, context: Context, trust: Trust) -> None:
        self.context, self.trust = context, trust
        self.ledger = Ledger(allowance(spent_on(state.drafts, state.critiques), context))
        self.rubric = decided_by_code(state.rubric) if context.lint_checks else state.rubric
        self.checks = [criterion for criterion in self.rubric if criterion.deterministic]
        self.judged_criteria = [c for c in self.rubric if not c.deterministic]
        graded = {critique.ref for critique in state.critiques}
        earlier = _graded_texts(state.drafts, state.critiques)
        pending = sorted(
            (d for d in state.drafts if d.ref not in graded), key=lambda d: (d.round, d.candidate)
        )
        self.drafts = {draft.ref: draft for draft in pending}
        passed = {c.ref for c in state.critiques if c.verdict and c.verdict.passed}
        self.mates = [  # passing candidates of the round graded before: compared too
            d for d in state.drafts if d.ref in passed and d.round in {p.round for p in pending}
        ]
        self.done: list[Critique] = []
        self.to_check: list[Draft] = []
        self.checked: dict[DraftRef, dict[str, CriterionResult]] = {}
        self.to_judge: list[Draft] = []
        self.same_as: dict[DraftRef, DraftRef] = {}  # a candidate repeating another of its round
        first_with: dict[str, DraftRef] = {}
        for draft in pending:
            unusable = self._unusable(draft)
            repeated = earlier.get(normalized(draft.text))
            if draft.stopped is not None:  # the budgets stopped the worker: nothing to grade
                self.done.append(_critique(draft, stopped=draft.stopped))
            elif unusable is not None:
                self.done.append(_critique(draft, verdict=unusable))
            elif repeated is not None:
                self.done.append(_as_repeat(repeated, draft, again=repeated.round == draft.round))
            elif normalized(draft.text) in first_with:
                self.same_as[draft.ref] = first_with[normalized(draft.text)]
            else:
                first_with[normalized(draft.text)] = draft.ref
                self.to_check.append(draft)

    def record_checks(self, draft: Draft, outcomes: Sequence[CheckResult]) -> None:
        results = map(_check_result, self.checks, outcomes)
        self.checked[draft.ref] = {result.criterion_id: result for result in results}

    def judge_requests(self) -> list[Request[Graded]]:
        # the drafts still in contention are judged; the rest get their checks' verdict
        leading = max(
            (_check_strength(self.rubric, r) for r in self.checked.values()), default=(0, 0.0)
        )
        for ref, results in self.checked.items():
            why = None
            if not self.judged_criteria:
                why = HOPELESS
            elif _check_strength(self.rubric, results) < leading:
                why = BEHIND
            elif self.context.skip_judge_on_failed_check and self._ruled_out(results):
                why = HOPELESS
            if why is None:
                self.to_judge.append(self.drafts[ref])
            else:
                self.done.append(self._without_judge(ref, why))
        return [
            request
            for draft in self.to_judge
            for request in judge_requests(self.judged_criteria, draft.text, self.context)
        ]

    def _by_draft(
        self, answers: Sequence[Answer[Graded]]
    ) -> list[tuple[Draft, Sequence[Answer[Graded]]]]:
        size = len(answers) // len(self.to_judge) if self.to_judge else 0
        return [
            (draft, answers[index * size : (index + 1) * size])
            for index, draft in enumerate(self.to_judge)
        ]

    def second_looks(self, answers: Sequence[Answer[Graded]]) -> list[Request[float | None]]:
        return [
            look
            for draft, mine in self._by_draft(answers)
            for look in second_looks(self.judged_criteria, draft.text, mine, self.context)
        ]

    def record_judgements(
        self, answers: Sequence[Answer[Graded]], looks: Sequence[Answer[float | None]]
    ) -> None:
        taken = iter(looks)
        for draft, mine in self._by_draft(answers):
            looked = with_second_looks(mine, taken, self.context)
            judgement = judgement_of(self.judged_criteria, looked, self.context)
            verdict = None
            if judgement.stopped is not None:
                verdict = self._without_judge(draft.ref, f"{judgement.stopped}.").verdict
            elif judgement.error is None:
                results = {**self.checked[draft.ref]}
                results.update((result.criterion_id, result) for result in judgement.results)
                verdict = self._verdict(results, judgement.feedback)
            self.done.append(
                _critique(
                    draft,
                    judgement.calls,
                    verdict=verdict,
                    rejected=judgement.rejected,
                    usage=judgement.usage,
                    error=judgement.error,
                    stopped=judgement.stopped,
                )
            )

    def to_compare(self) -> tuple[TestSuite, list[str]] | None:
        # a suite to run the passing candidates in, on its calls' and their drafts' inputs
        suite = next((c for c in self.rubric if isinstance(c, TestSuite)), None)
        if suite is None and thin_evidence(self.rubric):  # code checked for syntax only
            suite = DERIVED_INPUTS
        compared = self._compared()
        passing = len(self.mates) + sum(c.verdict.passed for c in compared if c.verdict)
        if suite is None or not compared or passing < 2:
            return None
        texts = [self.drafts[c.ref].text for c in compared]
        return suite, [mate.text for mate in self.mates] + texts

    def record_grouping(self, grouping: Grouping | None) -> None:
        if grouping is None:
            return
        code = next(c for c in self.rubric if isinstance(c, TestSuite | PythonSyntax))
        compared, before = self._compared(), len(self.mates)
        copies = [0] * before + [list(self.same_as.values()).count(c.ref) for c in compared]
        agreements = {
            critique.ref: Agreement(
                probes=grouping.probes,
                support=grouping.support(before + index, copies),
                candidates=len(copies) + sum(copies),
            )
            for index, critique in enumerate(compared)
        }
        self.done = [
            _with_agreement(c, code, agreements[c.ref]) if c.ref in agreements else c
            for c in self.done
        ]

    def update(self, runtime: Runtime[Context]) -> dict[str, Any]:
        by_ref = {critique.ref: critique for critique in self.done}
        done = self.done + [
            _as_repeat(by_ref[first], self.drafts[ref]) for ref, first in self.same_as.items()
        ]
        seconds = self.ledger.seconds
        critiques, feedback = [], []
        for critique in sorted(done, key=lambda critique: (critique.round, critique.candidate)):
            critique = critique.model_copy(update={"seconds": seconds})
            runtime.stream_writer(verdict_event(critique))
            critiques.append(critique.model_dump(mode="json"))
            verdict = critique.verdict
            if verdict is not None and not verdict.passed and critique.stopped is None:
                note = worker_feedback(critique.round, critique.candidate, verdict, self.rubric)
                feedback.append(note.model_dump(mode="json"))
        return {"critiques": critiques, "feedback": feedback}

    def _compared(self) -> list[Critique]:
        return [c for c in self.done if c.verdict is not None and c.ref in self.checked]

    def _verdict(self, results: dict[str, CriterionResult], feedback: str = "") -> Verdict:
        # each result with its criterion's severity and weight: the verdict is self-contained
        weighed = [
            results[c.id].model_copy(update={"severity": c.severity, "weight": c.weight})
            for c in self.rubric
        ]
        return Verdict(
            results=weighed, feedback=feedback, pass_threshold=self.context.pass_threshold
        )

    def _unusable(self, draft: Draft) -> Verdict | None:
        if draft.full_length is not None:
            limit = len(draft.text)
            evidence = f"The draft has {draft.full_length} characters; the most allowed is {limit}."
            hint = f"Write a complete artifact of fewer than {limit} characters."
        elif not draft.text.strip():
            evidence, hint = "The draft is empty.", "Write the artifact the task asks for."
        else:
            return None
        failed = {
            c.id: CriterionResult(criterion_id=c.id, evidence=evidence, passed=False, hint=hint)
            for c in self.rubric
        }
        return self._verdict(failed, f"{evidence} Reply with the complete artifact.")

    def _ruled_out(self, checked: dict[str, CriterionResult]) -> bool:
        # the failed checks alone rule out a pass, however the judge grades the rest
        hoped = {
            c.id: CriterionResult(criterion_id=c.id, passed=True, evidence="-") for c in self.rubric
        }
        return not self._verdict({**hoped, **checked}).passed

    def _without_judge(self, ref: DraftRef, why: str) -> Critique:
        skipped = {"passed": False, "skipped": True, "evidence": f"Not graded this round: {why}"}
        results = {
            c.id: CriterionResult(criterion_id=c.id, **skipped) for c in self.judged_criteria
        }
        return _critique(self.drafts[ref], verdict=self._verdict({**self.checked[ref], **results}))


def critique(state: CriticView, runtime: Runtime[Context]) -> dict[str, Any]:
    """Grade every draft of the newest round; append the critiques and the feedback."""
    grading = _RoundGrading(state, runtime.context, trust_of(runtime))
    for draft in grading.to_check:
        outcomes = [run_check(check, draft.text, grading.trust) for check in grading.checks]
        grading.record_checks(draft, outcomes)
    answers = ask_all(grading.judge_requests(), grading.ledger)
    looks = ask_all(grading.second_looks(answers), grading.ledger)
    grading.record_judgements(answers, looks)
    compared = grading.to_compare()
    if compared is not None:
        grading.record_grouping(behaviour_groups(*compared, grading.trust))
    return grading.update(runtime)


async def acritique(state: CriticView, runtime: Runtime[Context]) -> dict[str, Any]:
    """`critique`, awaiting the checks, the judge and the comparison."""
    grading = _RoundGrading(state, runtime.context, trust_of(runtime))
    for draft in grading.to_check:
        outcomes = [await arun_check(check, draft.text, grading.trust) for check in grading.checks]
        grading.record_checks(draft, outcomes)
    answers = await aask_all(grading.judge_requests(), grading.ledger)
    looks = await aask_all(grading.second_looks(answers), grading.ledger)
    grading.record_judgements(answers, looks)
    compared = grading.to_compare()
    if compared is not None:
        grading.record_grouping(await abehaviour_groups(*compared, grading.trust))
    return grading.update(runtime)

"""The critic: deterministic checks first, then the LLM judge, merged into one verdict each.

It reads `CriticView`, never the task or the worker's conversation. The judge grades only the
candidates still in contention after the checks.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from langgraph.runtime import Runtime

from critic_loop.nodes.events import verdict_event
from critic_loop.nodes.loop.feedback import WORD, worker_feedback
from critic_loop.nodes.loop.history_queries import normalized, regression
from critic_loop.nodes.memory.graded import binding, seal
from critic_loop.nodes.models.gateway import Answer, Request, aask_all, ask_all
from critic_loop.nodes.models.ledger import Ledger
from critic_loop.nodes.operator_policy import Trust, trust_of
from critic_loop.nodes.prompts import render_prompt
from critic_loop.nodes.verifiers.agreement import (
    DERIVED_INPUTS,
    Grouping,
    abehaviour_groups,
    behaviour_groups,
    thin_evidence,
)
from critic_loop.nodes.verifiers.checks import arun_check, run_check
from critic_loop.nodes.verifiers.grounding import quotations, quote_problem
from critic_loop.nodes.verifiers.judge import (
    Graded,
    Judgement,
    judge_requests,
    judgement_of,
    quotes_asked,
    unconfirmed,
    with_quotes,
)
from critic_loop.nodes.verifiers.rubric_lint import decided_by_code
from critic_loop.nodes.verifiers.ruled_out import ruled_out
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


ECHO_WORDS = 5  # runs of this many words shared with the instructions
ECHO_SHARE = 0.5  # a draft made this much of instructions' word runs repeats them
ECHO_LINE = 7  # a run this long of the standing instructions is a line of them pasted in


def _grams(text: str, size: int = ECHO_WORDS) -> set[tuple[str, ...]]:
    words = [word.lower() for word in WORD.findall(text)]
    return {tuple(words[i : i + size]) for i in range(len(words) - size + 1)}


@functools.cache  # rendered once per prompts directory and run length, not once per round
def _instruction_grams(
    prompts_dir: str | None, size: int = ECHO_WORDS
) -> frozenset[tuple[str, ...]]:
    return frozenset(gram for text in _standing_prompts(prompts_dir) for gram in _grams(text, size))


def _standing_prompts(prompts_dir: str | None) -> list[str]:
    # the worker's standing instructions, not its hints: a hint says what the text should say,
    # so a draft that does what a hint asks shares its words without echoing anything
    return [
        render_prompt("worker_system.jinja", prompts_dir),
        render_prompt(
            "worker_revision.jinja", prompts_dir, round=0, hints=["-"], kept=["-"], summary=""
        ),
        render_prompt("worker_task.jinja", prompts_dir, task="", rules=[], earlier_failures=" "),
    ]


def _echoes(text: str, prompts_dir: str | None) -> bool:
    # most of the draft is instructions, or a line of them is pasted into it whole
    grams = _grams(text)
    if grams and len(grams & _instruction_grams(prompts_dir)) >= ECHO_SHARE * len(grams):
        return True
    return bool(_grams(text, ECHO_LINE) & _instruction_grams(prompts_dir, ECHO_LINE))


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
        self.history = state.drafts, state.critiques
        self.code = any(isinstance(c, TestSuite | PythonSyntax) for c in self.rubric)
        self.earlier = state.critiques
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
        self.asked: dict[DraftRef, list[CriterionBase]] = {}  # what the judge is asked, each
        self.carried: dict[DraftRef, dict[str, CriterionResult]] = {}
        self.counts: dict[DraftRef, int] = {}  # the requests asked of each draft
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
        requests = []
        for draft in self.to_judge:
            small = self.context.judge_mode != "verdict"
            ruled = {c: ruled_out(c, draft.text, small) for c in self.judged_criteria}
            carried = {c.id: _check_result(c, why) for c, why in ruled.items() if why is not None}
            carried |= self._carried(draft)  # code's, or the last draft's, so nobody is asked
            self.carried[draft.ref] = carried
            self.asked[draft.ref] = [c for c in self.judged_criteria if c.id not in carried]
            mine = judge_requests(self.asked[draft.ref], draft.text, self.context)
            self.counts[draft.ref] = len(mine)
            requests += mine
        return requests

    def _carried(self, draft: Draft) -> dict[str, CriterionResult]:
        # a revision keeps the judged passes of its draft whose quotation it still holds:
        # no call to ask what the judge already found, in words still there
        base = next((c for c in self.earlier if c.ref == draft.revises and c.verdict), None)
        if base is None or base.verdict is None:
            return {}
        judged = {criterion.id for criterion in self.judged_criteria}
        carried = {}
        for result in base.verdict.results:
            quoted = quotations(result.evidence)[:1] if result.source == "judge" else []
            still = [q for q in quoted if quote_problem(q, draft.text, short_whole=False) is None]
            if result.passed and result.criterion_id in judged and still:
                kept = f'"{still[0]}" (still in the draft; passed in round {base.round})'
                carried[result.criterion_id] = result.model_copy(update={"evidence": kept})
        return carried

    def _by_draft(
        self, answers: Sequence[Answer[Graded]]
    ) -> list[tuple[Draft, Sequence[Answer[Graded]]]]:
        found, start = [], 0
        for draft in self.to_judge:
            found.append((draft, answers[start : start + self.counts[draft.ref]]))
            start += self.counts[draft.ref]
        return found

    def quotes_asked(self, answers: Sequence[Answer[Graded]]) -> list[Request[Graded]]:
        return [
            quote
            for draft, mine in self._by_draft(answers)
            for quote in quotes_asked(self.asked[draft.ref], draft.text, mine, self.context)
        ]

    def record_judgements(
        self, answers: Sequence[Answer[Graded]], quotes: Sequence[Answer[Graded]]
    ) -> None:
        taken = iter(quotes)
        for draft, mine in self._by_draft(answers):
            looked = with_quotes(mine, taken, self.context)
            asked = self.asked[draft.ref]
            judgement = judgement_of(asked, looked, self.context) if asked else Judgement()
            verdict = None
            if judgement.stopped is not None:
                verdict = self._without_judge(draft.ref, f"{judgement.stopped}.").verdict
            elif judgement.error is None:
                results = {**self.checked[draft.ref], **self.carried[draft.ref]}
                results.update((result.criterion_id, result) for result in judgement.results)
                verdict = self._verdict(results, judgement.feedback)
                if verdict.passed:  # a draft the run would end on: its passes confirmed
                    fresh = {r.criterion_id: r for r in judgement.results}
                    results.update((cid, unconfirmed(r, self.context)) for cid, r in fresh.items())
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
        seconds, bound = self.ledger.seconds, binding(runtime)
        critiques, feedback = [], []
        for critique in sorted(done, key=lambda critique: (critique.round, critique.candidate)):
            draft = self.drafts[critique.ref]
            lost = regression(draft, critique.verdict, *self.history, code=self.code)
            critique = critique.model_copy(update={"seconds": seconds, "regressed": lost})
            sealed = seal(bound, critique) if bound else None  # memory may be shared
            critique = critique.model_copy(update={"seal": sealed})
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
        elif _echoes(draft.text, self.context.prompts_dir):
            evidence = "The draft repeats the instructions it was given, not the artifact."
            hint = "Write the artifact the task asks for; do not repeat your instructions."
        else:
            return None
        failed = {
            c.id: CriterionResult(
                criterion_id=c.id, evidence=evidence, passed=False, hint=hint, source="check"
            )
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
    grading.record_judgements(answers, ask_all(grading.quotes_asked(answers), grading.ledger))
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
    quotes = await aask_all(grading.quotes_asked(answers), grading.ledger)
    grading.record_judgements(answers, quotes)
    compared = grading.to_compare()
    if compared is not None:
        grading.record_grouping(await abehaviour_groups(*compared, grading.trust))
    return grading.update(runtime)

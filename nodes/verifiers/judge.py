"""The LLM judge: the critic model (or a panel) grades the rubric's `llm` criteria.

docs/judge.md has its modes and a panel's vote. A pass must quote the words of the artifact
that show it (`grounding`).
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage

from critic_loop.nodes.models.gateway import Answer, InvalidAnswer, Request, parse_answer
from critic_loop.nodes.models.loading import grading_model, model_server
from critic_loop.nodes.prompts import conversation, render_prompt, worked_examples
from critic_loop.nodes.verifiers.grounding import (
    grounded,
    quotations,
    quote_problem,
    ungrounded_passes,
)
from critic_loop.nodes.verifiers.judge_answers import (
    CriterionAnswer,
    CriticReport,
    InvalidVerdict,
    check_report,
    criterion_answer_schema,
    critic_output_schema,
)
from critic_loop.nodes.verifiers.judge_profile import DEFAULT_THRESHOLD, judge_profile
from critic_loop.nodes.verifiers.yes_no import p_met, yes_no_request
from critic_loop.state.context import Context
from critic_loop.state.records import TokenUsage
from critic_loop.state.rubric import CriterionBase
from critic_loop.state.verdict import CriterionResult

Graded = tuple[list[CriterionResult], str]
"""One judge's accepted answer: a result per criterion, and its note to the worker."""


@dataclass(frozen=True)
class Judge:
    """One member of the panel: a model, and a label that tells repeated samples apart."""

    label: str
    spec: str


@dataclass
class Judgement:
    """The panel's combined answer, or why there is none."""

    results: list[CriterionResult] = field(default_factory=list)
    feedback: str = ""
    calls: int = 0
    rejected: list[str] = field(default_factory=list)
    usage: TokenUsage = field(default_factory=TokenUsage)
    error: str | None = None
    stopped: str | None = None
    """Set when the run's budgets refused a judge's call before grading was done: why."""


def panel(context: Context) -> list[Judge]:
    """Return the judges: each critic model (default: `critic_model`), `critic_samples` times."""
    models = context.critic_models or [context.critic_model]
    judges = []
    for position, spec in enumerate(models, start=1):
        name = spec if models.count(spec) == 1 else f"{spec}@{position}"
        for sample in range(1, context.critic_samples + 1):
            label = name if context.critic_samples == 1 else f"{name}#{sample}"
            judges.append(Judge(label, spec))
    return judges


def _opaque_ids(criteria: Sequence[CriterionBase]) -> list[str]:
    return [f"c{position}" for position in range(1, len(criteria) + 1)]


def judge_prompt(
    criteria: Sequence[CriterionBase], artifact: str, context: Context, rejection: str | None
) -> list[BaseMessage]:
    """Build a judge's prompt: the criteria (by opaque ids) and the artifact, fenced."""
    shown = [
        {"id": opaque, "text": criterion.text}
        for opaque, criterion in zip(_opaque_ids(criteria), criteria, strict=True)
    ]
    ids = ", ".join(item["id"] for item in shown)
    fenced = {"rubric": shown, "artifact": artifact, "fence": secrets.token_hex(8), "ids": ids}
    retry = {"problems": rejection, "ids": ids}
    again = None if rejection is None else ("critic_retry.jinja", retry)
    return conversation(
        context.prompts_dir, "critic_system.jinja", ("critic_grade.jinja", fenced), again
    )


def extract_prompt(criterion: CriterionBase, artifact: str, context: Context) -> list[BaseMessage]:
    """Ask for the words that show `criterion`, after worked examples as earlier turns."""
    values = {"artifact": artifact, "statement": criterion.text, "fence": secrets.token_hex(8)}
    return worked_examples(
        context.prompts_dir,
        "critic_extract_system.jinja",
        "critic_extract.jinja",
        "critic_extract_examples.jinja",
        values,
    )


UNVERIFIED_PASS = (
    "Not met: the judge passed this without quoting the draft, so the pass could not be checked."
)
NOT_GRADED = "Not met: the judge gave no valid result for this criterion."


def _with_real_ids(report: CriticReport, criteria: Sequence[CriterionBase]) -> CriticReport:
    # ids that are neither the criteria's nor the opaque ones are read by position when the
    # count matches: a judge that echoes a word of a criterion as its id still gives a verdict
    real = [criterion.id for criterion in criteria]
    given = [result.criterion_id.strip() for result in report.results]
    if set(given) == set(real):
        ids = given
    else:
        opaque = dict(zip(_opaque_ids(criteria), real, strict=True))
        ids = [opaque.get(name, name) for name in given]
        if set(ids) != set(real) and len(given) == len(real):
            ids = real
    # results for criteria not asked about (a judge that grades the whole rubric when asked
    # for part of it) are dropped when every criterion asked about has its own
    asked = set(real) <= set(ids)
    results = [
        result.model_copy(update={"criterion_id": name})
        for result, name in zip(report.results, ids, strict=True)
        if name in real or not asked
    ]
    return report.model_copy(update={"results": results})


def accept_answer(
    answer: dict[str, Any],
    criteria: Sequence[CriterionBase],
    artifact: str,
    unverified: Literal["reject", "fail"] = "reject",
) -> Graded:
    """Raise `InvalidAnswer` unless the report is consistent and its passes grounded.

    With `unverified="fail"` (the last attempt) those are not met instead: a pass no one can
    check is never a pass, and one weak judgement neither ends the run nor leaves no verdict.
    """
    report = _with_real_ids(parse_answer(answer, CriticReport), criteria)
    last = unverified == "fail"  # then what the answer failed to grade validly is not met
    results = _salvaged(report, criteria) if last else check_report(report, criteria)
    ungrounded = ungrounded_passes(
        [(result.criterion_id, result.evidence) for result in results if result.passed], artifact
    )
    if ungrounded and unverified == "reject":
        raise InvalidVerdict(ungrounded)
    failed = {"passed": False, "evidence": UNVERIFIED_PASS, "hint": ""}
    results = [
        result.model_copy(update=failed)
        if result.passed and not grounded(result.evidence, artifact)
        else result
        for result in results
    ]
    return results, report.feedback


def _salvaged(report: CriticReport, criteria: Sequence[CriterionBase]) -> list[CriterionResult]:
    # the first result with evidence per criterion is kept, the rest not met; an answer that
    # grades none validly raises: the run ends as `verifier_error`, not as failing rounds
    kept: dict[str, CriterionResult] = {}
    for finding in report.results:
        usable = any(character.isalnum() for character in finding.evidence)
        if finding.criterion_id in kept or not usable or (finding.terminal and finding.passed):
            continue
        kept[finding.criterion_id] = CriterionResult(**finding.model_dump())
    if not kept.keys() & {criterion.id for criterion in criteria}:
        raise InvalidVerdict(["the answer grades no criterion validly"])
    return [
        kept.get(criterion.id)
        or CriterionResult(criterion_id=criterion.id, passed=False, evidence=NOT_GRADED)
        for criterion in criteria
    ]


def accept_one(
    answer: dict[str, Any],
    criterion: CriterionBase,
    artifact: str,
    unverified: Literal["reject", "fail"] = "reject",
) -> Graded:
    """Raise `InvalidAnswer` on "met" without a short quotation of the artifact (last: not met).

    "not sure" is not met, with a hint.
    """
    found = parse_answer(answer, CriterionAnswer)
    quote = " ".join(found.quote.split()).strip().strip('"“”`')
    hint = found.hint.strip()
    if found.verdict == "met":
        problem = quote_problem(quote, artifact)
        if problem is None:
            passed = CriterionResult(criterion_id=criterion.id, passed=True, evidence=f'"{quote}"')
            return [passed], ""
        if unverified == "reject":
            raise InvalidVerdict([f"the criterion was met but {problem}"])
        evidence, hint = UNVERIFIED_PASS, ""
    elif found.verdict == "not sure":
        evidence = "Not met: the judge was not sure, which counts as not met."
    elif quote:
        evidence = f'Not met; the judge looked at "{quote}".'
    else:
        evidence = "Not met: nothing in the artifact shows it."
    result = CriterionResult(criterion_id=criterion.id, passed=False, evidence=evidence, hint=hint)
    return [result], hint


NO_WORDS = {"none", "n/a", "nothing", "no", "null"}  # no words of the artifact show it
NOTHING_QUOTED = "Not met: the judge found no words in the artifact that show it."


def extracted_quote(reply: str) -> str:
    """Read the words a judge replied with: its first line, without quotation marks."""
    first = next((line for line in reply.splitlines() if line.strip()), "")
    return " ".join(first.split()).strip("\"“”`'").strip()


def extracted(
    reply: str, criterion: CriterionBase, artifact: str, short_whole: bool = False
) -> tuple[Graded, str | None]:
    """Pass a short part of the artifact; else not met, with why the words prove nothing.

    The second value is None when the answer is final (a pass, or "NONE"). With `short_whole`
    a draft of a few words may be quoted whole ("Blue." names a colour): where no yes or no
    is asked, that is all the evidence such a draft can have (code rules out beforehand the
    criteria a few words cannot meet).
    """
    quote = extracted_quote(reply)
    problem = None
    if not quote or quote.lower().strip(" .!") in NO_WORDS:
        evidence = NOTHING_QUOTED
    elif (problem := quote_problem(quote, artifact, short_whole=short_whole)) is None:
        passed = CriterionResult(criterion_id=criterion.id, passed=True, evidence=f'"{quote}"')
        return ([passed], ""), None
    else:
        evidence = f'Not met: the judge\'s evidence "{quote[:200]}" is no evidence ({problem}).'
    result = CriterionResult(criterion_id=criterion.id, passed=False, evidence=evidence)
    return ([result], ""), problem


EXTRACT_MAX_TOKENS = 64  # an extracting judge's reply: a few words are asked for


def _criterion_groups(
    criteria: Sequence[CriterionBase], context: Context
) -> list[list[CriterionBase]]:
    apart = context.judge_granularity == "criterion" or context.judge_mode != "verdict"
    return [[criterion] for criterion in criteria] if apart else [list(criteria)]


def _structured(
    spec: str, criteria: Sequence[CriterionBase], artifact: str, context: Context
) -> Request[Graded]:
    together = context.judge_granularity == "rubric" or len(criteria) > 1

    def prompt_for(problem: str | None) -> list[BaseMessage]:
        if together:
            return judge_prompt(criteria, artifact, context, problem)
        fenced = {"criterion": criteria[0], "artifact": artifact, "fence": secrets.token_hex(8)}
        again = None if problem is None else ("critic_one_retry.jinja", {"problems": problem})
        return conversation(
            context.prompts_dir, "critic_one_system.jinja", ("critic_one.jinja", fenced), again
        )

    def accept(answer: dict[str, Any], unverified: Literal["reject", "fail"]) -> Graded:
        if together:
            return accept_answer(answer, criteria, artifact, unverified)
        return accept_one(answer, criteria[0], artifact, unverified)

    schema = critic_output_schema() if together else criterion_answer_schema()
    return Request(
        model=grading_model(spec, "critic", context),
        spec=spec,
        role="critic",
        server=model_server(spec, context),
        prompt=prompt_for(None),
        read=lambda answer: accept(answer, "reject"),
        read_last=lambda answer: accept(answer, "fail"),
        retry=lambda prompt, answer, problem: prompt_for(problem),
        attempts=context.critic_attempts,
        schema=schema,
        method=context.structured_output_method,
    )


def _extracting(
    spec: str, criterion: CriterionBase, artifact: str, context: Context
) -> Request[Graded]:
    # words not in the artifact (a small model copies the criterion's) or the whole artifact
    # are asked for again, with the reason; the last attempt's answer is final. Asked for the
    # quotation `extract_ask` weighs, the first answer is final.
    weighed = context.judge_mode == "extract_ask"

    def read(reply: BaseMessage) -> Graded:
        graded, problem = extracted(reply.text, criterion, artifact, short_whole=not weighed)
        if problem is not None and not weighed:
            raise InvalidAnswer([f"the evidence {problem}"])
        return graded

    def retry(prompt: list[BaseMessage], reply: BaseMessage, problem: str) -> list[BaseMessage]:
        why = problem.removeprefix("the evidence ")
        again = render_prompt("critic_extract_retry.jinja", context.prompts_dir, problem=why)
        return [*prompt, AIMessage(reply.text), HumanMessage(again)]

    capped = context.model_copy(update={"critic_max_tokens": EXTRACT_MAX_TOKENS})
    return Request(
        model=grading_model(spec, "critic", capped),
        spec=spec,
        role="critic",
        server=model_server(spec, context),
        prompt=extract_prompt(criterion, artifact, context),
        read=read,
        read_last=lambda reply: extracted(reply.text, criterion, artifact, not weighed)[0],
        retry=retry,
        attempts=1 if weighed else context.critic_attempts,
    )


def _asking(
    spec: str, criterion: CriterionBase, artifact: str, context: Context
) -> Request[Graded]:
    # extract_ask's first question: yes or no; its P(met) decides unless it is near the bar
    bar = judge_bar(spec)

    def read(reply: BaseMessage) -> Graded:
        met = p_met(reply)
        result = CriterionResult(
            criterion_id=criterion.id,
            passed=met is not None and met >= bar.threshold,
            evidence=bar.said(met),
            p_met=met,
        )
        return [result], ""

    asked = yes_no_request(spec, criterion.text, artifact, context)
    return Request(**{**asked.__dict__, "read": read})


def judge_requests(
    criteria: Sequence[CriterionBase], artifact: str, context: Context
) -> list[Request[Graded]]:
    """Return every request of a judgement: each group of criteria, asked of each judge."""
    ask = {"verdict": None, "extract": _extracting, "extract_ask": _asking}[context.judge_mode]
    return [
        ask(judge.spec, group[0], artifact, context)
        if ask is not None
        else _structured(judge.spec, group, artifact, context)
        for group in _criterion_groups(criteria, context)
        for judge in panel(context)
    ]


@dataclass(frozen=True)
class JudgeBar:
    """Where `extract_ask` passes a criterion: P(met) at `threshold`, a quotation worth `weight`.

    Near the bar (within `weight` of it) the judge is asked for the words that show it too.
    """

    threshold: float = DEFAULT_THRESHOLD
    weight: float = 0.0

    def near(self, met: float | None) -> bool:
        """Tell whether P(met) is close enough to the bar that a quotation matters."""
        return (
            met is not None and self.threshold - self.weight <= met < self.threshold + self.weight
        )

    def said(self, met: float | None, quote: str | None = None) -> str:
        """Say what decided a criterion: the judge's yes or no, and its words if any."""
        if met is None:
            return "Not met: asked yes or no, the judge gave no probability of yes."
        score = met + (self.weight if quote else 0.0)
        passed, mark = score >= self.threshold, (">=" if score >= self.threshold else "<")
        words = f'"{quote}"; with these words, ' if quote else ""
        counted = f"{score:.2f} {mark} {self.threshold:.2f}"
        said = f"{words}asked yes or no, P(met) {met:.2f} ({counted})"
        return f"{'Met' if passed else 'Not met'}: {said}"

    def ends_on(self, result: CriterionResult) -> bool:
        """Tell whether a judged pass can end a run.

        It can on two signals (words of the draft, and a yes near the bar), or a clear yes.
        """
        met = result.p_met
        return (
            met is None or bool(quotations(result.evidence)) or met >= self.threshold + self.weight
        )


def judge_bar(spec: str) -> JudgeBar:
    """Return the critic model's bar: its judge profile's, else a yes likelier than a no."""
    profile = judge_profile(spec)
    return JudgeBar() if profile is None else JudgeBar(profile.threshold, profile.quote_weight)


def quotes_asked(
    criteria: Sequence[CriterionBase],
    artifact: str,
    answers: Sequence[Answer[Graded]],
    context: Context,
) -> list[Request[Graded]]:
    """Ask each judge whose yes/no came out near the bar for the words that show it."""
    judges = panel(context)
    return [
        _extracting(
            judges[index % len(judges)].spec, criteria[index // len(judges)], artifact, context
        )
        for index, answer in enumerate(answers)
        if _near(answer, judges[index % len(judges)].spec, context)
    ]


def _near(answer: Answer[Graded], spec: str, context: Context) -> bool:
    value = answer.value
    return (
        context.judge_mode == "extract_ask"
        and value is not None
        and judge_bar(spec).near(value[0][0].p_met)
    )


def with_quotes(
    answers: Sequence[Answer[Graded]], quotes: Iterator[Answer[Graded]], context: Context
) -> list[Answer[Graded]]:
    """Weigh the quotation a judge near the bar gave: it counts `weight` towards P(met)."""
    judges, decided = panel(context), []
    for index, answer in enumerate(answers):
        spec = judges[index % len(judges)].spec
        if not _near(answer, spec, context):
            decided.append(answer)
            continue
        asked = next(quotes)
        assert answer.value is not None  # a near answer has one
        looked = answer.value[0][0]
        found = asked.value[0][0] if asked.value is not None else None
        quote = quotations(found.evidence)[0] if found is not None and found.passed else None
        bar = judge_bar(spec)
        met = looked.p_met if looked.p_met is not None else 0.0
        update = {
            "passed": met + (bar.weight if quote else 0.0) >= bar.threshold,
            "evidence": bar.said(looked.p_met, quote),
        }
        spent = _spent([answer, asked])
        result = looked.model_copy(update=update)
        decided.append(
            Answer(([result], ""), spent.calls, asked.rejected, spent.usage, spent.stopped)
        )
    return decided


def unconfirmed(result: CriterionResult, context: Context) -> CriterionResult:
    """Return a judged pass a run would end on as not met, unless `JudgeBar.ends_on` it.

    The more drafts a run grades, the likelier one weak yes among them.
    """
    bar = judge_bar(context.critic_model)
    if context.judge_mode != "extract_ask" or not result.passed or bar.ends_on(result):
        return result
    evidence = (
        f"{result.evidence}. Not met before the run ends on it: a yes short of "
        f"{bar.threshold + bar.weight:.2f} needs words of the draft that show it."
    )
    return result.model_copy(update={"passed": False, "evidence": evidence})


def carried(votes: dict[str, bool], min_agreement: float) -> bool:
    """Tell whether the votes pass a criterion: a strict majority, and `min_agreement` of them."""
    passes = sum(votes.values())
    return 2 * passes > len(votes) and passes >= min_agreement * len(votes) - 1e-9


def _majority(graded: list[tuple[Judge, Graded]], count: int, min_agreement: float) -> Graded:
    results = []
    for index in range(count):
        votes = {judge.label: answer[0][index].passed for judge, answer in graded}
        passed = carried(votes, min_agreement)
        terminal = not passed and 2 * sum(a[0][index].terminal for _, a in graded) > len(graded)
        representative = next(
            answer[0][index]
            for _, answer in graded
            if answer[0][index].passed == passed and (answer[0][index].terminal or not terminal)
        )
        decided = {"passed": passed, "votes": votes, "terminal": terminal}
        results.append(representative.model_copy(update=decided))
    agreement = [
        sum(mine.passed == final.passed for mine, final in zip(answer[0], results, strict=True))
        for _, answer in graded
    ]
    feedback = graded[agreement.index(max(agreement))][1][1]
    return results, feedback


def _spent(answers: Sequence[Answer[Any] | Judgement]) -> Judgement:
    return Judgement(
        calls=sum(answer.calls for answer in answers),
        usage=sum((answer.usage for answer in answers), TokenUsage()),
        stopped=next((answer.stopped for answer in answers if answer.stopped), None),
    )


def _together(
    judges: list[Judge], answers: list[Answer[Graded]], count: int, context: Context
) -> Judgement:
    judgement = _spent(answers)
    judgement.rejected = [
        problem if len(judges) == 1 else f"{judge.label}: {problem}"
        for judge, answer in zip(judges, answers, strict=True)
        for problem in answer.rejected
    ]
    if judgement.stopped is not None:
        return judgement
    graded = [(j, a.value) for j, a in zip(judges, answers, strict=True) if a.value is not None]
    if not graded:
        judgement.error = (
            f"no acceptable verdict after {judgement.calls} critic call(s); "
            f"last problem: {judgement.rejected[-1]}"
        )
    elif len(judges) == 1:
        judgement.results, judgement.feedback = graded[0][1]
    else:
        judgement.results, judgement.feedback = _majority(
            graded, count, context.critic_min_agreement
        )
    return judgement


def judgement_of(
    criteria: Sequence[CriterionBase], answers: Sequence[Answer[Graded]], context: Context
) -> Judgement:
    """Combine the answers to `judge_requests`; one the budgets cut short decides nothing."""
    judges = panel(context)
    groups = _criterion_groups(criteria, context)
    parts = [
        _together(judges, list(answers[i * len(judges) : (i + 1) * len(judges)]), len(g), context)
        for i, g in enumerate(groups)
    ]
    if len(parts) == 1:
        return parts[0]
    merged = _spent(parts)
    merged.rejected = [problem for part in parts for problem in part.rejected]
    if merged.stopped is None:
        merged.error = next((part.error for part in parts if part.error is not None), None)
    if merged.stopped is None and merged.error is None:
        merged.results = [result for part in parts for result in part.results]
        merged.feedback = " ".join(part.feedback for part in parts if part.feedback.strip())
    return merged

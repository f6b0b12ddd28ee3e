"""Scripted stand-in models for the notebooks, used when the reader configured no real model.

A notebook's first cell starts `start_stand_in(<notebook>)` when none of the variables in
`tests.support.notebooks.MODEL_VARIABLES` is set. Each stand-in answers over real HTTP,
like a diligent model that needs one revision: the worker's first draft misses something,
and a revision (or a first draft written with remembered rules) has it; the judge passes
a criterion exactly when the artifact contains the phrase the script names for it,
quoting that phrase; the distiller proposes the script's rules. Grading by content, not
by call order, keeps the answers right whether the judge is asked about the whole rubric
or one criterion a call.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from tests.support.openai_server import (
    Answer,
    ScriptedOpenAIServer,
    Structured,
    Text,
    artifact_of,
    is_extract_request,
    is_structured_request,
    rubric_ids,
    schema_name,
)


@dataclass(frozen=True)
class Drafts:
    """What the worker writes for a task (recognized by a phrase of it)."""

    task_phrase: str
    first: str
    revised: str


@dataclass(frozen=True)
class Requirement:
    """A criterion passes when the artifact contains `phrase`; else it fails with `hint`."""

    phrase: str
    hint: str
    about: str = ""
    """Words of the criterion's text, to tell which criterion a judge is asked about
    (judges see criteria by opaque ids, or one per call with no id at all)."""


def _prompt(request: dict[str, Any]) -> str:
    return "\n".join(str(message.get("content") or "") for message in request["messages"])


@dataclass
class StandIn:
    """A scripted model for one notebook (see the module docstring)."""

    drafts: list[Drafts]
    requirements: dict[str, Requirement]
    rules: list[dict[str, Any]] = field(default_factory=list)

    def __call__(self, request: dict[str, Any]) -> Answer:
        if is_extract_request(request):  # the judge copies evidence, code decides
            answer = self._answer(request)
            return Text(answer["quote"] if answer["verdict"] == "met" else "NONE")
        if not is_structured_request(request):
            return Text(self._draft(request))
        if schema_name(request) == "rule_operations":
            return Structured({"operations": self.rules})
        if schema_name(request) == "answer":  # one criterion per call
            return Structured(self._answer(request))
        return Structured(self._verdict(request))

    def _criterion_id(self, text: str, shown: str) -> str:
        """The id of the requirement whose `about` is in the criterion's `text`, else `shown`."""
        return next((cid for cid, r in self.requirements.items() if r.about in text), shown)

    def _answer(self, request: dict[str, Any]) -> dict[str, Any]:
        artifact = artifact_of(request)
        # the last statement: an extracting judge's worked examples come before it
        statement = _prompt(request).rsplit("Statement: ", 1)[1].split("\n", 1)[0]
        required = self.requirements.get(self._criterion_id(statement, ""))
        if required is not None and required.phrase not in artifact:
            return {"quote": "", "verdict": "not met", "hint": required.hint}
        quote = required.phrase if required else _first_words(artifact)
        return {"quote": quote, "verdict": "met", "hint": ""}

    def _draft(self, request: dict[str, Any]) -> str:
        prompt = _prompt(request)
        drafts = next((d for d in self.drafts if d.task_phrase in prompt), self.drafts[0])
        revising = any(message.get("role") == "assistant" for message in request["messages"])
        remembers = any(rule["text"] in prompt for rule in self.rules)
        return drafts.revised if revising or remembers else drafts.first

    def _result(self, criterion_id: str, artifact: str) -> dict[str, Any]:
        required = self.requirements.get(criterion_id)
        if required is not None and required.phrase not in artifact:
            evidence = f"Nothing in the artifact does what {criterion_id} asks."
            return self._graded(criterion_id, False, evidence, required.hint)
        shown = required.phrase if required else _first_words(artifact)
        return self._graded(criterion_id, True, f'It says "{shown}".', "")

    @staticmethod
    def _graded(criterion_id: str, passed: bool, evidence: str, hint: str) -> dict[str, Any]:
        return {
            "criterion_id": criterion_id,
            "evidence": evidence,
            "passed": passed,
            "terminal": False,
            "hint": hint,
        }

    def _verdict(self, request: dict[str, Any]) -> dict[str, Any]:
        artifact = artifact_of(request)
        shown = re.findall(r"^- \[([^\]]+)\] (.*)$", _prompt(request), flags=re.MULTILINE)
        results = [
            {**self._result(self._criterion_id(text, id_), artifact), "criterion_id": id_}
            for id_, text in shown
        ] or [self._result(id_, artifact) for id_ in rubric_ids(request)]
        failing = [result["hint"] for result in results if not result["passed"]]
        return {"results": results, "feedback": " ".join(failing), "passed": not failing}


def _first_words(artifact: str) -> str:
    """The first line of the artifact that is not a code fence, to quote as evidence."""
    lines = (line.strip() for line in artifact.splitlines())
    first = next((line for line in lines if line and not line.startswith("```")), "")
    return " ".join(first.replace('"', "'").split()[:4])  # a short part, as a pass must


QUICKSTART = StandIn(
    drafts=[
        Drafts(
            "hash map",
            first=(
                "A hash map stores values under keys. Give it a key, such as the name Ada, "
                "and it hands back the value stored under that key, such as Ada's phone "
                "number 555-0100."
            ),
            revised=(
                "A hash map stores values under keys. Give it a key, such as the name Ada, "
                "and it hands back the value stored under that key, such as Ada's phone "
                "number 555-0100. Finding something in a list means checking the items one "
                "by one; a hash map goes straight to the value from its key, so a lookup "
                "stays fast however many items it holds."
            ),
        )
    ],
    requirements={
        "length": Requirement("A hash map", "", about="at most 120 words"),
        "example": Requirement(
            "phone number", "Show one key and the value it finds.", about="concrete example"
        ),
        "contrast": Requirement(
            "one by one",
            "Say how finding a value by key differs from searching a list.",
            about="differs from searching",
        ),
    },
)

MEDIAN_FIRST = '''```python
def median(values):
    """Return the median of a list of numbers."""
    ordered = sorted(values)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]
    return (ordered[middle - 1] + ordered[middle]) / 2
```'''
"""Right for every list but the empty one (an IndexError, not the ValueError the tests want)."""

MEDIAN_REVISED = '''```python
def median(values):
    """Return the median of a list of numbers; an empty list is an error."""
    if not values:
        raise ValueError("the median of an empty list is undefined")
    ordered = sorted(values)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]
    return (ordered[middle - 1] + ordered[middle]) / 2
```'''

CODE_TASK = StandIn(
    drafts=[Drafts("median", first=MEDIAN_FIRST, revised=MEDIAN_REVISED)], requirements={}
)

SAFETY_RULE = "Always close a welcome message with what to bring and to check."

MEMORY = StandIn(
    drafts=[
        Drafts(
            "hiking club",
            first=(
                "Welcome to the Ridgeline Hiking Club! We walk every Saturday morning, "
                "from gentle valley loops to proper summit days, and new faces are always "
                "welcome. See you at the trailhead."
            ),
            revised=(
                "Welcome to the Ridgeline Hiking Club! We walk every Saturday morning, "
                "from gentle valley loops to proper summit days, and new faces are always "
                "welcome. Bring two litres of water and check the weather before you set "
                "out."
            ),
        ),
        Drafts(
            "cycling club",
            first=(
                "Welcome to the Riverside Cycling Club! Our Sunday rides range from easy "
                "café loops to hilly training laps. Come along and meet the group."
            ),
            revised=(
                "Welcome to the Riverside Cycling Club! Our Sunday rides range from easy "
                "café loops to hilly training laps. Bring water and a pump, and check your "
                "brakes and the weather before you set out."
            ),
        ),
    ],
    requirements={
        "safety": Requirement(
            "before you set out", "Close with what to bring and to check.", about="safety reminder"
        ),
        "welcoming": Requirement("Welcome", "", about="greets new members"),
    },
    rules=[
        {
            "action": "add",
            "rule_id": "",
            "text": SAFETY_RULE,
            "criteria": ["safety"],
            "reason": "The first draft had no safety reminder and failed for it.",
        }
    ],
)

STAND_INS = {"quickstart": QUICKSTART, "code_task": CODE_TASK, "memory": MEMORY}
"""The stand-in for each notebook, by the notebook's file name without `.ipynb`."""


def start_stand_in(notebook: str) -> ScriptedOpenAIServer:
    """Start the scripted server for `notebook` on 127.0.0.1 (it stops with the process)."""
    return ScriptedOpenAIServer(STAND_INS[notebook]).start()

"""The rubric: criteria only the critic sees (jsonschema loads late: `--help` imports this)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal, Self, Union, get_args

import regex
from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Discriminator,
    Field,
    GetCoreSchemaHandler,
    Tag,
    field_validator,
    model_validator,
)
from pydantic.json_schema import SkipJsonSchema
from pydantic_core import CoreSchema

from critic_loop.state.operator_settings import operator_settings
from critic_loop.state.references import register_check
from critic_loop.state.sizes import check_depth

CRITERION_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.:-]*$"

Severity = Literal["must", "should"]
MAX_TEST_SECONDS = 600.0
MAX_COUNT = 1_000_000_000  # a larger word or character bound is a mistake (and breaks storage)
INT64 = (-(2**63), 2**63 - 1)  # checkpoints store 64-bit integers
CONTRADICTION_BUDGET_SECONDS = 1.0


def _refuse_over(setting: str, size: int, said: str) -> None:
    limit = getattr(operator_settings(), setting)
    if size > limit:
        raise ValueError(f"{said}; the most allowed is {limit} (CRITIC_LOOP_{setting.upper()})")


def _require_text(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be blank")
    return value


def _encodable(text: str, what: str) -> str:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        raise ValueError(
            f"{what} contains an invalid character (a lone surrogate) at position {error.start}"
        ) from None
    return text


def _json_values(value: Any) -> Iterator[Any]:
    yield value
    if isinstance(value, dict | list):
        for item in value.values() if isinstance(value, dict) else value:
            yield from _json_values(item)


NonBlank = Annotated[str, AfterValidator(_require_text)]
KIND_DESCRIPTION = "Which kind of criterion this is; it decides the fields it takes."

KINDS: dict[str, type[CriterionBase]] = {}
"""Every kind of criterion, as a rubric names it, and its class: each class that declares a
`kind` joins when it is defined. The rubric's schema, its conflicts, the checks, the command
line's `--check` and the public names follow from it."""

Conflict = tuple["CriterionBase", "CriterionBase", str]  # two criteria, why both cannot pass


class CriterionBase(BaseModel):
    """What every criterion has: a stable id and a description."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(
        min_length=1,
        max_length=64,
        pattern=CRITERION_ID_PATTERN,
        description="Stable identifier, unique within the rubric; verdicts refer to it.",
    )
    text: str = Field(
        default="",
        max_length=2000,
        description="What the criterion requires, in words (checks describe themselves).",
    )
    severity: Severity = Field(
        default="must", description="must: a pass needs it; should: it counts toward the score."
    )
    weight: float = Field(default=1.0, gt=0, le=100, description="Its share of the weighted score.")
    deterministic: ClassVar[bool] = True  # decided by code; only `Criterion` is not
    check: ClassVar[str | None] = None
    """The function deciding it, (criterion, draft) -> CheckResult, as "module:function" of
    `critic_loop.nodes.verifiers.checks`; None: the judge, or code the rubric names."""
    check_blocks: ClassVar[bool] = False  # its check may block: a thread runs it under ainvoke

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        if "kind" in vars(cls).get("__annotations__", {}):  # declared here, not inherited
            (kind,) = get_args(cls.model_fields["kind"].annotation)
            if kind in KINDS:
                raise TypeError(f"kind {kind!r} is declared by {KINDS[kind].__name__} already")
            KINDS[kind] = cls

    @classmethod
    def conflict(cls, criteria: Sequence[CriterionBase]) -> Conflict | None:
        """Return two of `criteria` (one of this kind) that no draft can both pass, and why."""
        return None

    def describe(self) -> str:
        """Say what the criterion requires, for reports (its text, else a description)."""
        return self.text or self._default_text()

    def _default_text(self) -> str:
        return self.id


class Criterion(CriterionBase):
    """A sentence the critic model grades (kind "llm", the default)."""

    kind: Literal["llm"] = Field(
        default="llm", description="An LLM-graded sentence (the default kind)."
    )
    text: NonBlank = Field(
        min_length=1,
        max_length=2000,
        description="The condition, checkable without interpreting it ('Under 150 words.').",
    )
    deterministic: ClassVar[bool] = False


class CountBounds(CriterionBase):
    """A count of something in the artifact lies within [min, max]; subclasses name the unit."""

    unit: ClassVar[str] = "units"
    min: int | None = Field(default=None, ge=0, le=MAX_COUNT, description="The fewest allowed.")
    max: int | None = Field(default=None, ge=0, le=MAX_COUNT, description="The most allowed.")

    @model_validator(mode="after")
    def _bounds(self) -> Self:
        if self.min is None and self.max is None:
            raise ValueError(f"give min or max {self.unit}")
        if self.min is not None and self.max is not None and self.min > self.max:
            raise ValueError(f"min ({self.min}) is above max ({self.max})")
        return self

    @classmethod
    def conflict(cls, criteria: Sequence[CriterionBase]) -> Conflict | None:
        """Return the tightest `max` of this unit below the highest `min`."""
        counted = [c for c in criteria if isinstance(c, cls)]
        if not counted:
            return None
        tightest = min(counted, key=lambda c: MAX_COUNT if c.max is None else c.max)
        highest = max(counted, key=lambda c: c.min or 0)
        if tightest.max is not None and tightest.max < (highest.min or 0):
            said = f"at most {tightest.max} {cls.unit} and at least {highest.min} {cls.unit}"
            return tightest, highest, said
        return None

    def _default_text(self) -> str:
        if self.min is not None and self.max is not None:
            return f"The artifact has between {self.min} and {self.max} {self.unit}."
        if self.max is not None:
            return f"The artifact has at most {self.max} {self.unit}."
        return f"The artifact has at least {self.min} {self.unit}."


class WordCount(CountBounds):
    """The artifact's word count lies within bounds."""

    unit: ClassVar[str] = "words"
    kind: Literal["word_count"] = Field(description=KIND_DESCRIPTION)
    check = "text:check_word_count"


class CharCount(CountBounds):
    """The artifact's length in characters lies within bounds."""

    unit: ClassVar[str] = "characters"
    kind: Literal["char_count"] = Field(description=KIND_DESCRIPTION)
    check = "text:check_char_count"


class Regex(CriterionBase):
    """The artifact matches (or must not match) a regular expression."""

    kind: Literal["regex"] = Field(description=KIND_DESCRIPTION)
    check = "text:check_regex"
    pattern: str = Field(min_length=1, description="A Python regular expression.")
    must_match: bool = Field(
        default=True, description="True: the pattern must occur; False: it must not."
    )
    ignore_case: bool = Field(default=False, description="Match regardless of case.")

    @field_validator("pattern")
    @classmethod
    def _compiles(cls, value: str) -> str:
        _refuse_over("max_pattern_chars", len(value), f"the pattern is {len(value)} characters")
        try:
            regex.compile(value)
        except regex.error as error:
            raise ValueError(f"invalid regular expression: {error}") from error
        return value

    @property
    def flags(self) -> int:
        return int(regex.MULTILINE | (regex.IGNORECASE if self.ignore_case else 0))

    @classmethod
    def conflict(cls, criteria: Sequence[CriterionBase]) -> Conflict | None:
        """Return a pattern one criterion requires and another forbids."""
        required = {
            (c.pattern, c.ignore_case): c for c in criteria if isinstance(c, Regex) and c.must_match
        }
        for forbidding in criteria:
            if isinstance(forbidding, Regex) and not forbidding.must_match:
                found = required.get((forbidding.pattern, forbidding.ignore_case))
                if found is not None:
                    said = f"the pattern /{found.pattern}/ is required and forbidden"
                    return found, forbidding, said
        return None

    def _default_text(self) -> str:
        verb = "matches" if self.must_match else "does not match"
        return f"The artifact {verb} the pattern /{self.pattern}/."


class Contains(CriterionBase):
    """The artifact contains each of a list of phrases."""

    kind: Literal["contains"] = Field(description=KIND_DESCRIPTION)
    check = "text:check_contains"
    phrases: list[NonBlank] = Field(min_length=1, description="Each must appear.")
    case_sensitive: bool = Field(default=False, description="Match case exactly.")

    def _default_text(self) -> str:
        return "The artifact contains: " + "; ".join(repr(p) for p in self.phrases) + "."

    @classmethod
    def conflict(cls, criteria: Sequence[CriterionBase]) -> Conflict | None:
        """Return a required phrase that a forbidding pattern matches wherever it appears.

        The pattern matches share a time budget; undecided within it is no conflict.
        """
        deadline = time.monotonic() + CONTRADICTION_BUDGET_SECONDS
        forbidding = [c for c in criteria if isinstance(c, Regex) and not c.must_match]
        # a phrase matched without regard to case can dodge a case-sensitive pattern in a
        # case variant: only patterns that ignore case bind it
        ignoring_case = [c for c in forbidding if c.ignore_case]
        pairs = (
            (contains, pattern, phrase)
            for contains in criteria
            if isinstance(contains, Contains)
            for pattern in (forbidding if contains.case_sensitive else ignoring_case)
            for phrase in contains.phrases
        )
        for contains, pattern, phrase in pairs:
            if (left := deadline - time.monotonic()) <= 0:
                return None
            try:
                found = regex.search(pattern.pattern, f"x {phrase} x", pattern.flags, timeout=left)
            except TimeoutError:
                return None
            if found:
                return contains, pattern, f"{phrase!r} is required and forbidden"
        return None


class Headings(CriterionBase):
    """The artifact has each of a list of Markdown headings (any level)."""

    kind: Literal["headings"] = Field(description=KIND_DESCRIPTION)
    check = "text:check_headings"
    headings: list[NonBlank] = Field(min_length=1, description="Each must be a heading.")

    def _default_text(self) -> str:
        return "The artifact has the headings: " + "; ".join(self.headings) + "."


class ValidJson(CriterionBase):
    """The artifact is valid JSON."""

    kind: Literal["json"] = Field(description=KIND_DESCRIPTION)
    check = "structured:check_json"

    def _default_text(self) -> str:
        return "The artifact is valid JSON."


def _unresolvable_reference(schema: dict[str, Any]) -> str | None:
    # the first `$ref` that does not resolve within `schema` (none is ever fetched)
    from referencing import Registry
    from referencing.exceptions import Unresolvable
    from referencing.jsonschema import specification_with

    base = "urn:critic-loop:schema"
    default = "https://json-schema.org/draft/2020-12/schema"
    specification = specification_with(str(schema.get("$schema", default)))
    resource = specification.create_resource({key: v for key, v in schema.items() if key != "$id"})
    resolver = Registry().with_resource(base, resource).resolver(base_uri=base)
    for node in _json_values(schema):
        reference = node.get("$ref") if isinstance(node, dict) else None
        if not isinstance(reference, str):
            continue
        try:
            resolver.lookup(reference)
        except Unresolvable:
            return reference
    return None


class MatchesJsonSchema(CriterionBase):
    """The artifact is JSON valid against a JSON Schema."""

    kind: Literal["json_schema"] = Field(description=KIND_DESCRIPTION)
    check = "structured:check_json_schema"
    json_schema: dict[str, Any] = Field(alias="schema", description="The JSON Schema.")

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    @field_validator("json_schema", mode="before")
    @classmethod
    def _shallow(cls, value: Any) -> Any:
        return check_depth(value, "the JSON Schema")

    @field_validator("json_schema")
    @classmethod
    def _valid_schema(cls, value: dict[str, Any]) -> dict[str, Any]:
        from jsonschema import validators
        from jsonschema.exceptions import SchemaError

        try:
            validators.validator_for(value).check_schema(value)
        except SchemaError as error:
            raise ValueError(f"invalid JSON Schema: {error.message}") from error
        if (unresolved := _unresolvable_reference(value)) is not None:
            raise ValueError(
                "the JSON Schema's $ref must point inside the schema (nothing is fetched); "
                f"cannot resolve {unresolved!r}"
            )
        return value

    def _default_text(self) -> str:
        return "The artifact is JSON matching the schema " + json.dumps(self.json_schema)[:200]


class PythonSyntax(CriterionBase):
    """The artifact (or its fenced code block) is syntactically valid Python."""

    kind: Literal["python_syntax"] = Field(description=KIND_DESCRIPTION)
    check = "structured:check_python_syntax"

    def _default_text(self) -> str:
        return "The artifact is valid Python."


LANGUAGES = {  # the names a criterion may use, by ISO 639-1 code
    "en": "English", "fr": "French", "de": "German", "es": "Spanish", "it": "Italian",
    "pt": "Portuguese", "nl": "Dutch", "sv": "Swedish", "da": "Danish", "no": "Norwegian",
    "fi": "Finnish", "pl": "Polish", "cs": "Czech", "ro": "Romanian", "tr": "Turkish",
    "ru": "Russian", "uk": "Ukrainian", "el": "Greek", "ja": "Japanese", "zh": "Chinese",
}  # fmt: skip


class Language(CriterionBase):
    """The artifact's prose is written in one language, as a language identifier reads it."""

    kind: Literal["language"] = Field(description=KIND_DESCRIPTION)
    check, check_blocks = "text:check_language", True  # its first use reads a model
    language: Literal[tuple(LANGUAGES)] = Field(  # type: ignore[valid-type]
        description="The language, by its ISO 639-1 code: " + ", ".join(LANGUAGES) + "."
    )

    def _default_text(self) -> str:
        return f"It is written in {LANGUAGES[self.language]}."


PYTHON_FEATURES = {  # what a `python_feature` check finds in drafted code, said as a criterion
    "docstring": "a docstring",
    "type_hints": "type hints",
    "loop": "a for or while loop",
    "recursion": "a function that calls itself",
    "print": "a call to print",
    "return": "a return of a value",
    "comment": "a comment",
    "f_string": "an f-string",
    "import": "an import",
    "stdlib_only": "imports from the Python standard library only",
    "parameters": "a function's parameters",
    "methods": "a class's methods",
}


class PythonFeature(CriterionBase):
    """The drafted Python has a feature code finds in its syntax tree (or, counted, so many)."""

    kind: Literal["python_feature"] = Field(description=KIND_DESCRIPTION)
    check = "structured:check_python_feature"
    feature: Literal[tuple(PYTHON_FEATURES)] = Field(  # type: ignore[valid-type]
        description="What to find: " + ", ".join(PYTHON_FEATURES) + "."
    )
    count: int | None = Field(
        default=None, ge=0, description="For parameters and methods: exactly this many."
    )
    present: bool = Field(default=True, description="False: the code must not have it.")

    def _default_text(self) -> str:
        what = PYTHON_FEATURES[self.feature]
        if self.count is not None:
            return f"The code has exactly {self.count} of {what}."
        return f"The code {'has' if self.present else 'has no'} {what}."


class PythonCheck(CriterionBase):
    """A Python function of the draft decides; it returns a `CheckResult`, a tuple or a bool.

    A tuple is `(passed, evidence, hint)`. A callable is kept as its "module:function" reference.
    """

    kind: Literal["python"] = Field(description=KIND_DESCRIPTION)
    function: str | SkipJsonSchema[Callable[..., Any]] = Field(
        description='The check, as "package.module:function".'
    )

    @field_validator("function")
    @classmethod
    def _as_reference(cls, value: str | Callable[..., Any]) -> str:
        reference = value if isinstance(value, str) else register_check(value)
        if ":" not in reference:
            raise ValueError(f"{reference!r} is not a 'package.module:function' reference")
        return reference

    def _default_text(self) -> str:
        return f"The check {self.function} passes."


class TestSuite(CriterionBase):
    """Pytest tests pass against the drafted code (its first ```python block, if any).

    The draft and the tests run in two sandboxes joined by plain data; each has the limits below.
    """

    __test__ = False  # not a pytest test class

    kind: Literal["tests"] = Field(description=KIND_DESCRIPTION)
    tests: NonBlank | None = Field(default=None, description="The test code, inline.")
    tests_file: str | None = Field(default=None, description="Path to a test file.")
    module: str = Field(
        default="solution",
        pattern=r"^[A-Za-z_][A-Za-z0-9_]*$",
        description="The module name the drafted code is saved as (tests import it).",
    )
    timeout_seconds: float = Field(
        default=60.0, gt=0, le=MAX_TEST_SECONDS, description="Wall-clock limit for the run."
    )
    memory_mb: int = Field(
        default=1024, ge=64, le=65536, description="Address space of each process, in MiB."
    )
    max_processes: int = Field(
        default=64, ge=4, le=4096, description="Most processes (threads included) at once."
    )
    max_file_mb: int = Field(
        default=64, ge=1, le=65536, description="Largest file the code may write, in MiB."
    )
    max_open_files: int = Field(
        default=256, ge=32, le=65536, description="Most files each process may hold open."
    )
    work_dir_mb: int = Field(
        default=256, ge=8, le=65536, description="The working directory's size, in MiB."
    )

    @model_validator(mode="after")
    def _one_source(self) -> TestSuite:
        if (self.tests is None) == (self.tests_file is None):
            raise ValueError("give exactly one of tests (inline code) or tests_file")
        return self

    def _default_text(self) -> str:
        return "The drafted code passes the tests" + (
            f" in {self.tests_file}." if self.tests_file else "."
        )


def _kind_of(value: Any) -> str:
    kind = value.get("kind", "llm") if isinstance(value, dict) else getattr(value, "kind", "llm")
    return str(kind)


if TYPE_CHECKING:
    AnyCriterion = CriterionBase
else:

    class AnyCriterion:
        """Any kind of criterion, chosen by its `kind` (default "llm"): a union of `KINDS`."""

        @classmethod
        def __get_pydantic_core_schema__(cls, _: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
            members = tuple(Annotated[kind, Tag(tag)] for tag, kind in KINDS.items())
            union = Union[members]  # noqa: UP007  (of a tuple: `|` takes two)
            return handler.generate_schema(Annotated[union, Discriminator(_kind_of)])


def _check_task(value: str) -> str:
    if not value.strip():
        raise ValueError("the task is empty: say what the worker should produce")
    _refuse_over("max_task_chars", len(value), f"the task is {len(value)} characters")
    return _encodable(value, "the task")


def _count_criteria(value: Any) -> Any:  # before any criterion is validated
    if isinstance(value, list | tuple):
        _refuse_over("max_criteria", len(value), f"the rubric has {len(value)} criteria")
    return check_depth(value, "the rubric")


def _storable(criterion: CriterionBase) -> None:
    dumped = criterion.model_dump(mode="json", by_alias=True, exclude_unset=True)
    encoded = _encodable(json.dumps(dumped, ensure_ascii=False), f"criterion {criterion.id!r}")
    said = f"criterion {criterion.id!r} is {len(encoded)} characters as JSON"
    _refuse_over("max_criterion_chars", len(encoded), said)
    for value in _json_values(dumped):
        if isinstance(value, int) and not INT64[0] <= value <= INT64[1]:
            raise ValueError(f"criterion {criterion.id!r} holds an integer too large to store")


def _unique_ids(criteria: list[CriterionBase]) -> list[CriterionBase]:
    if not criteria:
        raise ValueError("the rubric is empty: give at least one criterion for the critic")
    seen: set[str] = set()
    for criterion in criteria:
        if criterion.id in seen:
            raise ValueError(f"duplicate criterion id {criterion.id!r}: ids must be unique")
        seen.add(criterion.id)
    return criteria


def _check_rubric(criteria: list[CriterionBase]) -> list[CriterionBase]:
    for criterion in _unique_ids(criteria):
        _storable(criterion)
    # near-linear in the rubric; the pattern matches share a time budget (undecided: none)
    conflict = next(filter(None, (kind.conflict(criteria) for kind in KINDS.values())), None)
    if conflict is not None:
        first, second, reason = conflict
        first, second = sorted((first, second), key=criteria.index)  # in rubric order
        raise ValueError(f"criteria {first.id!r} and {second.id!r} contradict each other: {reason}")
    return criteria


Task = Annotated[
    str,
    AfterValidator(_check_task),
    Field(description="The objective: the only thing the worker is told."),
]

Rubric = Annotated[
    list[AnyCriterion],
    BeforeValidator(_count_criteria),
    AfterValidator(_check_rubric),
    Field(description="The criteria the critic grades against. The worker never sees them."),
]
"""A rubric as a run is given it: non-empty, unique ids, each storable, none contradicting."""

KeptRubric = Annotated[
    list[AnyCriterion],
    AfterValidator(_unique_ids),
    Field(description="The criteria the critic grades against. The worker never sees them."),
]
"""A rubric read back from a run's state, checked in full where the run began (`Rubric`)."""


def dump_rubric(rubric: Sequence[CriterionBase]) -> list[dict[str, Any]]:
    """Return the rubric as plain JSON, exactly as given (defaults left out)."""
    return [
        criterion.model_dump(mode="json", exclude_unset=True, by_alias=True) for criterion in rubric
    ]

"""Run configuration: the one place to choose models, limits and behaviour.

`Context` is the graph's runtime context schema (`context_schema=Context`), so LangGraph
Studio shows these fields and Python callers pass them as `context={...}`. A field the
caller leaves out takes its value from the environment variable `CRITIC_LOOP_<FIELD>`
(for example `CRITIC_LOOP_CRITIC_MODEL`), and otherwise its default. Every count and
limit here is held to the operator's ceilings (`critic_loop.state.ceilings`): a served
client cannot raise them, and a default above one is lowered to it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import Field, field_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)

MAX_ITERATIONS_LIMIT = 100
"""The largest iteration cap a run may ask for."""

MAX_CANDIDATES = 8
"""The most first drafts a run may ask for."""

AUTO_CANDIDATES = 3
"""How many first drafts `candidates="auto"` writes when code can choose among them."""

StructuredOutputMethod = Literal["json_schema", "function_calling", "json_mode"]
"""How the critic is made to answer in the verdict schema.

- json_schema: the provider enforces the JSON schema (OpenAI `response_format`, Gemini
  response schema). Many local OpenAI-compatible servers (llama.cpp's among them) reject it.
- function_calling: the verdict is returned as a forced tool call.
- json_mode: the model is asked for a JSON object and the schema is described in the prompt.
"""


PROVIDER_OF_FAMILY = {
    "gpt": "openai",
    "o1": "openai",
    "o3": "openai",
    "o4": "openai",
    "chatgpt": "openai",
    "gemini": "google_genai",
    "claude": "anthropic",
    "mistral": "mistralai",
    "grok": "xai",
    "deepseek": "deepseek",
}
"""The provider a bare model name most likely belongs to, by the name's first word."""


def suggested_spec(name: str) -> str:
    """Return the 'provider:model' string a bare model name most likely means.

    Names of known families get their provider (`gpt-4.1-mini` -> `openai:gpt-4.1-mini`,
    `gemini-2.5-pro` -> `google_genai:gemini-2.5-pro`); any other name is taken for a model
    on an OpenAI-compatible server (`openai:<name>`).
    """
    bare = name.strip().strip(":")
    family = bare.lower().replace("_", "-").split("-")[0]
    return f"{PROVIDER_OF_FAMILY.get(family, 'openai')}:{bare}"


def _check_model_spec(value: str) -> str:
    provider, separator, model = value.partition(":")
    if not separator or not provider.strip() or not model.strip():
        if not value.strip().strip(":"):
            raise ValueError("a model is a 'provider:model' string, e.g. 'openai:gpt-4.1-mini'")
        raise ValueError(
            f"{value!r} names no provider: did you mean {suggested_spec(value)}? "
            "(models are 'provider:model' strings)"
        )
    return value


class Context(BaseSettings):
    """How a refinement run behaves. Every field can also be set from the environment."""

    model_config = SettingsConfigDict(
        env_prefix="CRITIC_LOOP_", extra="forbid", validate_default=True, frozen=True
    )

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """Arguments first, then `CRITIC_LOOP_*` variables (no .env file, no secrets dir)."""
        return (init_settings, env_settings)

    worker_model: str = Field(
        default="openai:gpt-4.1-mini",
        description="The model that drafts and revises, as 'provider:model'.",
    )
    critic_model: str = Field(
        default="openai:gpt-4.1",
        description=(
            "The model that grades drafts against the rubric, as 'provider:model'. "
            "It can be stronger than the worker."
        ),
    )
    critic_models: list[str] = Field(
        default_factory=list,
        max_length=7,
        description=(
            "A judge panel: several critic models, each grading every LLM criterion; the "
            "majority decides. Empty: `critic_model` grades alone."
        ),
    )
    critic_samples: int = Field(
        default=1,
        ge=1,
        le=7,
        description=(
            "How many times each critic model grades (a panel of samples of one model; "
            "raise critic_temperature so the samples differ)."
        ),
    )
    critic_min_agreement: float = Field(
        default=0.5,
        ge=0.5,
        le=1.0,
        description=(
            "With a panel or several samples: a criterion passes when a strict majority of "
            "the judges that answered pass it, and at least this share of them (1.0: all "
            "must agree; 0.5: a strict majority is enough)."
        ),
    )
    skip_judge_on_failed_check: bool = Field(
        default=True,
        description=(
            "Skip the LLM judge in a round where a deterministic check already failed "
            "(its criteria are graded once the checks pass)."
        ),
    )
    base_url: str | None = Field(
        default=None,
        description=(
            "Base URL of an OpenAI-compatible server (llama.cpp, Ollama, vLLM, ...) for "
            "'openai:' models. Defaults to the OPENAI_BASE_URL environment variable."
        ),
    )
    temperature: float = Field(
        default=0.0,
        ge=0.0,
        le=2.0,
        description=(
            "Sampling temperature of the worker's first draft and its revisions (its best "
            "guess; fresh samples use sample_temperature)."
        ),
    )
    critic_temperature: float = Field(
        default=0.0, ge=0.0, le=2.0, description="Sampling temperature of the critic."
    )
    max_iterations: int = Field(
        default=10,
        ge=1,
        le=MAX_ITERATIONS_LIMIT,
        description="Circuit breaker: the most rounds a run may take (1 to 100).",
    )
    pass_threshold: float = Field(
        default=1.0,
        ge=0.0,
        le=1.0,
        description=(
            "The weighted score a draft needs to pass (every must criterion must pass too); "
            "below 1.0, some should criteria may fail."
        ),
    )
    stall_rounds: int = Field(
        default=3,
        ge=2,
        le=MAX_ITERATIONS_LIMIT,
        description=(
            "Revising has stalled when this many attempts in a row fail the same criteria "
            "(each candidate of round 1 is an attempt, each later round one), or this many "
            "rounds bring no score gain over the best before them (counted since the last "
            "fresh sample); a repeated draft stalls at once. See on_stall."
        ),
    )
    on_stall: Literal["stop", "resample", "auto"] = Field(
        default="auto",
        description=(
            "When revising stalls (the same criteria keep failing, the score stops rising, "
            "or a draft repeats an earlier one): resample draws a fresh draft from the task "
            "at sample_temperature and revising goes on from the best draft so far; stop "
            "ends the run as 'stalled'; auto stops when round 1 drew several candidates "
            "(fresh drafts were tried already) and resamples when it drew one. The round "
            "cap bounds all three."
        ),
    )
    candidates: Annotated[int, Field(ge=1, le=MAX_CANDIDATES)] | Literal["auto"] = Field(
        default="auto",
        description=(
            "How many first drafts to write side by side in round 1 (1 to 8); the loop "
            "continues from the best. Checks grade every candidate, the LLM judge only "
            "those the checks leave in contention. auto: "
            f"{AUTO_CANDIDATES} when code can choose among them at no model cost (the "
            "rubric has a test suite, or every criterion is a deterministic check); 1 when "
            "only the LLM judge can choose. Each candidate counts as an attempt toward "
            "stall_rounds."
        ),
    )
    sample_temperature: float = Field(
        default=1.0,
        ge=0.0,
        le=2.0,
        description=(
            "The worker's temperature for fresh samples and for candidates after the "
            "first (the first candidate uses `temperature`), so they differ."
        ),
    )
    review: Literal["never", "on_stall", "on_exhausted", "every_round"] = Field(
        default="never",
        description=(
            "When a person reviews the run (it pauses with LangGraph's interrupt; needs a "
            "checkpointer): never; when revising stalls; when the round cap is reached; "
            "or after every round. The person accepts, rejects with feedback, overrides a "
            "criterion, or stops the run."
        ),
    )
    on_exhausted: Literal["best", "raise"] = Field(
        default="best",
        description=(
            "What the Python helpers do when a run does not pass: return the best draft "
            "with its open items, or raise an exception that carries them."
        ),
    )
    structured_output_method: StructuredOutputMethod = Field(
        default="json_schema",
        description=(
            "How the critic is held to the verdict schema: json_schema, function_calling "
            "or json_mode (use function_calling or json_mode with llama.cpp's server)."
        ),
    )
    distill_structured_output_method: StructuredOutputMethod | None = Field(
        default=None,
        description="How the distiller is held to its schema; structured_output_method if unset.",
    )
    judge_granularity: Literal["rubric", "criterion"] = Field(
        default="rubric",
        description=(
            "rubric: one judge call grades every LLM criterion; criterion: one call per "
            "criterion (more calls, much smaller answers: what small local models need). "
            "Unset, it follows the critic model (critic-loop models)."
        ),
    )
    judge_mode: Literal["verdict", "extract", "extract_ask"] = Field(
        default="verdict",
        description=(
            "verdict: the judge decides (met / not met / not sure) and a pass must quote the "
            "artifact; extract: the judge is only asked to copy the few words of the "
            "artifact that show a criterion (one call per criterion), and code decides: a "
            "short quotation found in the artifact passes, anything else is not met "
            "(small models copy better than they judge); extract_ask: as extract, but "
            "where its words are not in the artifact the judge is asked yes or no, and the "
            "probability of yes passes at the judge profile's threshold (an OpenAI-"
            "compatible server's log-probabilities). Unset, it follows the critic model "
            "(critic-loop models)."
        ),
    )
    lint_checks: bool = Field(
        default=False,
        description=(
            "Grade a judged criterion the rubric linter can decide exactly (a word limit, "
            "a quoted phrase, digits, an exclamation mark, valid JSON, ...) with that "
            "check instead of the judge (see critic-loop lint-rubric). Unset, it follows "
            "the critic model (critic-loop models)."
        ),
    )
    worker_max_tokens: int | None = Field(
        default=None,
        ge=16,
        le=200_000,
        description=(
            "Cap on a draft's length in tokens. Unset, it follows the worker model "
            "(critic-loop models)."
        ),
    )
    critic_max_tokens: int = Field(
        default=2048,
        ge=64,
        le=200_000,
        description="Cap on a judge's or the distiller's answer in tokens.",
    )
    request_timeout: float = Field(
        default=600.0,
        gt=0,
        le=3600,
        description=(
            "Seconds a model request may take before it fails (a slow local model may "
            "need minutes; a server that never answers ends the run here, resumable)."
        ),
    )
    max_retries: int = Field(
        default=2,
        ge=0,
        le=10,
        description=(
            "Times the model client repeats a request that failed on rate limits (429, "
            "waiting as Retry-After says), server errors (5xx), timeouts or connection errors."
        ),
    )
    worker_attempts: int = Field(
        default=3,
        ge=1,
        le=10,
        description=(
            "Worker calls allowed per round when the model server's reply is malformed "
            "(cut off, not JSON)."
        ),
    )
    critic_attempts: int = Field(
        default=3,
        ge=1,
        le=10,
        description=(
            "Critic calls allowed per draft when its answer is unparsable or invalid (or "
            "the server's reply malformed); after the last one the run ends as "
            "'verifier_error'."
        ),
    )
    call_budget: int | None = Field(
        default=None,
        ge=1,
        le=1_000_000,
        description=(
            "The most model calls the run may make, every role counted (worker, judges, "
            "their retries, the distiller). Checked before each call; a run that reaches it "
            "ends as 'exhausted' with its best draft. Unset: the operator's ceiling."
        ),
    )
    token_budget: int | None = Field(
        default=None,
        ge=1,
        le=10_000_000_000,
        description=(
            "The most tokens (input and output, every call) the run may spend. Checked "
            "before each call; the calls in flight may finish past it. Unset: the "
            "operator's ceiling."
        ),
    )
    time_budget_seconds: float | None = Field(
        default=None,
        gt=0,
        le=7 * 24 * 3600,
        description=(
            "The most seconds the run may spend drafting and grading (time waiting for a "
            "person, or stopped between a failure and its resume, does not count). Checked "
            "before each call. Unset: the operator's ceiling."
        ),
    )
    worker_history_rounds: int = Field(
        default=1,
        ge=1,
        le=MAX_ITERATIONS_LIMIT,
        description=(
            "How many of the worker's latest drafts (with the feedback on them) it sees in "
            "full; older rounds are compacted out of its prompt."
        ),
    )
    memory: bool = Field(
        default=True,
        description=(
            "Use long-term memory: recall rules before the first draft and distill new "
            "ones when the run completes. False turns both off for this run."
        ),
    )
    recall: bool = Field(
        default=True, description="Give the worker the scope's rules before its first draft."
    )
    distill: bool = Field(default=True, description="Distill rules from the run when it completes.")
    memory_scope: str = Field(
        default="default",
        min_length=1,
        max_length=64,
        pattern=r"^[A-Za-z0-9_-]+$",
        description="The domain whose rules are recalled and written (a store namespace).",
    )
    recall_k: int = Field(default=5, ge=0, le=50, description="The most rules given to the worker.")
    recall_min_relevance: float = Field(
        default=0.25,
        ge=0.0,
        le=1.0,
        description=(
            "How relevant to the task a rule must be to be recalled: the share of content "
            "words the task has in common with what the rule was learned on (0 recalls "
            "any rule of the scope)."
        ),
    )
    max_rules: int = Field(
        default=50,
        ge=1,
        le=1000,
        description="The most rules a scope keeps; the weakest are retired first.",
    )
    distill_model: str | None = Field(
        default=None,
        description="The model that distills rules, as 'provider:model'; the critic's if unset.",
    )
    prompts_dir: str | None = Field(
        default=None,
        description=(
            "A directory of prompt templates that replace the built-in ones of the same "
            "file name (see nodes/prompts/)."
        ),
    )

    @field_validator("worker_model", "critic_model", "distill_model")
    @classmethod
    def _model_spec(cls, value: str | None) -> str | None:
        return None if value is None else _check_model_spec(value)

    @field_validator("critic_models")
    @classmethod
    def _model_specs(cls, values: list[str]) -> list[str]:
        return [_check_model_spec(value) for value in values]

    @property
    def distiller_model(self) -> str:
        return self.distill_model or self.critic_model

    @property
    def distill_output_method(self) -> StructuredOutputMethod:
        return self.distill_structured_output_method or self.structured_output_method

    @property
    def recalls(self) -> bool:
        return self.memory and self.recall and self.recall_k > 0

    @property
    def distills(self) -> bool:
        return self.memory and self.distill


def as_context(value: Context | Mapping[str, Any] | None) -> Context:
    """Build a `Context` from a `Context`, a mapping of its fields, or nothing (defaults).

    Fields left out take their `CRITIC_LOOP_<FIELD>` environment values, else defaults.

    Raises:
        TypeError: `value` is neither a `Context` nor a mapping.
        pydantic.ValidationError: a field's value is invalid.
    """
    if value is None:
        return Context()
    if isinstance(value, Context):
        return value
    if isinstance(value, Mapping):
        return Context(**dict(value))
    raise TypeError(f"expected a critic-loop Context or a mapping, got {type(value).__name__}")

"""Run configuration: `Context`, the graph's `context_schema` (Studio shows its fields)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

MAX_ITERATIONS_LIMIT = 100  # the largest iteration cap a run may ask for
MAX_CANDIDATES = 8  # the most first drafts a run may ask for
AUTO_CANDIDATES = 3  # the first drafts `candidates="auto"` writes when code can choose
MODEL_FIELDS = ("worker_model", "critic_model")  # settled from the machine when none is named
LOCAL_SETTINGS: dict[str, Any] = {  # what suits small models (see `benchmarks/judge/results`)
    "judge_granularity": "criterion",
    "judge_mode": "extract",
    "lint_checks": True,
    "worker_max_tokens": 1024,
}
WORKER_FIELDS = frozenset({"worker_max_tokens"})  # from the worker's profile; the rest: critic's
PROFILE_FIELDS = tuple(LOCAL_SETTINGS)  # the settings a model's profile may give a run

# the provider holds the schema (many local servers refuse), a forced tool call, or JSON mode
StructuredOutputMethod = Literal["json_schema", "function_calling", "json_mode"]

PROVIDER_OF_FAMILY = {  # the provider a bare model name's first word most likely means
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


def _check_model_spec(value: str) -> str:
    provider, separator, model = value.partition(":")
    if not separator or not provider.strip() or not model.strip():
        bare = value.strip().strip(":")
        if not bare:
            raise ValueError("a model is a 'provider:model' string, e.g. 'openai:gpt-4.1-mini'")
        likely = PROVIDER_OF_FAMILY.get(bare.lower().replace("_", "-").split("-")[0], "openai")
        raise ValueError(
            f"{value!r} names no provider: did you mean {likely}:{bare}? "
            "(models are 'provider:model' strings)"
        )
    return value


ModelSpec = Annotated[str, AfterValidator(_check_model_spec)]  # "provider:model"


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

    worker_model: ModelSpec = Field(
        default="openai:gpt-4.1-mini", description="The model that drafts, as 'provider:model'."
    )
    critic_model: ModelSpec = Field(
        default="openai:gpt-4.1",
        description="The model that grades drafts against the rubric, as 'provider:model'.",
    )
    critic_models: list[ModelSpec] = Field(
        default_factory=list,
        max_length=7,
        description="A judge panel of critic models whose majority decides (empty: critic_model).",
    )
    critic_samples: int = Field(
        default=1, ge=1, le=7, description="How many times each critic model grades."
    )
    critic_min_agreement: float = Field(
        default=0.5, ge=0.5, le=1.0, description="Share of judges a pass needs (0.5: majority)."
    )
    skip_judge_on_failed_check: bool = Field(
        default=True, description="Skip the LLM judge in a round where a check already failed."
    )
    base_url: str | None = Field(
        default=None, description="A server for 'openai:' models (default: OPENAI_BASE_URL)."
    )
    temperature: float = Field(
        default=0.0, ge=0.0, le=2.0, description="The worker's sampling temperature."
    )
    critic_temperature: float = Field(
        default=0.0, ge=0.0, le=2.0, description="Sampling temperature of the critic."
    )
    max_iterations: int = Field(
        default=10, ge=1, le=MAX_ITERATIONS_LIMIT, description="Circuit breaker: the most rounds."
    )
    pass_threshold: float = Field(
        default=1.0, ge=0.0, le=1.0, description="The weighted score a pass needs (and every must)."
    )
    stall_rounds: int = Field(
        default=2,
        ge=2,
        le=MAX_ITERATIONS_LIMIT,
        description="Rounds in a row failing the same criteria (or without gain) that stall.",
    )
    on_stall: Literal["stop", "resample", "auto"] = Field(
        default="auto",
        description="On a stall: resample, stop, or auto (fresh batches until sample_budget).",
    )
    candidates: Annotated[int, Field(ge=1, le=MAX_CANDIDATES)] | Literal["auto"] = Field(
        default="auto",
        description="First drafts round 1 writes side by side (auto: 3 when code can choose).",
    )
    sample_budget: int = Field(
        default=6,
        ge=1,
        le=MAX_ITERATIONS_LIMIT * MAX_CANDIDATES,
        description="With on_stall auto: the most fresh drafts a run draws, round 1's included.",
    )
    sample_temperature: float = Field(
        default=1.0, ge=0.0, le=2.0, description="Temperature of resamples and later candidates."
    )
    review: Literal["never", "on_stall", "on_exhausted", "every_round"] = Field(
        default="never",
        description="When a person reviews the run (a LangGraph interrupt; needs a checkpointer).",
    )
    on_exhausted: Literal["best", "raise"] = Field(
        default="best",
        description="When a run does not pass, the Python helpers return the best draft or raise.",
    )
    structured_output_method: StructuredOutputMethod = Field(
        default="json_schema",
        description="How the critic is held to the verdict schema (llama.cpp: not json_schema).",
    )
    distill_structured_output_method: StructuredOutputMethod | None = Field(
        default=None, description="The distiller's structured output method (unset: the critic's)."
    )
    judge_granularity: Literal["rubric", "criterion"] = Field(
        default="rubric",
        description="rubric: one judge call for every LLM criterion; criterion: one call each.",
    )
    judge_mode: Literal["verdict", "extract", "extract_ask"] = Field(
        default="verdict",
        description=(
            "verdict: the judge decides; extract: it quotes the artifact and code decides; "
            "extract_ask: as extract, and a yes/no probability at the judge profile's "
            "threshold where its words are not in the artifact."
        ),
    )
    lint_checks: bool = Field(
        default=False,
        description="Grade what the rubric linter can decide with its exact check.",
    )
    worker_max_tokens: int | None = Field(
        default=None,
        ge=16,
        le=200_000,
        description="Cap on a draft's length in tokens.",
    )
    critic_max_tokens: int = Field(
        default=2048, ge=64, le=200_000, description="Cap on a judge's or the distiller's answer."
    )
    request_timeout: float = Field(
        default=600.0, gt=0, le=3600, description="Seconds a model request may take."
    )
    max_retries: int = Field(
        default=2, ge=0, le=10, description="Repeats of a failed model request (429, 5xx, timeout)."
    )
    worker_attempts: int = Field(
        default=3, ge=1, le=10, description="Worker calls per round when the reply is malformed."
    )
    critic_attempts: int = Field(
        default=3, ge=1, le=10, description="Critic calls per draft when its answer is invalid."
    )
    call_budget: int | None = Field(
        default=None, ge=1, le=1_000_000, description="Model calls a run may make (unset: ceiling)."
    )
    token_budget: int | None = Field(
        default=None,
        ge=1,
        le=10_000_000_000,
        description="The most tokens the run may spend, every call counted (unset: the ceiling).",
    )
    time_budget_seconds: float | None = Field(
        default=None,
        gt=0,
        le=7 * 24 * 3600,
        description="The most seconds the run may spend drafting and grading (unset: the ceiling).",
    )
    worker_history_rounds: int = Field(
        default=1, ge=1, le=MAX_ITERATIONS_LIMIT, description="Drafts the worker sees in full."
    )
    memory: bool = Field(
        default=True,
        description="Use long-term memory (recall and distill); False turns both off for this run.",
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
        default=0.25, ge=0.0, le=1.0, description="Relevance a rule needs to be recalled (0 to 1)."
    )
    max_rules: int = Field(
        default=50, ge=1, le=1000, description="Most rules a scope keeps; the weakest retire first."
    )
    distill_model: ModelSpec | None = Field(
        default=None, description="The model that distills rules (unset: the critic's)."
    )
    prompts_dir: str | None = Field(
        default=None, description="A directory of templates replacing the built-in prompts."
    )

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
    """Build a `Context` from a `Context`, a mapping of its fields, or nothing (defaults)."""
    if isinstance(value, Context):
        return value
    if value is None or isinstance(value, Mapping):
        return Context(**dict(value or {}))
    raise TypeError(f"expected a critic-loop Context or a mapping, got {type(value).__name__}")

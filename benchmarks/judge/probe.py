"""Ask the model every question the judge probes need, once, and keep the answers.

A probe variant turns one labelled pair into a chat request: a yes/no question read by
the first token's log-probabilities (`critic_loop.nodes.verifiers.yes_no`), or the
extracting judge's request for the words that show the criterion (read as text).
`probe_figures` turns the answers into decisions and
figures; this module only asks, through langchain-openai as a run would.

Answers are cached in `--out` per request (the messages, the fence's random token
replaced, and the settings), so a run resumes where it stopped, a variant asked twice is
asked once, and the figures can be recomputed without the model.

    python -m benchmarks.judge.probe --base-url URL --model NAME --out probe.json \
        [--variants question,extract,...] [--sets held_out,fit]
"""

# ruff: noqa: T201 - a command line: its job is to print

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage

from benchmarks.judge.cases import CASES, Case, Pair
from benchmarks.judge.held_out import HELD_OUT
from critic_loop.nodes.verifiers.grounding import quote_problem
from critic_loop.nodes.verifiers.judge import NO_WORDS, extract_prompt, extracted_quote
from critic_loop.nodes.verifiers.yes_no import (
    NULL_ARTIFACT,
    TOP_LOGPROBS,
    first_token_logprobs,
    share_of_yes,
    yes_no_prompt,
)
from critic_loop.state.context import Context
from critic_loop.state.rubric import Criterion

SETS: dict[str, tuple[Case, ...]] = {"held_out": HELD_OUT, "fit": CASES}
"""The held-out set is only reported on; the fit set is where choices are made."""

FENCE = re.compile(r"\b[0-9a-f]{16}\b")
"""A fence's fresh random token (replaced in the cache key, so a request is asked once)."""


@dataclass(frozen=True)
class Item:
    """One labelled pair, and the set it comes from."""

    set: str
    case: Case
    pair: Pair

    @property
    def key(self) -> str:
        """Name the pair: set/case/pair."""
        return f"{self.set}/{self.case.id}/{self.pair.id}"


YES_NO: dict[str, Callable[[Item], list[BaseMessage]]] = {
    "question": lambda item: yes_no_prompt(item.pair.text, item.case.artifact),
    # the same question of a content-free artifact: the criterion's own pull towards yes
    "null": lambda item: yes_no_prompt(item.pair.text, NULL_ARTIFACT),
}
"""Yes/no variants: one request each, one token, read by its log-probabilities."""

VARIANTS = (*YES_NO, "extract")
"""`extract`: the extracting judge's request (as a run sends it, first attempt). The
variants phase 1 also asked (other wordings, worked examples, the quote asked about
again, hints) lost (`results/probe-local-0.5b-figures.txt`); their answers stay cached."""


def cache_key(messages: list[BaseMessage], settings: dict[str, Any]) -> str:
    """Return the request's key: its messages (fence token replaced) and settings."""
    shown = [[m.type, FENCE.sub("FENCE", m.text)] for m in messages]
    text = json.dumps([shown, settings], sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:24]


class Probe:
    """The model client and the answers asked so far (kept in `path`)."""

    def __init__(self, base_url: str, model: str, path: Path, timeout: float) -> None:
        """Load the answers kept in `path`, and make the clients (one token, a few words)."""
        from langchain_openai import ChatOpenAI

        self.path = path
        self.model = model
        data = json.loads(path.read_text()) if path.exists() else {}
        self.answers: dict[str, dict[str, Any]] = data.get("answers", {})
        self.rows: dict[str, dict[str, Any]] = data.get("rows", {})
        self.lock = threading.Lock()
        """Held while the answers change or are written out (threads share them)."""
        self.settings = {"model": model, "base_url": base_url, "top_logprobs": TOP_LOGPROBS}

        def chat(max_tokens: int) -> Any:
            return ChatOpenAI(
                model=model,
                base_url=base_url,
                api_key="local",  # type: ignore[arg-type]
                temperature=0,
                max_tokens=max_tokens,  # type: ignore[call-arg]
                logprobs=True,
                top_logprobs=TOP_LOGPROBS,
                timeout=timeout,
                max_retries=2,
            )

        self.one_token = chat(1)
        self.extractor = chat(64)

    def ask(self, messages: list[BaseMessage], max_tokens: int) -> tuple[str, dict[str, Any]]:
        """Return the cached answer to `messages` and its key, asking the model if need be."""
        key = cache_key(messages, {**self.settings, "max_tokens": max_tokens})
        if key in self.answers:
            return key, self.answers[key]
        model = self.one_token if max_tokens == 1 else self.extractor.bind(max_tokens=max_tokens)
        started = time.monotonic()
        reply: AIMessage = model.invoke(messages)
        usage = reply.usage_metadata or {}
        answer = {
            "text": reply.text,
            "top": first_token_logprobs(reply),
            "prompt_tokens": usage.get("input_tokens"),
            "completion_tokens": usage.get("output_tokens"),
            "seconds": round(time.monotonic() - started, 2),
        }
        with self.lock:
            self.answers[key] = answer
        return key, answer

    def save(self) -> None:
        """Rewrite the cache file whole (callers hold `lock`)."""
        if self.path.exists():  # another probe may share the file: keep what it added
            found = json.loads(self.path.read_text())
            self.answers = {**found.get("answers", {}), **self.answers}
            self.rows = {**found.get("rows", {}), **self.rows}
        partial = self.path.with_name(self.path.name + f".{os.getpid()}.partial")
        data = {"settings": self.settings, "answers": self.answers, "rows": self.rows}
        partial.write_text(json.dumps(data, indent=0))
        partial.replace(self.path)


def extract_messages(item: Item) -> list[BaseMessage]:
    """Build the extracting judge's first request for one pair (as a run sends it)."""
    criterion = Criterion(id=item.pair.id, text=item.pair.text)
    return extract_prompt(criterion, item.case.artifact, Context())


def run_variant(probe: Probe, variant: str, item: Item) -> dict[str, Any]:
    """Ask one variant about one pair; return its row (`asked`: the requests' keys)."""
    if variant in YES_NO:
        key, answer = probe.ask(YES_NO[variant](item), 1)
        return {"p_met": share_of_yes(answer["top"]), "asked": [key]}
    key, extract = probe.ask(extract_messages(item), 64)
    quote = extracted_quote(extract["text"])
    nothing = not quote or quote.lower().strip(" .!") in NO_WORDS
    problem = "nothing quoted" if nothing else quote_problem(quote, item.case.artifact)
    return {"quote": quote, "problem": problem, "asked": [key]}


def items(sets: list[str]) -> Iterator[Item]:
    """Every labelled pair of the chosen sets, in order."""
    for name in sets:
        for case in SETS[name]:
            for pair in case.pairs:
                yield Item(name, case, pair)


def main(argv: list[str] | None = None) -> int:
    """Ask every (variant, pair) not asked yet, saving after each."""
    parse = argparse.ArgumentParser(prog="python -m benchmarks.judge.probe")
    parse.add_argument("--base-url", required=True)
    parse.add_argument("--model", required=True, help="the name the server knows it by")
    parse.add_argument("--out", type=Path, required=True)
    parse.add_argument("--variants", default=",".join(VARIANTS))
    parse.add_argument("--sets", default="held_out,fit")
    parse.add_argument("--timeout", type=float, default=1800.0)
    parse.add_argument("--concurrency", type=int, default=1, help="requests in flight at once")
    args = parse.parse_args(argv)
    variants = args.variants.split(",")
    unknown = sorted(set(variants) - set(VARIANTS))
    if unknown:
        parse.error(f"unknown variant(s): {', '.join(unknown)}; known: {', '.join(VARIANTS)}")
    probe = Probe(args.base_url, args.model, args.out, args.timeout)

    def ask(variant: str, item: Item) -> None:
        row = run_variant(probe, variant, item)
        with probe.lock:
            probe.rows[f"{variant}:{item.key}"] = {"label": item.pair.label, **row}
            probe.save()
        print(f"{variant}:{item.key}: {row.get('p_met', row.get('quote'))}", file=sys.stderr)

    todo = [
        (variant, item)
        for variant in variants
        for item in items(args.sets.split(","))
        if f"{variant}:{item.key}" not in probe.rows
    ]
    with ThreadPoolExecutor(args.concurrency) as pool:
        for done in [pool.submit(ask, variant, item) for variant, item in todo]:
            done.result()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

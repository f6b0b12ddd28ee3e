"""Ask the model every question the judge probes need, once, and keep the answers.

Answers are cached in `--out` per request (messages with the fence token replaced, and
settings), so a run resumes, and `probe_figures` recomputes the figures without the model.

    python -m benchmarks.judge.probe --base-url URL --model NAME --out probe.json
"""

# ruff: noqa: T201 - a command line: its job is to print

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage

from benchmarks.harness.report import write_atomically
from benchmarks.judge.families import SETS, Item, items
from critic_loop.nodes.verifiers import yes_no
from critic_loop.nodes.verifiers.judge import extract_prompt
from critic_loop.state.context import Context
from critic_loop.state.rubric import Criterion

FENCE = re.compile(r"\b[0-9a-f]{16}\b")  # a fence's fresh random token


YES_NO: dict[str, Callable[[Item], list[BaseMessage]]] = {
    # the second look as a fold measures it: without the worked examples of the pair's family
    "look": lambda item: yes_no.yes_no_prompt(
        item.pair.text, item.case.artifact, leave_out=item.case.family
    ),
    # the second look as it ships: every worked example
    "look_all": lambda item: yes_no.yes_no_prompt(item.pair.text, item.case.artifact),
}
VARIANTS = ("extract", *YES_NO)  # extract: the extracting judge's request


def cache_key(messages: list[BaseMessage], settings: dict[str, Any]) -> str:
    """Return the request's key: its messages (fence token replaced) and settings."""
    shown = [[m.type, FENCE.sub("FENCE", m.text)] for m in messages]
    text = json.dumps([shown, settings], sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:24]


class Probe:
    """The model client and the answers asked so far (kept in `path`)."""

    def __init__(self, base_url: str, model: str, path: Path, timeout: float) -> None:
        from langchain_openai import ChatOpenAI

        self.path = path
        data = json.loads(path.read_text()) if path.exists() else {}
        self.answers: dict[str, dict[str, Any]] = data.get("answers", {})
        self.rows: dict[str, dict[str, Any]] = data.get("rows", {})
        self.lock = threading.Lock()  # held while the answers change or are written out
        self.settings = {"model": model, "top_logprobs": yes_no.TOP_LOGPROBS}

        def chat(max_tokens: int) -> Any:
            return ChatOpenAI(
                model=model,
                base_url=base_url,
                api_key="local",  # type: ignore[arg-type]
                temperature=0,
                max_tokens=max_tokens,  # type: ignore[call-arg]
                logprobs=True,
                top_logprobs=yes_no.TOP_LOGPROBS,
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
            "top": yes_no.first_token_logprobs(reply),
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
        data = {"settings": self.settings, "answers": self.answers, "rows": self.rows}
        write_atomically(self.path, data)


def run_variant(probe: Probe, variant: str, item: Item) -> dict[str, Any]:
    """Ask one variant about one pair; return its row (`asked`: the requests' keys)."""
    if variant in YES_NO:
        key, answer = probe.ask(YES_NO[variant](item), 1)
        return {"p_met": yes_no.share_of_yes(answer["top"]), "asked": [key]}
    criterion = Criterion(id=item.pair.id, text=item.pair.text)
    key, extract = probe.ask(extract_prompt(criterion, item.case.artifact, Context()), 64)
    return {"text": extract["text"], "asked": [key]}


def main(argv: list[str] | None = None) -> int:
    """Ask every (variant, pair) not asked yet, saving after each."""
    parse = argparse.ArgumentParser(prog="python -m benchmarks.judge.probe")
    parse.add_argument("--base-url", required=True)
    parse.add_argument("--model", required=True, help="the name the server knows it by")
    parse.add_argument("--out", type=Path, required=True)
    parse.add_argument("--variants", default=",".join(VARIANTS))
    parse.add_argument("--sets", default=",".join(SETS))
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

    sets = args.sets.split(",")
    todo = [(v, i) for v in variants for i in items(sets) if f"{v}:{i.key}" not in probe.rows]
    todo.sort(key=lambda job: (job[0], job[1].case.family))  # a fold's examples stay cached
    with ThreadPoolExecutor(args.concurrency) as pool:
        list(pool.map(lambda job: ask(*job), todo))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

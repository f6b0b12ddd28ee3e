"""A lexical index for the rule store: vectors from words, offline, with nothing to download.

Hashed words, word pairs and trigrams ("the hashing trick"): lexical, not semantic,
similarity. `CRITIC_LOOP_EMBEDDINGS=provider:model` chooses a provider's instead.
"""

from __future__ import annotations

import hashlib
import math
import os
from collections.abc import Iterator, Sequence
from typing import Any, cast

from langgraph.store.base import IndexConfig
from langgraph.store.sqlite.base import SqliteIndexConfig

from critic_loop.nodes.memory.relevance import content_words

DIMENSIONS = 128  # few collisions for short rules; a search compares every rule of a scope
INDEXED_FIELDS = ("about",)  # `Rule.about`: its text and its tasks' topics, one vector

EMBEDDINGS_VARIABLE = "CRITIC_LOOP_EMBEDDINGS"  # "lexical" (the default) or "provider:model"
LEXICAL = "lexical"
EMBEDDING_DIMS_VARIABLE = "CRITIC_LOOP_EMBEDDING_DIMS"  # a provider model's vector length


def _features(text: str) -> Iterator[tuple[str, float]]:
    words = content_words(text)
    for word in words:
        yield "w:" + word, 1.0
        padded = f"#{word}#"
        for start in range(len(padded) - 2):
            yield "c:" + padded[start : start + 3], 0.3
    for first, second in zip(words, words[1:], strict=False):
        yield f"b:{first} {second}", 0.5


def embed_text(text: str) -> list[float]:
    """Embed one text as a unit vector of `DIMENSIONS` floats."""
    vector = [0.0] * DIMENSIONS
    for feature, weight in _features(text):
        number = int.from_bytes(hashlib.blake2b(feature.encode(), digest_size=8).digest(), "big")
        vector[number % DIMENSIONS] += weight if number >> 63 else -weight
    norm = math.sqrt(sum(value * value for value in vector))
    return [value / norm for value in vector] if norm else vector


def embed_texts(texts: Sequence[str]) -> list[list[float]]:
    """Embed several texts (the signature LangGraph store indexes accept)."""
    return [embed_text(text) for text in texts]


def rule_index() -> IndexConfig:
    """Return the store index configuration for rules, from the environment."""
    choice = os.environ.get(EMBEDDINGS_VARIABLE, "").strip() or LEXICAL
    if choice in (LEXICAL, "hashing"):  # "hashing" was this index's earlier name
        return {"dims": DIMENSIONS, "embed": embed_texts, "fields": list(INDEXED_FIELDS)}
    dims = os.environ.get(EMBEDDING_DIMS_VARIABLE)
    if not dims or not dims.isdigit():
        raise ValueError(
            f"{EMBEDDINGS_VARIABLE}={choice!r} needs {EMBEDDING_DIMS_VARIABLE} set to the "
            "model's vector length (for example 1536 for openai:text-embedding-3-small)"
        )
    return {"dims": int(dims), "embed": choice, "fields": list(INDEXED_FIELDS)}


def sqlite_rule_index() -> SqliteIndexConfig:
    """Return `rule_index()` for `SqliteStore`, which embeds `text_fields`, not `fields`."""
    index: dict[str, Any] = {**rule_index(), "text_fields": list(INDEXED_FIELDS)}
    return cast(SqliteIndexConfig, index)

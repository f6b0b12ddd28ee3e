"""A lexical index for the rule store: vectors from words, offline, with nothing to download.

`embed_texts` hashes each text's words, word pairs and character trigrams into a fixed
number of dimensions (the "hashing trick") and normalizes the result. Texts that share
words and word forms land close together; texts that say the same thing in other words
do not. That is lexical similarity, not semantic: enough to recall the rules written for
tasks of the same kind, and it runs anywhere in microseconds. For semantic recall,
configure a provider's embeddings instead (for example `openai:text-embedding-3-small`
with 1536 dimensions): see `rule_index` and langgraph.json.
"""

from __future__ import annotations

import hashlib
import math
import os
from collections.abc import Iterator, Sequence
from typing import Any, cast

from langgraph.store.base import IndexConfig
from langgraph.store.sqlite.base import SqliteIndexConfig

from critic_loop.nodes.memory.content_words import content_words

DIMENSIONS = 128
"""Length of the vectors `embed_texts` returns.

Short rules hash into 128 dimensions with few collisions, and a store's similarity search
compares every rule of a scope: fewer dimensions keep recall from thousands of rules within
a small share of one model call.
"""

INDEXED_FIELDS = ("about",)
"""What the index embeds of a rule: `Rule.about`, its text and the topics of the tasks it was
learned on, in one string (one vector per rule).

A store's similarity search then ranks first the rules learned on tasks like the query
(the task), so recall's pool holds those.
"""

EMBEDDINGS_VARIABLE = "CRITIC_LOOP_EMBEDDINGS"
"""Environment variable choosing the index's embeddings: "lexical" or "provider:model"."""

LEXICAL = "lexical"
"""The `CRITIC_LOOP_EMBEDDINGS` value that selects `embed_texts` (the default)."""

EMBEDDING_DIMS_VARIABLE = "CRITIC_LOOP_EMBEDDING_DIMS"
"""Environment variable giving a provider model's vector length."""


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
    """Return the store index configuration for rules, from the environment.

    `CRITIC_LOOP_EMBEDDINGS` unset or "lexical" gives the offline `embed_texts`; a
    "provider:model" string (with `CRITIC_LOOP_EMBEDDING_DIMS`) gives that provider's
    embeddings through LangChain's `init_embeddings`.
    """
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
    """Return `rule_index()` for `SqliteStore`, which reads `text_fields` instead of `fields`.

    Without `text_fields` it would embed each rule's whole JSON value (usage counts,
    provenance and all) rather than its text and topics (`about`).
    """
    index: dict[str, Any] = {**rule_index(), "text_fields": list(INDEXED_FIELDS)}
    return cast(SqliteIndexConfig, index)

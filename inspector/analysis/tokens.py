"""Token counts: o200k_base offline through `bpe_openai`, or a labelled estimate when it is missing.

Counting is per text and cached, because the same items recur in every later request of a thread.
Attribution sums item counts per fragment kind and reconciles them with the reported usage; the
predicted cache hit is the token length of the prefix shared with the previous request of the thread.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

ENCODING = "o200k_base"
# OpenAI caches prompt prefixes of at least 1024 tokens, in steps of 128.
CACHE_MIN_TOKENS = 1024
CACHE_STEP_TOKENS = 128


@dataclass(frozen=True)
class Tokenizer:
    """Counts tokens; `estimated` says the numbers come from a character heuristic, not the encoding."""

    name: str
    estimated: bool
    count: Callable[[str], int]


CHUNK_CHARS = 256_000


def _pieces(text: str) -> list[str]:
    pieces = []
    start = 0
    while start < len(text):
        end = min(start + CHUNK_CHARS, len(text))
        if end < len(text):
            cut = max(text.rfind("\n", start, end), text.rfind(" ", start, end))
            end = cut if cut > start + CHUNK_CHARS // 2 else end
        pieces.append(text[start:end])
        start = end
    return pieces


def _estimate(text: str) -> int:
    # About four characters per token for English prose and code; only used without the encoding.
    return (len(text) + 3) // 4


@functools.lru_cache(maxsize=1)
def get_tokenizer() -> Tokenizer:
    """The o200k_base tokenizer if `bpe_openai` can load it offline, else the estimate."""
    try:
        import bpe_openai

        encoding = bpe_openai.get_encoding(ENCODING)
    except Exception:  # noqa: BLE001 - any failure to load means "estimate", never a crash
        return Tokenizer(name="estimate (chars/4)", estimated=True, count=_estimate)

    @functools.lru_cache(maxsize=65536)
    def count(text: str) -> int:
        # encode_ordinary: special-token text inside a prompt is plain text to the model's API.
        if len(text) <= CHUNK_CHARS:
            return len(encoding.encode_ordinary(text))
        # The encoder refuses inputs near 1 MB ("Input too long"): long strings are counted in pieces
        # cut at whitespace, where o200k's pre-tokenizer splits anyway (exact but for a rare token
        # that would have spanned a cut).
        return sum(len(encoding.encode_ordinary(piece)) for piece in _pieces(text))

    return Tokenizer(name=ENCODING, estimated=False, count=count)


def count_text(text: str) -> int:
    """Tokens in one text with the current tokenizer."""
    return get_tokenizer().count(text) if text else 0


def count_json(value: Any) -> int:
    """Tokens of a JSON value as compact text (tools, parameters): an approximation of how it is sent."""
    if value is None:
        return 0
    return count_text(json.dumps(value, ensure_ascii=False, separators=(",", ":")))


def predicted_cached(shared_prefix_tokens: int) -> int:
    """Tokens the backend can serve from its prompt cache, given the shared prefix length."""
    if shared_prefix_tokens < CACHE_MIN_TOKENS:
        return 0
    return shared_prefix_tokens - shared_prefix_tokens % CACHE_STEP_TOKENS

"""Which conversation a Responses request belongs to, when the client says so explicitly.

One definition for `ctxscope info` (counting threads) and the inspector (grouping turns): session or
thread id headers first, then `client_metadata.thread_id` / `session_id`, then `prompt_cache_key`.
Requests without any of these are grouped by the inspector on their content instead.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ctxscope.proxy.responses.vocabulary import CONVERSATION_KEYS, THREAD_HEADERS

__all__ = ["THREAD_HEADERS", "thread_hint"]

_METADATA_KEYS = CONVERSATION_KEYS


def thread_hint(headers: Mapping[str, str], body: Any) -> str | None:
    """The explicit conversation id of a request (headers matched case-insensitively), or None."""
    lowered = {key.lower(): value for key, value in headers.items()}
    for name in THREAD_HEADERS:
        if lowered.get(name):
            return lowered[name]
    if not isinstance(body, dict):
        return None
    meta = body.get("client_metadata")
    if isinstance(meta, dict):
        for name in _METADATA_KEYS:
            if isinstance(meta.get(name), str) and meta[name]:
                return str(meta[name])
    key = body.get("prompt_cache_key")
    return key if isinstance(key, str) and key else None

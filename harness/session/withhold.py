"""Keeping the harness's own credentials out of session files, and nothing else.

Session files keep the conversation exactly as the model saw it (a resume must send the same bytes),
so they are not run through the recordings' shape-based redactor. What they must not hold is what the
harness itself holds: the provider's API key, ChatGPT tokens and account id, configured header values.
Those are known values, so they are replaced exactly wherever they appear (a key pasted in a prompt, a
token printed by a tool) with a fixed marker.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

__all__ = ["MIN_CREDENTIAL_LENGTH", "WITHHELD", "withhold"]

WITHHELD = "<withheld:credential>"

MIN_CREDENTIAL_LENGTH = 8
"""Shorter values (`X-Team: blue`) are not secrets, and replacing them everywhere would garble text."""


def withhold(payload: Any, credentials: Iterable[str]) -> Any:
    """`payload` with every occurrence of each credential (in keys and string values) replaced."""
    values = sorted(
        {c for c in credentials if len(c) >= MIN_CREDENTIAL_LENGTH}, key=len, reverse=True
    )  # longest first: a token that contains another is replaced whole
    if not values:
        return payload
    return _walk(payload, values)


def _walk(node: Any, values: list[str]) -> Any:
    if isinstance(node, str):
        for value in values:
            if value in node:
                node = node.replace(value, WITHHELD)
        return node
    if isinstance(node, dict):
        return {_walk(k, values): _walk(v, values) for k, v in node.items()}
    if isinstance(node, list):
        return [_walk(v, values) for v in node]
    return node

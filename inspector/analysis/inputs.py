"""A request's input as classified items: the one reading of `input` every part of the analysis uses.

`input` is a list of items, or a plain string (one user message, as the Responses API reads it).
`input_list` makes either a list; `classify_input` labels each item (`items.ItemClassifier`) and marks
the base prompt wherever the request carries it (`instructions.mark_base_prompt`). The analysis of a
recording, the diff of two request bodies (`request_diff`, for `resend` and replay reports) and the
units `bisect` removes (`units`) all read a request this way, so a string input is one user message to
each of them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ctxscope.inspector.analysis.instructions import mark_base_prompt
from ctxscope.inspector.analysis.items import Item, ItemClassifier
from ctxscope.proxy.store.codec import ResolvedInput

__all__ = ["classify_input", "classify_request", "input_list"]


def input_list(body: Mapping[str, Any]) -> Sequence[Any]:
    """The request's `input` as a list of items: a plain string is one user message; anything else
    that is not a list, none."""
    value = body.get("input")
    if isinstance(value, str):
        return [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": value}]}]
    if isinstance(value, ResolvedInput):
        return value  # the reader's list, read-only, naming the input it extends (`InputList.base`)
    return list(value) if isinstance(value, list) else []


def classify_input(
    items: Sequence[Any], body: Mapping[str, Any], classifier: ItemClassifier | None = None
) -> Sequence[Item]:
    """`items` (a request's whole input: a chain rebuilt in, if it had one) classified, the base prompt
    marked. `classifier` keeps its cache across the requests of one recording."""
    return mark_base_prompt(
        (classifier or ItemClassifier()).classify(items), body if isinstance(body, dict) else dict(body)
    )


def classify_request(body: Mapping[str, Any], classifier: ItemClassifier | None = None) -> Sequence[Item]:
    """The body's own input (`input_list`) classified (`classify_input`)."""
    return classify_input(input_list(body), body, classifier)

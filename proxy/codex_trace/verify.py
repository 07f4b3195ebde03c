"""Hold a recording against Codex's own trace of the same session, request by request.

Two witnesses of one session: the proxy's wire capture and the trace Codex wrote itself. They agree on
a request when its bodies are JSON-equal. The recording is redacted and the trace is not: under
`ctxscope run` the trace's bodies are redacted in memory with the recording's own redactor (the same
secret gets the same placeholder) and must then be exactly equal. For a stored pair (`ctxscope
verify`) the secrets behind the recording's placeholders are gone, so there a string the recording
holds with `<redacted:KIND:N>` in it agrees with a trace string that the placeholder's text can stand
for: the same text around each placeholder, anything non-empty in its place. Nothing unredacted is
written or printed: a difference names the request and the JSON path, never the values.

Over WebSocket both witnesses hold the frame form (only new items plus `previous_response_id`, as
docs/codex-trace.md observed); the socket's prewarm frame (`generate: false`) is no inference in the
trace, so it is left out of the wire side and counted apart.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ..model import Exchange
from ..redact.placeholders import PLACEHOLDER_RE
from ..redact.redactor import Redactor
from ..responses.vocabulary import CodexHeader
from .compaction import as_traced

__all__ = ["Agreement", "first_difference", "verify_exchanges"]


@dataclass
class Agreement:
    """How far the two witnesses agree."""

    compared: int
    agreed: int
    wire_requests: int
    trace_requests: int
    prewarms: int = 0
    forms: dict[str, str] = field(default_factory=dict)
    """`wire` and `trace` → `full` (whole input), `frame` (new items + previous_response_id) or `mixed`."""
    difference: str | None = None
    """The first request and JSON path where they differ, or why they cannot be paired."""

    @property
    def ok(self) -> bool:
        return self.difference is None and self.agreed == self.compared == self.wire_requests

    def line(self) -> str:
        """One line for a person: the summary `ctxscope run` ends with."""
        if self.ok:
            extra = f" ({self.prewarms} prewarm frame(s) are not in the trace)" if self.prewarms else ""
            return f"Codex's own trace agrees on {self.agreed} of {self.compared} requests{extra}"
        return (
            f"Codex's own trace agrees on {self.agreed} of {max(self.wire_requests, self.trace_requests)} requests; "
            f"{self.difference}"
        )


def _placeholder_pattern(text: str) -> re.Pattern[str]:
    parts = PLACEHOLDER_RE.split(text)
    # split keeps the two groups of each placeholder: pieces are text, kind, number, text, ...
    literal = [re.escape(piece) for piece in parts[::3]]
    return re.compile(".+?".join(literal), re.DOTALL)


def _strings_agree(recorded: str, traced: str) -> bool:
    if recorded == traced:
        return True
    if "<redacted:" not in recorded:
        return False
    return _placeholder_pattern(recorded).fullmatch(traced) is not None


def first_difference(recorded: Any, traced: Any, path: str = "$", exact: bool = False) -> str | None:
    """The JSON path of the first place `traced` differs from `recorded`, or None; unless `exact`, a
    placeholder in a recorded string stands for any non-empty text (the trace was not redacted)."""
    if isinstance(recorded, dict) and isinstance(traced, dict):
        for key in recorded:
            if key not in traced:
                return f"{path}.{key} (only in the recording)"
        for key in traced:
            if key not in recorded:
                return f"{path}.{key} (only in the trace)"
            found = first_difference(recorded[key], traced[key], f"{path}.{key}", exact)
            if found:
                return found
        return None
    if isinstance(recorded, list) and isinstance(traced, list):
        for index, (a, b) in enumerate(zip(recorded, traced, strict=False)):
            found = first_difference(a, b, f"{path}[{index}]", exact)
            if found:
                return found
        if len(recorded) != len(traced):
            return f"{path} ({len(recorded)} items in the recording, {len(traced)} in the trace)"
        return None
    if isinstance(recorded, str) and isinstance(traced, str):
        return None if (recorded == traced if exact else _strings_agree(recorded, traced)) else path
    if type(recorded) is not type(traced) or recorded != traced:
        return path
    return None


def _form(bodies: list[dict[str, Any]]) -> str:
    chained = [bool(b.get("previous_response_id")) for b in bodies]
    return "frame" if all(chained) and chained else "mixed" if any(chained) else "full"


SEND_TIME_STAMPS = (CodexHeader.WS_REQUEST_START.value,)
"""`client_metadata` keys Codex stamps on a WebSocket frame as it sends it: no trace can hold them."""


def _full_forms(model: list[Exchange]) -> dict[int, dict[str, Any]]:
    """Each chained frame's body as a full request: the chain's input and output rebuilt, no frame keys."""
    contexts: dict[str, list[Any]] = {}
    full: dict[int, dict[str, Any]] = {}
    for exchange in model:
        body = exchange.request_body
        items = list(body.get("input") or [])
        previous = body.get("previous_response_id")
        if previous in contexts:
            items = [*contexts[previous], *items]
        response = exchange.response or {}
        if response.get("id"):
            contexts[str(response["id"])] = [*items, *(response.get("output") or [])]
        if previous is not None or body.get("type") == "response.create":
            rebuilt = {k: v for k, v in body.items() if k not in ("type", "previous_response_id")}
            rebuilt["input"] = items
            meta = rebuilt.get("client_metadata")
            if isinstance(meta, dict):
                rebuilt["client_metadata"] = {k: v for k, v in meta.items() if k not in SEND_TIME_STAMPS}
            full[id(body)] = rebuilt
    return full


def verify_exchanges(recording: list[Exchange], trace: list[Exchange], redactor: Redactor | None = None) -> Agreement:
    """Pair the recording's model requests with the trace's requests in order and compare each body.

    With `redactor` (the one the recording was written with: `ctxscope run`), each trace body is
    redacted with the recording's own placeholders first and the two must be exactly equal; without
    it (`ctxscope verify` on a stored pair, whose secrets are gone) a placeholder stands for the text it
    replaced. A trace request in full form (no `previous_response_id`) held against a chained WebSocket
    frame is compared with the frame's chain rebuilt (Codex 0.169.0 traces the first request after a
    prewarm so); a compaction request rebuilt from the trace is compared without what the trace does
    not hold (`compaction.NOT_IN_TRACE`).
    """
    model = [e for e in recording if e.is_model_request]
    full = _full_forms(model)
    wire = [e.request_body for e in model if e.request_body.get("generate") is not False]
    traced = [e for e in trace if isinstance(e.request_body, dict)]
    result_forms = {"wire": _form(wire), "trace": _form([e.request_body for e in traced])}
    result = Agreement(0, 0, len(wire), len(traced), prewarms=len(model) - len(wire))
    result.forms = result_forms
    for number, (ours, exchange) in enumerate(zip(wire, traced, strict=False), start=1):
        result.compared += 1
        theirs = exchange.request_body
        if redactor is not None:
            theirs = redactor.body(theirs)
        if theirs.get("type") != "response.create" and id(ours) in full:  # a frame held against a full form
            ours = full[id(ours)]
        if exchange.meta.get("codex_trace", {}).get("kind") == "compaction":
            ours, theirs = as_traced(ours), as_traced(theirs)
        found = first_difference(ours, theirs, exact=redactor is not None)
        if found:
            result.difference = f"request {number} differs at {found}"
            return result
        result.agreed += 1
    if len(wire) != len(traced):
        result.difference = f"the recording has {len(wire)} model request(s), the trace {len(traced)} request(s)"
    return result

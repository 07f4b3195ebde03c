"""Typed view of a Responses SSE stream, built on the proxy's pure fold.

`ResponseStream` takes raw bytes as they arrive, parses them with the proxy's `SseParser`, folds each
event into the response snapshot with `ctxscope.proxy.responses.accumulate` (the one fold shared with
the proxy and the inspector; never re-implemented here) and hands back typed events.
`.response` is the typed `ResponseObject`; `.completed` says whether `response.completed` arrived.
"""

from __future__ import annotations

import json
from typing import Any

from ctxscope.harness.wire.types import ResponseObject, parse_event, parse_items
from ctxscope.proxy.responses import SseParser, accumulate
from ctxscope.proxy.responses.vocabulary import TERMINAL_EVENTS, TerminalEvent

__all__ = ["ResponseStream"]


class ResponseStream:
    """Incremental SSE → typed events + folded response snapshot."""

    def __init__(self) -> None:
        self._parser = SseParser()
        self._snapshot: dict[str, Any] | None = None
        self.terminal: str | None = None
        """Type of the terminal event seen (`response.completed`, `response.failed`, ...), if any."""
        self.done_items: list[dict[str, Any]] = []
        """Items from `response.output_item.done`, in arrival order (some servers leave
        `response.completed.output` empty, so these are the fallback)."""

    def feed(self, chunk: bytes) -> list[Any]:
        """Consume bytes; return the typed events they completed."""
        return self._handle(self._parser.feed(chunk))

    def finish(self) -> list[Any]:
        """End of stream: dispatch any event left unterminated."""
        return self._handle(self._parser.flush())

    def _handle(self, pairs: list[tuple[str | None, str]]) -> list[Any]:
        events: list[Any] = []
        for _name, data in pairs:
            if data.strip() == "[DONE]":
                continue
            try:
                raw = json.loads(data)
            except json.JSONDecodeError:
                continue  # keep-alive noise or a torn line: the fold ignores it too
            if not isinstance(raw, dict):
                continue
            self._snapshot = accumulate(self._snapshot, raw)
            kind = str(raw.get("type"))
            if kind == "response.output_item.done" and isinstance(raw.get("item"), dict):
                self.done_items.append(raw["item"])
            if kind in TERMINAL_EVENTS and self.terminal is None:
                self.terminal = kind
            events.append(parse_event(raw))
        return events

    @property
    def completed(self) -> bool:
        return self.terminal == TerminalEvent.COMPLETED

    @property
    def snapshot(self) -> dict[str, Any]:
        return dict(self._snapshot or {})

    @property
    def response(self) -> ResponseObject:
        """The folded response; output falls back to the `output_item.done` items when empty."""
        snap = self.snapshot
        output = snap.get("output") or self.done_items
        return ResponseObject.model_validate({**snap, "output": output})

    def output_items(self) -> list[Any]:
        """Typed output items, in order."""
        snap = self.snapshot
        return parse_items(list(snap.get("output") or self.done_items))

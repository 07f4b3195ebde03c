"""One line per exchange while `ctxscope proxy` runs: method, path, status, model, tokens, duration.

exchange 3  POST  /v1/responses  200  gpt-5  in 1,234 (cached 1,024)  out 56  1.23 s
exchange 4  POST  ab.chatgpt.com/v1/rgstr  202  0.05 s  summary (no bodies)        # forward mode

Exchange numbers are the recording's exchange ids (0-based), as `ctxscope info` prints them; turns
(1-based) are the inspector's. In forward mode the host is part of the line.
"""

from __future__ import annotations

import sys
import threading
from typing import Any, TextIO
from urllib.parse import urlsplit

from ctxscope.proxy.model import Exchange
from ctxscope.proxy.responses.vocabulary import UNSUCCESSFUL_STATUSES

__all__ = ["LiveLog", "format_line"]


def _model(exchange: Exchange) -> str | None:
    for source in (exchange.request_body, exchange.response, exchange.response_body):
        if isinstance(source, dict) and isinstance(source.get("model"), str):
            return str(source["model"])
    return None


def _tokens(exchange: Exchange) -> str | None:
    usage: Any = (exchange.response or {}).get("usage")
    if not isinstance(usage, dict):
        return None
    parts = []
    if isinstance(usage.get("input_tokens"), int):
        text = f"in {usage['input_tokens']:,}"
        cached = (usage.get("input_tokens_details") or {}).get("cached_tokens")
        if isinstance(cached, int) and cached:
            text += f" (cached {cached:,})"
        parts.append(text)
    if isinstance(usage.get("output_tokens"), int):
        parts.append(f"out {usage['output_tokens']:,}")
    return "  ".join(parts) or None


def format_line(exchange: Exchange, show_host: bool = False) -> str:
    """The one-line summary of an exchange (`show_host`: the host before the path, for forward mode)."""
    parts = urlsplit(exchange.url)
    path = parts.path or "/"
    if show_host and parts.hostname:
        path = parts.hostname + path
    status = str(exchange.status) if exchange.status is not None else "---"
    fields = [f"exchange {exchange.id}", exchange.method, path, status]
    model = _model(exchange)
    if model:
        fields.append(model)
    tokens = _tokens(exchange)
    if tokens:
        fields.append(tokens)
    if exchange.duration_ms is not None:
        fields.append(f"{exchange.duration_ms / 1000:.2f} s")
    response_status = (exchange.response or {}).get("status")
    if response_status in UNSUCCESSFUL_STATUSES:
        error = (exchange.response or {}).get("error") or {}
        code = error.get("code") if isinstance(error, dict) else None
        fields.append(f"response {response_status}" + (f" ({code})" if code else ""))
    if exchange.meta.get("summary"):
        fields.append("summary (no bodies)")
    if exchange.error is not None:
        fields.append(f"error: {exchange.error.kind}: {exchange.error.message}")
    return "  ".join(fields)


class LiveLog:
    """Callable for `Recorder(on_exchange=...)`: prints one line per exchange (thread-safe)."""

    def __init__(self, stream: TextIO | None = None, show_host: bool = False) -> None:
        self.stream = stream
        self.show_host = show_host
        self.count = 0
        self._lock = threading.Lock()

    def __call__(self, exchange: Exchange) -> None:
        line = format_line(exchange, self.show_host)
        with self._lock:
            self.count += 1
            print(line, file=self.stream or sys.stdout, flush=True)

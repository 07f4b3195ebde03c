"""What `ctxscope info` says about a recording's exchanges: counts, models, sizes, errors (threads and
turns are the inspector's analysis: `inspector/info.py`)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from ..model import Exchange
from ..responses.vocabulary import FINAL_STATUSES, UNSUCCESSFUL_STATUSES
from .reader import Recording

__all__ = ["RecordingSummary", "summarise"]


def exchange_errors(exchange: Exchange) -> list[str]:
    """Human-readable problems of one exchange (transport error, HTTP error, failed stream)."""
    problems: list[str] = []
    if exchange.error is not None:
        problems.append(f"{exchange.error.kind}: {exchange.error.message}")
    if exchange.status is not None and exchange.status >= 400:
        problems.append(f"HTTP {exchange.status}")
    response = exchange.response or {}
    if response.get("status") in UNSUCCESSFUL_STATUSES or response.get("error"):
        error = response.get("error") or {}
        if isinstance(error, dict) and isinstance(error.get("error"), dict):
            error = error["error"]  # an `error` event folded by an older ctxscope
        code = error.get("code") if isinstance(error, dict) else None
        message = error.get("message") if isinstance(error, dict) else None
        detail = ": ".join(str(v) for v in (code, message) if v)
        problems.append(f"response {response.get('status', 'failed')}" + (f" ({detail})" if detail else ""))
    elif exchange.sse and exchange.error is None and response.get("status") not in FINAL_STATUSES:
        problems.append("response incomplete (the stream ended without a terminal event)")
    return problems


@dataclass
class RecordingSummary:
    path: str
    version: str
    tool: str
    exchanges: int
    by_endpoint: dict[str, int]
    models: dict[str, int]
    file_bytes: int
    request_bytes: int
    blobs: int
    input_tokens: int
    output_tokens: int
    duration_s: float
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    hosts: dict[str, int] = field(default_factory=dict)
    """Exchanges per host (a forward-mode capture holds the client's other traffic too)."""
    summarised: int = 0
    """Exchanges recorded without bodies (not selected by the capture filter)."""
    summarised_errors: int = 0
    """Errors among the summarised exchanges (not in `errors`: that traffic is not the model's)."""

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def summarise(recording: Recording) -> RecordingSummary:
    exchanges = recording.exchanges
    models: Counter[str] = Counter()
    errors: list[str] = []
    hosts: Counter[str] = Counter()
    summarised = summarised_errors = 0
    input_tokens = output_tokens = 0
    for exchange in exchanges:
        hosts[urlsplit(exchange.url).hostname or "?"] += 1
        if exchange.meta.get("summary"):
            summarised += 1
            summarised_errors += bool(exchange_errors(exchange))
            continue
        body = exchange.request_body
        if isinstance(body, dict) and isinstance(body.get("model"), str):
            models[body["model"]] += 1
        usage = (exchange.response or {}).get("usage") or {}
        input_tokens += _count(usage.get("input_tokens") if isinstance(usage, dict) else None)
        output_tokens += _count(usage.get("output_tokens") if isinstance(usage, dict) else None)
        errors.extend(
            f"exchange {exchange.id} {exchange.method} {exchange.url}: {p}" for p in exchange_errors(exchange)
        )
    starts = [e.started_at for e in exchanges]
    ends = [e.ended_at or e.started_at for e in exchanges]
    return RecordingSummary(
        path=str(recording.path),
        version=recording.header.version,
        tool=recording.header.tool,
        exchanges=len(exchanges),
        by_endpoint=dict(Counter(e.endpoint for e in exchanges)),
        models=dict(models),
        file_bytes=recording.path.stat().st_size,
        request_bytes=sum(e.request_size for e in exchanges),
        blobs=len(recording.blob_hashes),
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        duration_s=(max(ends) - min(starts)) if exchanges else 0.0,
        errors=errors,
        warnings=list(recording.warnings),
        hosts=dict(hosts),
        summarised=summarised,
        summarised_errors=summarised_errors,
    )


def _count(value: object) -> int:
    """A token count as recorded, or 0 for what is not a number (a hand-edited or foreign recording)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0
    return int(value)

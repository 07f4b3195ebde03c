"""Which exchanges a capture records in full, and which only as a one-line summary (no bodies).

A forward proxy sees all of a client's HTTPS traffic: with the Codex CLI, telemetry and plugin sync
outnumber the model requests and make up most of the file. By default forward mode therefore records
the model API endpoints (`…/responses`, `…/responses/compact`, `…/models`, WebSocket turns) in full and
everything else as a summary exchange: method, URL, status, headers, sizes and timings, no bodies.
Reverse mode talks to one upstream and records everything in full.

Patterns (`--only`, `--exclude`, repeatable), matched case-insensitively:
    chatgpt.com            a host, and its subdomains
    *.openai.com           a host glob
    /v1/responses*         a path glob (any host)
    chatgpt.com/backend-api/*   host and path glob
`--only P` records in full what matches P (instead of the default), `--exclude P` summarises what
matches P even if it would be recorded in full; `--only '*'` records everything in full.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fnmatch import fnmatchcase

from ctxscope.proxy.endpoints import classify_endpoint
from ctxscope.proxy.responses.vocabulary import RECORDED_IN_FULL

__all__ = ["CaptureFilter", "check_pattern"]

_MODEL_ENDPOINTS = RECORDED_IN_FULL


def check_pattern(pattern: str) -> str:
    """The pattern, lower-cased, if usable; ValueError (one line) otherwise."""
    cleaned = pattern.strip().lower()
    if not cleaned or any(c.isspace() for c in cleaned) or "://" in cleaned:
        raise ValueError(
            f"bad capture pattern {pattern!r}: give a host (chatgpt.com), a host glob (*.openai.com), "
            "a path glob (/v1/*) or host/path"
        )
    return cleaned


def _matches(pattern: str, host: str, path: str) -> bool:
    if pattern.startswith("/"):
        return fnmatchcase(path, pattern)
    if "/" in pattern:
        return fnmatchcase(host + path, pattern)
    return host == pattern or host.endswith("." + pattern) or fnmatchcase(host, pattern)


@dataclass(frozen=True)
class CaptureFilter:
    """Decides per request whether it is recorded in full (`full`) or as a summary exchange."""

    only: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    models_only: bool = False
    """Without `only`: record only the model API endpoints in full (the forward-mode default)."""

    @classmethod
    def build(cls, only: Iterable[str] = (), exclude: Iterable[str] = (), *, forward: bool) -> CaptureFilter:
        """The filter for `ctxscope proxy`: patterns checked (ValueError), forward mode's default applied."""
        return cls(
            only=tuple(check_pattern(p) for p in only),
            exclude=tuple(check_pattern(p) for p in exclude),
            models_only=forward,
        )

    def full(self, host: str, path: str, headers: Mapping[str, str] | None = None) -> bool:
        """Whether a request to `host` + `path` is recorded with its bodies."""
        host = host.lower().rstrip(".")
        path = (path or "/").split("?", 1)[0].lower()
        if any(_matches(p, host, path) for p in self.exclude):
            return False
        if self.only:
            return any(_matches(p, host, path) for p in self.only)
        if self.models_only:
            return classify_endpoint(path, headers) in _MODEL_ENDPOINTS
        return True

    def summary_line(self) -> str:
        """What is recorded in full, for people: `model API endpoints`, `chatgpt.com, /v1/*`, ..."""
        default = "model API endpoints" if self.models_only else "everything"
        full = ", ".join(self.only) if self.only else default
        return full + (f" (except {', '.join(self.exclude)})" if self.exclude else "")

    def describe(self) -> dict[str, object]:
        """For the recording header: what was recorded in full."""
        default = "model API endpoints" if self.models_only else "everything"
        return {"only": list(self.only) or default, "exclude": list(self.exclude)}

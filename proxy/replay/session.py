"""`ReplaySession`: which answer a cassette gives to each request, and the report of what happened.

The one place the replay rules live, with no HTTP server and no mitmproxy in it: the `Replayer` addon
(any client, through a proxy) and `CassetteTransport` (httpx clients in the same process) both ask a
session for answers, so they match, answer and report alike.

- Model requests (`POST …/responses`, `…/responses/compact`, WebSocket `response.create`) take the
  cassette's model entries in order. `strict`: the live request must equal the next entry after
  normalisation, on the matchers named by `match_on`; otherwise the answer is HTTP 400 naming the
  cassette, the entry and the differences, and the position does not advance. `sequential`: serve in
  order, noting mismatches.
- Other endpoints are answered by method and path (the first unused recorded answer, then the last).
- Past the end: HTTP 410 (or None with `passthrough_when_exhausted`, for record mode `new`).

Paths are compared through a `PathMap` learned from each pair of requests (see `paths.py`): each
request's own working directory, for both sides; the process-level cwds only when a request names none.
The answer served writes the recorded paths it names as their live counterparts (a tool call's path
must point into the live checkout).
"""

from __future__ import annotations

import json
import logging
import os
import threading
from typing import Any

from ctxscope.proxy.endpoints import classify_endpoint
from ctxscope.proxy.redact import PLACEHOLDER_RE, PlaceholderBinding, Redactor
from ctxscope.proxy.replay.cassette import Answer, Cassette, CassetteEntry
from ctxscope.proxy.replay.matching import RequestView, match_requests, request_path
from ctxscope.proxy.replay.normalise import Normaliser
from ctxscope.proxy.replay.options import ReplayOptions
from ctxscope.proxy.replay.paths import PathMap
from ctxscope.proxy.replay.report import Mismatch, ReplayReport
from ctxscope.proxy.responses.vocabulary import HTTP_MODEL_ENDPOINTS

__all__ = ["MISMATCH_STATUS", "ReplaySession", "error_answer", "is_model_path"]

log = logging.getLogger("ctxscope.replay")

MISMATCH_STATUS = 400
"""The HTTP status of a strict mismatch: one every client treats as final. `x-should-retry: false` is
honoured by the openai SDKs only; the AI SDK retries 408, 409, 429 and 5xx whatever the headers say,
and Codex retries 409 too, so 409 was answered three (AI SDK) to thirteen (Codex) times over. A 400 is
an invalid request to all of them: the test fails at once, with one mismatch reported."""


def is_model_path(method: str, path: str) -> bool:
    """True for `POST …/responses` and `POST …/responses/compact`."""
    return method.upper() == "POST" and classify_endpoint(path) in HTTP_MODEL_ENDPOINTS


class ReplaySession:
    """Serves one cassette from its start; thread-safe (answers are chosen under a lock)."""

    def __init__(self, cassette: Cassette | None = None, options: ReplayOptions | None = None) -> None:
        options = options or ReplayOptions()
        # the live side's cwd is the process's when the replay starts (a later chdir does not move it)
        self.options = options if options.live_cwd else ReplayOptions.of(options, live_cwd=os.getcwd())
        """How this replay runs; the `Replayer` replaces it when mitmdump options change."""
        self.lock = threading.Lock()
        self._redactor = Redactor()
        self.cassette: Cassette | None = None
        self.report = ReplayReport(cassette="<none>", match=self.options.match, model_entries=0)
        if cassette is not None:
            self.use(cassette)

    def use(self, cassette: Cassette) -> None:
        """Serve `cassette` from its start."""
        with self.lock:
            self.cassette = cassette
            self._cursor = 0
            self._other_used: set[int] = set()
            self.paths = PathMap()
            for old, new in self.options.map_paths:
                self.paths.add(old, new, "mapped")
            self._recorded_side = Normaliser(
                ignore=self.options.ignore, roots=self.paths.recorded, keep_placeholders=True
            )
            self._live_side = Normaliser(
                ignore=self.options.ignore, roots=self.paths.live, keep_placeholders=True
            )
            # each side numbers its own secrets: a recorded placeholder binds to one live secret
            self._binding = PlaceholderBinding()
            self.report = ReplayReport(
                cassette=cassette.name, match=self.options.match, model_entries=len(cassette.model_entries)
            )

    def answer(self, method: str, path: str, body: Any) -> Answer | None:
        """The answer to one HTTP request (path with query), or None to forward it (record mode `new`)."""
        cassette = self.cassette
        if cassette is None:
            return error_answer(503, "ctxscope_no_cassette", "no cassette loaded (set the cassette option)")
        # redacted exactly as a recording is, before anything compares, prints or reports it
        path = self.redact_path(path)
        with self.lock:
            if is_model_path(method, path):
                return self.model_answer(cassette, method, path, body)
            return self._other_answer(cassette, method, path)

    def redact_path(self, path: str) -> str:
        """A live request path (with query) redacted as a recording's URL is."""
        return request_path(self._redactor.url(path))

    # ---- choosing an answer (called with the lock held) ----

    def model_answer(self, cassette: Cassette, method: str, live_path: str, body: Any) -> Answer | None:
        """The next model entry's answer, an error answer, or None (forward it: record mode `new`)."""
        what = f"WebSocket frame on {live_path}" if method == "WS" else f"{method} {live_path}"
        if self._cursor >= len(cassette.model_entries):
            if self.options.passthrough_when_exhausted:
                self._note("passed_through", what)
                return None
            self._note("exhausted", what)
            self._emit(f"exhausted: {what}")
            total = len(cassette.model_entries)
            return error_answer(
                410,
                "ctxscope_cassette_exhausted",
                f"cassette {cassette.name} has no more model responses (all {total} served) for {what}; "
                "re-record it or extend the script",
            )
        entry = cassette.model_entries[self._cursor]
        differences, live_redacted = self._compare(entry, method, live_path, body)
        if differences:
            served = self.options.match == "sequential"
            mismatch = Mismatch(
                cassette.name,
                entry.label,
                entry.index,
                differences,
                served=served,
                exchange_id=entry.exchange_id,
                live_body=live_redacted,
            )
            with self.report._lock:
                self.report.mismatches.append(mismatch)
            log.warning("replay mismatch: %s", mismatch.line())
            self._emit(f"mismatch: {mismatch.line()}")
            if not served:
                return _mismatch_answer(cassette, entry, differences)
        self._cursor += 1
        with self.report._lock:
            self.report.served += 1
        self._emit(f"{what} → {entry.label}")
        return self._to_live(entry.render(live_path, body, self.options.pace))

    def _to_live(self, answer: Answer) -> Answer:
        """The answer with the recorded paths it names written as live ones (see `paths.PathMap`)."""
        if answer.sse is not None:
            answer.sse = self.paths.events_to_live(answer.sse)
        elif b"/" in answer.body:
            try:
                answer.body = self.paths.to_live(answer.body.decode()).encode()
            except UnicodeDecodeError:
                pass  # not text: nothing a client would read a path from
        return answer

    def _other_answer(self, cassette: Cassette, method: str, live_path: str) -> Answer | None:
        candidates = [
            e
            for e in cassette.other_entries
            if e.method.upper() == method.upper() and _same_path(e.path, live_path)
        ]
        what = f"{method} {live_path}"
        if not candidates:
            if self.options.passthrough_when_exhausted:
                self._note("passed_through", what)
                return None
            self._note("unmatched", what)
            self._emit(f"unmatched: {what}")
            message = f"cassette {cassette.name} has no answer for {what}"
            return error_answer(404, "ctxscope_no_recorded_answer", message)
        unused = [e for e in candidates if e.index not in self._other_used]
        entry = unused[0] if unused else candidates[-1]  # reuse the last one once all were served
        self._other_used.add(entry.index)
        with self.report._lock:
            self.report.other_served += 1
        self._emit(f"{what} → {entry.label}")
        return entry.render(live_path, None, self.options.pace)

    def _compare(self, entry: CassetteEntry, method: str, live_path: str, body: Any) -> tuple[list[str], Any]:
        """The differences, and the redacted live body (compared, and kept by a `Mismatch`)."""
        if entry.path is None:
            return [], None  # script entries answer whatever comes
        redacted = self._redactor.body(body)  # once: bodies run to hundreds of KB, on the proxy's loop
        recorded_body, live_body = entry.request_body, redacted
        if entry.endpoint == "websocket" or method == "WS":
            # A WebSocket `response.create` frame is a request body plus its `type`, without `stream`.
            recorded_body, live_body = _as_request(recorded_body), _as_request(live_body)
            method, live_path = entry.method, entry.path  # frames are compared on their bodies alone
        cassette = self.cassette
        recorded_cwd = cassette.cwd if cassette is not None else None
        self.paths.learn(recorded_body, live_body, recorded_cwd, self.options.live_cwd)
        recorded_norm = self._recorded_side.body(recorded_body)
        live_path, live_norm = self._binding.bind(
            [entry.path, recorded_norm], [live_path, self._live_side.body(live_body)]
        )
        recorded = RequestView(entry.method, entry.path, recorded_norm)
        live = RequestView(method, live_path, live_norm)
        return match_requests(live, recorded, self.options.match_on), redacted

    def count_in_flight(self, delta: int) -> None:
        with self.report._lock:
            self.report.in_flight += delta

    def _note(self, kind: str, what: str) -> None:
        with self.report._lock:
            getattr(self.report, kind).append(what)

    def _emit(self, line: str) -> None:
        if self.options.on_event is not None:
            try:
                self.options.on_event(line)
            except Exception:  # a broken printer must not break the replay
                log.exception("replay event callback failed")


def error_answer(status: int, kind: str, message: str, extra: dict[str, Any] | None = None) -> Answer:
    """A JSON error answer; `x-should-retry: false` so clients fail at once instead of retrying."""
    body = {"error": {"type": kind, "code": kind, "message": f"ctxscope replay: {message}", **(extra or {})}}
    return Answer(
        status=status,
        headers={"content-type": "application/json", "x-should-retry": "false"},
        body=json.dumps(body, ensure_ascii=False).encode(),
    )


def _mismatch_answer(cassette: Cassette, entry: CassetteEntry, differences: list[str]) -> Answer:
    what = "WebSocket frame" if entry.endpoint == "websocket" else "request"
    message = f"{what} does not match cassette {cassette.name} {entry.label}: " + "; ".join(differences[:5])
    extra = {"cassette": cassette.name, "exchange": entry.exchange_id, "index": entry.index}
    return error_answer(
        MISMATCH_STATUS, "ctxscope_replay_mismatch", message, {**extra, "differences": differences}
    )


def _as_request(body: Any) -> Any:
    if not isinstance(body, dict):
        return body
    return {k: v for k, v in body.items() if k != "stream" and not (k == "type" and v == "response.create")}


def _same_path(recorded: str | None, live: str) -> bool:
    if recorded is None:
        return False
    # each side numbers its own secrets; a credential in the query is not what selects an answer
    recorded, live = (PLACEHOLDER_RE.sub(r"<redacted:\1>", p) for p in (recorded, live))
    return recorded.split("?", 1)[0].rstrip("/") == live.split("?", 1)[0].rstrip("/") and (
        "?" not in recorded or recorded == live
    )

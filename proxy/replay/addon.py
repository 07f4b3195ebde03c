"""`Replayer`: the mitmproxy addon that answers every request from a cassette.

Runs in reverse mode toward a dummy upstream; the `request` hook answers every request itself (by
setting `flow.response`, or through its own loopback pacer for streams), so nothing reaches the
upstream. Model requests (`POST …/responses`, `…/responses/compact`) take the cassette's entries in
order; other endpoints are answered by method and path. Matching:

- `strict`: the live request must equal the next entry after normalisation (see `normalise.py`);
  otherwise the client gets HTTP 409 naming the cassette, the entry and the differing JSON paths, the
  position does not advance, and the mismatch is logged and kept in `report`.
- `sequential`: serve in order whatever comes, noting mismatches in `report`.

Past the end of the cassette a request gets HTTP 410. Every error answer carries `x-should-retry:
false` (honoured by openai-python) so clients fail fast instead of retrying. SSE answers are streamed
by the `Pacer` (a loopback server the flow is pointed at) without delays (`pace="fast"`) or with their
recorded timing (`pace="recorded"`); coming from a server, they stream through mitmproxy like any
upstream's, so a `Recorder` riding along records their events. Other answers are set directly as
`flow.response`. A WebSocket upgrade is served by the pacer's WebSocket server (`ws.py`) when the
cassette holds WebSocket turns, and refused with 426 otherwise (the Codex CLI then falls back to
HTTP/SSE at once).

Also usable with plain mitmdump: `mitmdump --mode reverse:http://127.0.0.1:9 --set
connection_strategy=lazy -s proxy/replay/addon.py --set cassette=FILE` (lazy, so mitmproxy does not
try to reach the dummy upstream before the addon answers).
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Callable, Iterable
from typing import Any

from mitmproxy import ctx, exceptions, http

from proxy.endpoints import classify_endpoint
from proxy.errors import CtxscopeError
from proxy.redact import PLACEHOLDER_RE, PlaceholderBinding, Redactor
from proxy.replay.cassette import Answer, Cassette, CassetteEntry, load_cassette
from proxy.replay.matching import RequestView, match_requests, request_path
from proxy.replay.normalise import Normaliser
from proxy.replay.options import MATCH_MODES, PACE_MODES, MatchMode, PaceMode, is_match_mode, is_pace_mode
from proxy.replay.pacer import TICKET_HEADER, Pacer
from proxy.replay.report import Mismatch, ReplayReport
from proxy.replay.ws import WsSession

__all__ = ["Replayer", "MATCH_MODES", "PACE_MODES", "REPLAYED", "is_model_path"]

log = logging.getLogger("ctxscope.replay")

REPLAYED = "ctxscope_replayed"
"""`flow.metadata` key set on flows the replayer answered, so an addon running alongside (record mode
`new`) can tell replayed exchanges from new ones."""
_ORIGIN = "ctxscope_replay_origin"
_IN_FLIGHT = "ctxscope_replay_in_flight"


def is_model_path(method: str, path: str) -> bool:
    """True for `POST …/responses` and `POST …/responses/compact`."""
    return method.upper() == "POST" and classify_endpoint(path) in ("responses", "responses/compact")


class Replayer:
    """Answers requests from `cassette`; see the module docstring for the rules."""

    def __init__(
        self,
        cassette: Cassette | None = None,
        *,
        match: MatchMode = "strict",
        pace: PaceMode = "fast",
        ignore: Iterable[str] = (),
        live_cwd: str | None = None,
        passthrough_when_exhausted: bool = False,
        on_event: Callable[[str], None] | None = None,
    ) -> None:
        if not is_match_mode(match):
            raise ValueError(f"match must be one of {MATCH_MODES}, not {match!r}")
        if not is_pace_mode(pace):
            raise ValueError(f"pace must be one of {PACE_MODES}, not {pace!r}")
        self.match: MatchMode = match
        self.pace: PaceMode = pace
        self.ignore = tuple(ignore)
        self.live_cwd = live_cwd if live_cwd is not None else os.getcwd()
        self.passthrough_when_exhausted = passthrough_when_exhausted
        self.on_event = on_event
        self._pacer = Pacer()
        self._lock = threading.Lock()
        self._redactor = Redactor()
        self.cassette: Cassette | None = None
        self.report = ReplayReport(cassette="<none>", match=match, model_entries=0)
        if cassette is not None:
            self.use(cassette)

    def use(self, cassette: Cassette) -> None:
        """Serve `cassette` from its start."""
        with self._lock:
            self.cassette = cassette
            self._cursor = 0
            self._other_used: set[int] = set()
            self._recorded_side = Normaliser(
                cwds={cassette.cwd} if cassette.cwd else set(), ignore=self.ignore, keep_placeholders=True
            )
            cwds = {self.live_cwd} if self.live_cwd and self.live_cwd != "/" else set()
            self._live_side = Normaliser(cwds=cwds, ignore=self.ignore, keep_placeholders=True)
            # each side numbers its own secrets: a recorded placeholder binds to one live secret
            self._binding = PlaceholderBinding()
            self.report = ReplayReport(
                cassette=cassette.name, match=self.match, model_entries=len(cassette.model_entries)
            )

    # ---- mitmdump options (in-process users pass arguments instead) ----

    def load(self, loader: Any) -> None:
        loader.add_option("cassette", str, "", "Recording or script cassette to replay")
        loader.add_option("replay_match", str, self.match, "strict | sequential")
        loader.add_option("replay_pace", str, self.pace, "recorded | fast")

    def configure(self, updated: set[str]) -> None:
        for option, allowed in (("replay_match", MATCH_MODES), ("replay_pace", PACE_MODES)):
            value = getattr(ctx.options, option)
            if option in updated and value not in allowed:
                message = f"{option} must be one of {', '.join(allowed)}, not {value!r}"
                raise exceptions.OptionsError(message)  # type: ignore[no-untyped-call]
        if "replay_match" in updated:
            self.match = ctx.options.replay_match
            self.report.match = self.match
        if "replay_pace" in updated:
            self.pace = ctx.options.replay_pace
        if "cassette" in updated and ctx.options.cassette:
            try:
                self.use(load_cassette(ctx.options.cassette))
            except CtxscopeError as err:
                raise exceptions.OptionsError(str(err)) from None  # type: ignore[no-untyped-call]

    # ---- hooks ----

    async def request(self, flow: http.HTTPFlow) -> None:
        if flow.response is not None:
            return
        # Counted until its `response`/`error` hook: a replay is only over once every answer is out.
        flow.metadata[_IN_FLIGHT] = True
        self._count_in_flight(+1)
        cassette = self.cassette
        if cassette is None:
            self._set(
                flow,
                _error_answer(503, "ctxscope_no_cassette", "no cassette loaded (set the cassette option)"),
            )
            return
        if flow.request.headers.get("upgrade", "").lower() == "websocket":
            if not any(e.endpoint == "websocket" for e in cassette.model_entries):
                # Codex falls back to HTTP/SSE at once on 426; the cassette holds HTTP exchanges.
                message = "this cassette was recorded over HTTP; use HTTP/SSE"
                self._set(flow, _error_answer(426, "ctxscope_websocket_not_recorded", message))
                return
            await self._route_to_pacer(
                flow, WsSession(self._ws_answer, self._ws_done, self.pace == "recorded")
            )
            return
        # redacted exactly as a recording is, before anything compares, prints or reports it
        method, live_path = flow.request.method, request_path(self._redactor.url(flow.request.path))
        body = _json_body(flow)
        with self._lock:
            if is_model_path(method, live_path):
                answer = self._model_answer(cassette, method, live_path, body)
            else:
                answer = self._other_answer(cassette, method, live_path)
        if answer is None:
            return  # record mode `new`: let it go upstream
        flow.metadata[REPLAYED] = True
        if answer.is_stream:
            await self._route_to_pacer(flow, (answer, self.pace == "recorded"))
        else:
            self._set(flow, answer)

    def responseheaders(self, flow: http.HTTPFlow) -> None:
        origin = flow.metadata.pop(_ORIGIN, None)
        if origin is None or flow.response is None:
            return
        if flow.response.status_code != 101:
            flow.response.stream = True  # let the pacer's chunks through as they come
        # The connection to the pacer is made: give the request back its own address, so that a
        # Recorder running alongside records what the client sent, not the detour.
        flow.request.scheme, flow.request.host, flow.request.port = origin
        flow.request.headers.pop(TICKET_HEADER, None)

    def response(self, flow: http.HTTPFlow) -> None:
        if flow.metadata.pop(_IN_FLIGHT, None):
            self._count_in_flight(-1)

    def error(self, flow: http.HTTPFlow) -> None:
        if flow.metadata.pop(_IN_FLIGHT, None):
            self._count_in_flight(-1)

    def _count_in_flight(self, delta: int) -> None:
        with self.report._lock:
            self.report.in_flight += delta

    async def done(self) -> None:
        await self._pacer.close()

    # ---- choosing an answer (called with the lock held) ----

    def _model_answer(self, cassette: Cassette, method: str, live_path: str, body: Any) -> Answer | None:
        """The next model entry's answer, an error answer, or None (forward it: record mode `new`)."""
        what = f"{method} {live_path}"
        if self._cursor >= len(cassette.model_entries):
            if self.passthrough_when_exhausted:
                self._note("passed_through", what)
                return None
            self._note("exhausted", what)
            self._emit(f"exhausted: {what}")
            total = len(cassette.model_entries)
            return _error_answer(
                410,
                "ctxscope_cassette_exhausted",
                f"cassette {cassette.name} has no more model responses (all {total} served) for {what}; "
                "re-record it or extend the script",
            )
        entry = cassette.model_entries[self._cursor]
        differences, live_redacted = self._compare(entry, method, live_path, body)
        if differences:
            served = self.match == "sequential"
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
        return entry.render(live_path, body, self.pace)

    def _other_answer(self, cassette: Cassette, method: str, live_path: str) -> Answer | None:
        candidates = [
            e
            for e in cassette.other_entries
            if e.method.upper() == method.upper() and _same_path(e.path, live_path)
        ]
        what = f"{method} {live_path}"
        if not candidates:
            if self.passthrough_when_exhausted:
                self._note("passed_through", what)
                return None
            self._note("unmatched", what)
            self._emit(f"unmatched: {what}")
            message = f"cassette {cassette.name} has no answer for {what}"
            return _error_answer(404, "ctxscope_no_recorded_answer", message)
        unused = [e for e in candidates if e.index not in self._other_used]
        entry = unused[0] if unused else candidates[-1]  # reuse the last one once all were served
        self._other_used.add(entry.index)
        with self.report._lock:
            self.report.other_served += 1
        self._emit(f"{what} → {entry.label}")
        return entry.render(live_path, None, self.pace)

    # ---- WebSocket turns (called by the pacer's WebSocket server, on the proxy's loop) ----

    def _ws_answer(self, path: str, frame: Any) -> Answer:
        """The answer to one client `response.create` frame (an error answer if there is none)."""
        cassette = self.cassette
        assert cassette is not None
        self._count_in_flight(+1)  # until `_ws_done`: the turn's frames are still to be sent
        with self._lock:
            answer = self._model_answer(cassette, "WS", request_path(self._redactor.url(path)), frame)
        return answer or _error_answer(502, "ctxscope_no_upstream", "nothing to forward WebSocket turns to")

    def _ws_done(self) -> None:
        self._count_in_flight(-1)

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
        self._recorded_side.learn(recorded_body)
        self._live_side.learn(live_body)
        recorded_norm = self._recorded_side.body(recorded_body)
        live_path, live_norm = self._binding.bind(
            [entry.path, recorded_norm], [live_path, self._live_side.body(live_body)]
        )
        recorded = RequestView(entry.method, entry.path, recorded_norm)
        live = RequestView(method, live_path, live_norm)
        return match_requests(live, recorded), redacted

    # ---- answering ----

    async def _route_to_pacer(self, flow: http.HTTPFlow, parked: Any) -> None:
        """Point the flow at the pacer, which streams `parked` (an SSE answer or a WebSocket session)."""
        port = await self._pacer.ensure_started()
        ticket = self._pacer.park(parked)
        flow.metadata[_ORIGIN] = (flow.request.scheme, flow.request.host, flow.request.port)
        flow.request.scheme = "http"
        flow.request.host = "127.0.0.1"
        flow.request.port = port
        flow.request.headers[TICKET_HEADER] = ticket

    @staticmethod
    def _set(flow: http.HTTPFlow, answer: Answer) -> None:
        flow.response = http.Response.make(answer.status, answer.body, answer.headers)

    def _note(self, kind: str, what: str) -> None:
        with self.report._lock:
            getattr(self.report, kind).append(what)

    def _emit(self, line: str) -> None:
        if self.on_event is not None:
            try:
                self.on_event(line)
            except Exception:  # a broken printer must not break the replay
                log.exception("replay event callback failed")


def _error_answer(status: int, kind: str, message: str, extra: dict[str, Any] | None = None) -> Answer:
    """A JSON error answer; `x-should-retry: false` so clients fail at once instead of retrying."""
    body = {"error": {"type": kind, "code": kind, "message": f"ctxscope replay: {message}", **(extra or {})}}
    return Answer(
        status=status,
        headers={"content-type": "application/json", "x-should-retry": "false"},
        body=json.dumps(body, ensure_ascii=False).encode(),
    )


def _mismatch_answer(cassette: Cassette, entry: CassetteEntry, differences: list[str]) -> Answer:
    message = f"request does not match cassette {cassette.name} {entry.label}: " + "; ".join(differences[:5])
    extra = {"cassette": cassette.name, "exchange": entry.exchange_id, "index": entry.index}
    return _error_answer(409, "ctxscope_replay_mismatch", message, {**extra, "differences": differences})


def _as_request(body: Any) -> Any:
    if not isinstance(body, dict):
        return body
    return {k: v for k, v in body.items() if k != "stream" and not (k == "type" and v == "response.create")}


def _json_body(flow: http.HTTPFlow) -> Any:
    raw = flow.request.get_content(strict=False) or b""
    if not raw:
        return None
    try:
        return json.loads(raw)
    except ValueError:
        return raw.decode("utf-8", "replace")


def _same_path(recorded: str | None, live: str) -> bool:
    if recorded is None:
        return False
    # each side numbers its own secrets; a credential in the query is not what selects an answer
    recorded, live = (PLACEHOLDER_RE.sub(r"<redacted:\1>", p) for p in (recorded, live))
    return recorded.split("?", 1)[0].rstrip("/") == live.split("?", 1)[0].rstrip("/") and (
        "?" not in recorded or recorded == live
    )


addons = [Replayer()]

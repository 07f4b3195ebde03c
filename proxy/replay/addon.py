"""`Replayer`: the mitmproxy addon that answers every request from a cassette.

Runs in reverse mode toward a dummy upstream; the `request` hook answers every request itself (by
setting `flow.response`, or through its own loopback pacer for streams), so nothing reaches the
upstream. Model requests (`POST …/responses`, `…/responses/compact`) take the cassette's entries in
order; other endpoints are answered by method and path. Matching:

- `strict`: the live request must equal the next entry after normalisation (see `normalise.py`);
  otherwise the client gets HTTP 400 naming the cassette, the entry and the differing JSON paths, the
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
from typing import Any

from mitmproxy import ctx, exceptions, http

from ctxscope.proxy.errors import CtxscopeError
from ctxscope.proxy.replay.cassette import Answer, Cassette, load_cassette
from ctxscope.proxy.replay.matching import check_match_on, request_path
from ctxscope.proxy.replay.options import MATCH_MODES, PACE_MODES, MatchMode, PaceMode, ReplayOptions
from ctxscope.proxy.replay.pacer import TICKET_HEADER, Pacer
from ctxscope.proxy.replay.report import ReplayReport
from ctxscope.proxy.replay.session import ReplaySession, error_answer, is_model_path
from ctxscope.proxy.replay.ws import WsSession

__all__ = ["Replayer", "MATCH_MODES", "PACE_MODES", "REPLAYED", "is_model_path"]

log = logging.getLogger("ctxscope.replay")

REPLAYED = "ctxscope_replayed"
"""`flow.metadata` key set on flows the replayer answered, so an addon running alongside (record mode
`new`) can tell replayed exchanges from new ones."""
_ORIGIN = "ctxscope_replay_origin"
_IN_FLIGHT = "ctxscope_replay_in_flight"


class Replayer:
    """Answers requests from `cassette`; see the module docstring for the rules."""

    def __init__(
        self, cassette: Cassette | None = None, options: ReplayOptions | None = None, **changes: Any
    ) -> None:
        """`changes` are `ReplayOptions` fields (`match="sequential"`, ...), applied to `options`."""
        self.session = ReplaySession(cassette, ReplayOptions.of(options, **changes))
        self._pacer = Pacer()

    @property
    def cassette(self) -> Cassette | None:
        return self.session.cassette

    @property
    def report(self) -> ReplayReport:
        return self.session.report

    @property
    def match(self) -> MatchMode:
        return self.session.options.match

    @property
    def pace(self) -> PaceMode:
        return self.session.options.pace

    def use(self, cassette: Cassette) -> None:
        """Serve `cassette` from its start."""
        self.session.use(cassette)

    # ---- mitmdump options (in-process users pass arguments instead) ----

    def load(self, loader: Any) -> None:
        loader.add_option("cassette", str, "", "Recording or script cassette to replay")
        loader.add_option("replay_match", str, self.match, "strict | sequential")
        loader.add_option("replay_pace", str, self.pace, "recorded | fast")
        match_on = ",".join(self.session.options.match_on)
        loader.add_option("replay_match_on", str, match_on, "matchers, e.g. method,path,body")

    def configure(self, updated: set[str]) -> None:
        for option, allowed in (("replay_match", MATCH_MODES), ("replay_pace", PACE_MODES)):
            value = getattr(ctx.options, option)
            if option in updated and value not in allowed:
                message = f"{option} must be one of {', '.join(allowed)}, not {value!r}"
                raise exceptions.OptionsError(message)  # type: ignore[no-untyped-call]
        if "replay_match" in updated:
            self.session.options = ReplayOptions.of(self.session.options, match=ctx.options.replay_match)
            self.report.match = self.match
        if "replay_pace" in updated:
            self.session.options = ReplayOptions.of(self.session.options, pace=ctx.options.replay_pace)
        if "replay_match_on" in updated:
            try:
                names = [n.strip() for n in ctx.options.replay_match_on.split(",") if n.strip()]
                self.session.options = ReplayOptions.of(self.session.options, match_on=check_match_on(names))
            except ValueError as err:
                message = f"replay_match_on: {err}"
                raise exceptions.OptionsError(message) from None  # type: ignore[no-untyped-call]
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
        self.session.count_in_flight(+1)
        cassette = self.cassette
        if cassette is None:
            message = "no cassette loaded (set the cassette option)"
            self._set(flow, error_answer(503, "ctxscope_no_cassette", message))
            return
        if flow.request.headers.get("upgrade", "").lower() == "websocket":
            if not any(e.endpoint == "websocket" for e in cassette.model_entries):
                # Codex falls back to HTTP/SSE at once on 426; the cassette holds HTTP exchanges.
                message = "this cassette was recorded over HTTP; use HTTP/SSE"
                self._set(flow, error_answer(426, "ctxscope_websocket_not_recorded", message))
                return
            await self._route_to_pacer(
                flow, WsSession(self._ws_answer, self._ws_done, self.pace == "recorded")
            )
            return
        method, live_path = flow.request.method, request_path(flow.request.path)
        answer = self.session.answer(method, live_path, _json_body(flow))
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
            self.session.count_in_flight(-1)

    def error(self, flow: http.HTTPFlow) -> None:
        if flow.metadata.pop(_IN_FLIGHT, None):
            self.session.count_in_flight(-1)

    async def done(self) -> None:
        await self._pacer.close()

    # ---- WebSocket turns (called by the pacer's WebSocket server, on the proxy's loop) ----

    def _ws_answer(self, path: str, frame: Any) -> Answer:
        """The answer to one client `response.create` frame (an error answer if there is none)."""
        cassette = self.cassette
        assert cassette is not None
        self.session.count_in_flight(+1)  # until `_ws_done`: the turn's frames are still to be sent
        with self.session.lock:
            answer = self.session.model_answer(cassette, "WS", self.session.redact_path(path), frame)
        return answer or error_answer(502, "ctxscope_no_upstream", "nothing to forward WebSocket turns to")

    def _ws_done(self) -> None:
        self.session.count_in_flight(-1)

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


def _json_body(flow: http.HTTPFlow) -> Any:
    raw = flow.request.get_content(strict=False) or b""
    if not raw:
        return None
    try:
        return json.loads(raw)
    except ValueError:
        return raw.decode("utf-8", "replace")


addons = [Replayer()]

"""Replay: serve a recording or a script cassette at the HTTP layer, in place of the model backend.

    from ctxscope.proxy.replay import serve_cassette
    with serve_cassette("recordings/script-example.json") as server:
        ...  # point any client at f"{server.url}/v1"

Layers, kept apart as in vcrpy: `cassette` (load a recording or a script as ordered answers),
`script` (the hand-written script format, rendered with `ctxscope.proxy.responses` builders),
`normalise` (volatile values), `paths` (which recorded directory stands for which live one),
`matching` (named matchers and a JSON-path diff; `register_matcher`), `options` (`ReplayOptions`, how
a replay runs, one value for all of the below), `session` (the replay rules:
which answer each request gets), `addon` (the `Replayer` mitmproxy addon), `transport`
(`CassetteTransport`, the same replay for httpx clients in-process), `report` (what a replay did),
`pacer` (streams answers with their recorded timing), `server` (start it in-process), `cli`
(`ctxscope replay`).

Names load on first use, so commands that do not replay (`ctxscope --help`, `info`) never import
mitmproxy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ctxscope.proxy.lazy import lazy_attributes

if TYPE_CHECKING:
    from ctxscope.proxy.replay.addon import Replayer
    from ctxscope.proxy.replay.cassette import Answer, Cassette, CassetteEntry, load_cassette
    from ctxscope.proxy.replay.matching import MATCHERS, Matcher, RequestView, json_diff, register_matcher
    from ctxscope.proxy.replay.normalise import Normaliser
    from ctxscope.proxy.replay.options import MATCH_MODES, PACE_MODES, MatchMode, PaceMode, ReplayOptions
    from ctxscope.proxy.replay.paths import PathMap
    from ctxscope.proxy.replay.report import Mismatch, ReplayReport
    from ctxscope.proxy.replay.script import Script, parse_script, read_script
    from ctxscope.proxy.replay.server import ReplayServer, serve_cassette, serve_script
    from ctxscope.proxy.replay.session import ReplaySession
    from ctxscope.proxy.replay.transport import CassetteTransport

__all__ = [
    "MATCHERS",
    "MATCH_MODES",
    "PACE_MODES",
    "Answer",
    "Cassette",
    "CassetteEntry",
    "CassetteTransport",
    "MatchMode",
    "Matcher",
    "Mismatch",
    "Normaliser",
    "PaceMode",
    "PathMap",
    "ReplayOptions",
    "ReplayReport",
    "ReplayServer",
    "ReplaySession",
    "Replayer",
    "RequestView",
    "Script",
    "json_diff",
    "load_cassette",
    "parse_script",
    "read_script",
    "register_matcher",
    "serve_cassette",
    "serve_script",
]

_WHERE = {
    "MATCH_MODES": ".options",
    "PACE_MODES": ".options",
    "MatchMode": ".options",
    "PaceMode": ".options",
    "ReplayOptions": ".options",
    "Replayer": ".addon",
    "Answer": ".cassette",
    "Cassette": ".cassette",
    "CassetteEntry": ".cassette",
    "load_cassette": ".cassette",
    "json_diff": ".matching",
    "MATCHERS": ".matching",
    "Matcher": ".matching",
    "RequestView": ".matching",
    "register_matcher": ".matching",
    "PathMap": ".paths",
    "ReplaySession": ".session",
    "CassetteTransport": ".transport",
    "Normaliser": ".normalise",
    "Mismatch": ".report",
    "ReplayReport": ".report",
    "Script": ".script",
    "parse_script": ".script",
    "read_script": ".script",
    "ReplayServer": ".server",
    "serve_cassette": ".server",
    "serve_script": ".server",
}


__getattr__, __dir__ = lazy_attributes(__name__, _WHERE, __all__)

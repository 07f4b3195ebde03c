"""Replay: serve a recording or a script cassette at the HTTP layer, in place of the model backend.

    from proxy.replay import serve_cassette
    with serve_cassette("recordings/script-example.json") as server:
        ...  # point any client at f"{server.url}/v1"

Layers, kept apart as in vcrpy: `cassette` (load a recording or a script as ordered answers),
`script` (the hand-written script format) and `script_events` (→ Codex-wire SSE events),
`normalise` (volatile values), `matching` (named matchers and a JSON-path diff), `addon` (the
`Replayer` mitmproxy addon), `report` (what a replay did), `pacer` (streams answers with their
recorded timing), `server` (start it in-process), `cli` (`ctxscope replay`).
"""

from __future__ import annotations

from proxy.replay.addon import MATCH_MODES, PACE_MODES, Replayer
from proxy.replay.cassette import Answer, Cassette, CassetteEntry, load_cassette
from proxy.replay.matching import json_diff
from proxy.replay.normalise import Normaliser
from proxy.replay.report import Mismatch, ReplayReport
from proxy.replay.script import Script, parse_script, read_script
from proxy.replay.server import ReplayServer, serve_cassette, serve_script

__all__ = [
    "MATCH_MODES",
    "PACE_MODES",
    "Answer",
    "Cassette",
    "CassetteEntry",
    "Mismatch",
    "Normaliser",
    "ReplayReport",
    "ReplayServer",
    "Replayer",
    "Script",
    "json_diff",
    "load_cassette",
    "parse_script",
    "read_script",
    "serve_cassette",
    "serve_script",
]

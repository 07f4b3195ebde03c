"""Replay: serve a recording or a script cassette at the HTTP layer, in place of the model backend.

    from proxy.replay import serve_cassette
    with serve_cassette("recordings/script-example.json") as server:
        ...  # point any client at f"{server.url}/v1"

Layers, kept apart as in vcrpy: `cassette` (load a recording or a script as ordered answers),
`script` (the hand-written script format, rendered with `proxy.responses` builders),
`normalise` (volatile values), `matching` (named matchers and a JSON-path diff), `addon` (the
`Replayer` mitmproxy addon), `report` (what a replay did), `pacer` (streams answers with their
recorded timing), `server` (start it in-process), `cli` (`ctxscope replay`).

Names load on first use, so commands that do not replay (`ctxscope --help`, `info`) never import
mitmproxy.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from proxy.replay.addon import Replayer
    from proxy.replay.cassette import Answer, Cassette, CassetteEntry, load_cassette
    from proxy.replay.matching import json_diff
    from proxy.replay.normalise import Normaliser
    from proxy.replay.options import MATCH_MODES, PACE_MODES, MatchMode, PaceMode
    from proxy.replay.report import Mismatch, ReplayReport
    from proxy.replay.script import Script, parse_script, read_script
    from proxy.replay.server import ReplayServer, serve_cassette, serve_script

__all__ = [
    "MATCH_MODES",
    "PACE_MODES",
    "Answer",
    "Cassette",
    "CassetteEntry",
    "MatchMode",
    "Mismatch",
    "Normaliser",
    "PaceMode",
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

_WHERE = {
    "MATCH_MODES": "options",
    "PACE_MODES": "options",
    "MatchMode": "options",
    "PaceMode": "options",
    "Replayer": "addon",
    "Answer": "cassette",
    "Cassette": "cassette",
    "CassetteEntry": "cassette",
    "load_cassette": "cassette",
    "json_diff": "matching",
    "Normaliser": "normalise",
    "Mismatch": "report",
    "ReplayReport": "report",
    "Script": "script",
    "parse_script": "script",
    "read_script": "script",
    "ReplayServer": "server",
    "serve_cassette": "server",
    "serve_script": "server",
}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'proxy.replay' has no attribute {name!r}")
    return getattr(importlib.import_module(f"proxy.replay.{module}"), name)


def __dir__() -> list[str]:
    return sorted(__all__)

"""The public surface of `ctxscope.proxy.replay` is deliberate: pin it."""

from __future__ import annotations

from pathlib import Path

import pytest

import ctxscope.proxy.replay
from ctxscope import proxy
from tests.lazy_exports_support import lazy_names, type_checking_imports


def test_exported_members() -> None:
    assert sorted(ctxscope.proxy.replay.__all__) == sorted(
        [
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
    )
    for name in ctxscope.proxy.replay.__all__:
        assert getattr(ctxscope.proxy.replay, name) is not None


def test_match_and_pace_modes_are_the_literal_types() -> None:
    from typing import get_args

    assert ctxscope.proxy.replay.MATCH_MODES == get_args(ctxscope.proxy.replay.MatchMode) == ("strict", "sequential")
    assert ctxscope.proxy.replay.PACE_MODES == get_args(ctxscope.proxy.replay.PaceMode) == ("recorded", "fast")


def test_lazy_names_are_typed_for_users() -> None:
    # `from proxy import Recorder` is the real class to mypy and editors, not `Any` from __getattr__.
    for package in ("ctxscope.proxy", "ctxscope.proxy.replay"):
        assert type_checking_imports(package) == lazy_names(package)
    assert set(lazy_names("ctxscope.proxy")) == set(proxy.__all__)


def test_one_frozen_replay_options_value_reaches_the_session_through_every_seam(tmp_path: Path) -> None:
    import dataclasses

    from ctxscope.proxy.replay import CassetteTransport, ReplayOptions, ReplaySession

    options = ReplayOptions(match="sequential", ignore=["a.b"], map_paths=[("/old", "/new")], live_cwd="/w")
    assert options.ignore == ("a.b",) and options.map_paths == (("/old", "/new"),)  # lists become tuples
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.match = "strict"  # type: ignore[misc]
    for bad, said in (
        ({"match": "loose"}, "match must be one of"),
        ({"match_on": ["nope"]}, "unknown matcher"),
    ):
        with pytest.raises(ValueError, match=said):
            ReplayOptions(**bad)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        ReplayOptions.of(options, colour="red")
    script = tmp_path / "s.json"
    script.write_text('{"format": "ctxscope-script", "responses": [{"text": "hi"}]}')
    assert CassetteTransport(script, options).session.options is options
    assert CassetteTransport(script, options, pace="recorded").session.options == dataclasses.replace(
        options, pace="recorded"
    )
    assert ReplaySession(None, options).options is options

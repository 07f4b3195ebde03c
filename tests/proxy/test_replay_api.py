"""The public surface of `proxy.replay` is deliberate: pin it."""

from __future__ import annotations

import proxy.replay


def test_exported_members() -> None:
    assert sorted(proxy.replay.__all__) == sorted(
        [
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
    )
    for name in proxy.replay.__all__:
        assert getattr(proxy.replay, name) is not None

"""Hooks the ctxscope pytest plugin calls, for layers above the proxy to implement.

The cassette plugin lives with the proxy (it starts the replayer), but explaining a mismatch as
context (which item changed, which lines) is the inspector's knowledge, and the proxy never imports
upward. So the plugin asks through a pytest hook; `ctxscope.pytest_plugin` (registered next to it by
the package's `pytest11` entry points) answers with the inspector's context diff.
"""

from __future__ import annotations

from typing import Any

import pytest


@pytest.hookspec(firstresult=True)
def pytest_ctxscope_explain_mismatch(recorded: Any, live: Any) -> list[str] | None:
    """Lines saying how a rejected live request body differs from the recorded one, as context.

    Both bodies are as the replay saw them before normalisation (the live one redacted like a
    recording). Return None to leave it to another implementation; the first list returned is shown
    under the mismatch in the test's failure.
    """


@pytest.hookspec
def pytest_ctxscope_failed_turn(
    config: pytest.Config, nodeid: str, cassette: str, turn: int, exchange: int | None, live: Any, reason: str
) -> list[str] | None:
    """Called once for a cassette test that failed on turn `turn` (1-based) of `cassette`: the replay
    refused the request body `live` (redacted, as it arrived; None when it was no JSON body) that it
    compared with the recorded exchange `exchange` (its id; None in a script cassette), for `reason`
    (the mismatch's line). The lines returned are added to the failure (`ctxscope.pytest_plugin` writes,
    with `--ctxscope-report DIR`, an HTML report whose last turn is the refused request, and names it).
    An implementation may take only some of the arguments."""

"""pytest plugin: a rejected cassette request explained as context, not only as JSON paths.

The cassette plugin (`ctxscope.proxy.pytest_plugin`) fails a test whose requests no longer match the recording,
naming the differing JSON paths. This plugin, registered by the same package, answers the plugin's
`pytest_ctxscope_explain_mismatch` hook with the inspector's context diff, so the failure of a prompt
change reads like:

    ctxscope replay went wrong:
      fix.jsonl exchange 0 (POST /v1/responses) rejected: input[0].content[0].text differs: …
        what changed in the model's context:
          input[0] developer[<instructions>] (the base prompt): changed
              If you could not finish, say what is left and why.
            + Always mention the file you changed.

It lives in the package that joins the proxy and the inspector, because the proxy never imports upward.
"""

from __future__ import annotations

from typing import Any

__all__ = ["pytest_addoption", "pytest_ctxscope_explain_mismatch", "pytest_ctxscope_failed_turn"]


def pytest_addoption(parser: Any) -> None:
    parser.getgroup("ctxscope", "ctxscope cassettes").addoption(
        "--ctxscope-report",
        dest="ctxscope_report",
        default=None,
        metavar="DIR",
        help="ctxscope cassettes: write the HTML report of a failing cassette's turns here (a CI artifact).",
    )


def pytest_ctxscope_failed_turn(config: Any, nodeid: str, cassette: str, turn: int) -> list[str] | None:
    """With `--ctxscope-report DIR`: the cassette's turns up to the failing one as one HTML report."""
    where = config.getoption("ctxscope_report", None)
    if not where:
        return None
    import re
    from pathlib import Path

    from ctxscope.inspector.html.cli import write_report
    from ctxscope.proxy.errors import CtxscopeError

    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", nodeid).strip("_")[:150] or "cassette"
    out = Path(where) / f"{name}.html"
    try:
        write_report(Path(cassette), out, turns=f"1-{turn}")
    except CtxscopeError as err:
        return [f"(the HTML report could not be written: {err})"]
    return [f"the recorded turns up to turn {turn}, as an HTML report: {out}"]


def pytest_ctxscope_explain_mismatch(recorded: Any, live: Any) -> list[str] | None:
    if not isinstance(recorded, dict) or not isinstance(live, dict):
        return None  # not JSON request bodies: the JSON-path differences already say it all
    # Imported when a test fails, not when pytest starts: the inspector is not needed before.
    from ctxscope.inspector.analysis.request_diff import diff_requests
    from ctxscope.inspector.reports.context_diff import context_diff_lines

    diff = diff_requests(recorded, live)
    return None if diff.same else context_diff_lines(diff)

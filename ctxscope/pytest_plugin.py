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

from pathlib import Path
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


def pytest_ctxscope_failed_turn(
    config: Any, nodeid: str, cassette: str, turn: int, exchange: int | None = None, live: Any = None,
    reason: str = "",
) -> list[str] | None:  # fmt: skip
    """With `--ctxscope-report DIR`: one HTML report of the cassette's turns up to the failing one, then
    the request the replay refused as the last turn, so the report's own turn diff is the refused
    request against the recorded one (what the test is about), and its answer is the rejection."""
    where = config.getoption("ctxscope_report", None)
    if not where:
        return None
    import re
    import tempfile

    from ctxscope.inspector.html.cli import write_report
    from ctxscope.proxy.errors import CtxscopeError

    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", nodeid).strip("_")[:150] or "cassette"
    out = Path(where) / f"{name}.html"
    source = Path(cassette)
    try:
        if live is None or exchange is None:  # a script cassette, or no JSON body: the recorded turns
            write_report(source, out, turns=f"1-{turn}")
            return [f"the recorded turns up to turn {turn}, as an HTML report: {out}"]
        with tempfile.TemporaryDirectory(prefix="ctxscope-report-") as tmp:
            refused = Path(tmp) / f"{source.stem}-refused.jsonl"  # its name is the report's title
            shown = _with_refused_request(source, exchange, live, reason, refused)
            write_report(refused, out)
    except CtxscopeError as err:
        return [f"(the HTML report could not be written: {err})"]
    return [
        f"the recorded turns up to turn {turn}, then the refused request as turn {shown} (its diff: against "
        f"recorded turn {turn}), as an HTML report: {out}"
    ]


def _with_refused_request(cassette: Path, exchange: int, live: Any, reason: str, out: Path) -> int:
    """Write to `out` the cassette's exchanges up to `exchange`, then that exchange again as the live
    request refused (its body `live`, answered with the replay's HTTP 400 and `reason`); the refused
    request's turn number in the written recording."""
    from ctxscope.inspector.analysis.analyse import analyse_recording
    from ctxscope.proxy.replay.session import MISMATCH_STATUS
    from ctxscope.proxy.store.reader import read_recording
    from ctxscope.proxy.store.writer import RecordingWriter

    recording = read_recording(cassette)
    kept = [e for e in recording.exchanges if e.id <= exchange]
    [recorded] = [e for e in kept if e.id == exchange]
    error = {"error": {"message": reason, "type": "invalid_request_error", "code": "ctxscope_replay_mismatch"}}
    refused = recorded.model_copy(
        update={
            "id": max(e.id for e in recording.exchanges) + 1,
            "request_body": live,
            "request_text": None,
            "status": MISMATCH_STATUS,
            "response_headers": {"content-type": "application/json"},
            "sse": [],
            "response_body": error,
            "response_text": None,
            "response_layout": None,
            "response_raw": None,
            "response": None,
            "error": None,
            "meta": {**recorded.meta, "refused_by_replay": True},
        }
    )
    meta = {**recording.header.meta, "refused_request_of": cassette.name}
    with RecordingWriter(out, meta=meta) as writer:
        for kept_exchange in kept:
            writer.write(kept_exchange)
        writer.write(refused)
    return len(analyse_recording(out).turns)


def pytest_ctxscope_explain_mismatch(recorded: Any, live: Any) -> list[str] | None:
    if not isinstance(recorded, dict) or not isinstance(live, dict):
        return None  # not JSON request bodies: the JSON-path differences already say it all
    # Imported when a test fails, not when pytest starts: the inspector is not needed before.
    from ctxscope.inspector.analysis.request_diff import diff_requests
    from ctxscope.inspector.reports.context_diff import context_diff_lines

    diff = diff_requests(recorded, live)
    return None if diff.same else context_diff_lines(diff)

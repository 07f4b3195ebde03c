"""pytest plugin: a rejected cassette request explained as context, not only as JSON paths.

The cassette plugin (`proxy.pytest_plugin`) fails a test whose requests no longer match the recording,
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

__all__ = ["pytest_ctxscope_explain_mismatch"]


def pytest_ctxscope_explain_mismatch(recorded: Any, live: Any) -> list[str] | None:
    if not isinstance(recorded, dict) or not isinstance(live, dict):
        return None  # not JSON request bodies: the JSON-path differences already say it all
    # Imported when a test fails, not when pytest starts: the inspector is not needed before.
    from inspector.analysis.request_diff import diff_requests
    from inspector.reports.context_diff import context_diff_lines

    diff = diff_requests(recorded, live)
    return None if diff.same else context_diff_lines(diff)

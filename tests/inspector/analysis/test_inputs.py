"""One reading of a request's input: a plain-string `input` is one user message to the analysis of a
recording, to the diff of two bodies (`resend`, replay reports) and to the units `bisect` removes."""

from __future__ import annotations

from pathlib import Path

from ctxscope.inspector.analysis import analyse_exchanges
from ctxscope.inspector.analysis.inputs import classify_request, input_list
from ctxscope.inspector.analysis.request_diff import diff_requests
from ctxscope.inspector.analysis.units import request_units
from ctxscope.proxy.model import Exchange

BODY = {"model": "m", "instructions": "Be brief.", "input": "what is 2+2?"}


def test_a_string_input_is_one_user_message_everywhere(tmp_path: Path) -> None:
    assert input_list(BODY) == [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "what is 2+2?"}]}
    ]
    classified = [(i.kind, i.text) for i in classify_request(BODY)]
    assert classified == [("user_message", "what is 2+2?")]
    exchange = Exchange(
        id=0, started_at=1.0, method="POST", url="http://127.0.0.1/v1/responses", endpoint="responses",
        status=200, request_body=BODY, response={"id": "r", "status": "completed", "output": []},
    )  # fmt: skip
    analysed = analyse_exchanges([exchange]).turns[0].turn
    assert [(i.kind, i.text) for i in analysed.items] == classified
    units = request_units(BODY).units
    assert [u.label for u in units if u.section == "message"] == ["user message"]
    as_list = {**BODY, "input": input_list(BODY)}
    assert diff_requests(BODY, as_list, normalise=False).same, "the string and its one message are one input"

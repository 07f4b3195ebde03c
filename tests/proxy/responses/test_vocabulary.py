"""The wire vocabulary is spelled once: every package reads terminal events, header roles, metadata keys,
request kinds, endpoint sets and the compaction trigger from `ctxscope.proxy.responses.vocabulary`, and
each layer that acts on them agrees with it. The tree is scanned for every one of those names."""

from __future__ import annotations

import re
from collections.abc import Collection
from pathlib import Path
from typing import get_args

import pytest

from ctxscope.harness.wire.stream import ResponseStream
from ctxscope.proxy.flow_fields import TERMINAL_EVENTS as FLOW_TERMINAL_EVENTS
from ctxscope.proxy.model import EndpointKind
from ctxscope.proxy.responses import encode_sse, fold_events
from ctxscope.proxy.responses.vocabulary import (
    COMPACTION_REQUEST_KINDS,
    COMPACTION_TRIGGER,
    CONVERSATION_KEYS,
    DONE_EVENT,
    FINAL_STATUSES,
    HTTP_MODEL_ENDPOINTS,
    MODEL_ENDPOINTS,
    PER_REQUEST_HEADERS,
    RECORDED_IN_FULL,
    RESPONSES_ENDPOINTS,
    TERMINAL_EVENT_STATUS,
    TERMINAL_EVENTS,
    THREAD_HEADERS,
    CodexHeader,
    Endpoint,
    MetadataKey,
    RequestKind,
    SideKind,
    turn_metadata,
)
from ctxscope.proxy.store.codec import VOLATILE_HEADERS

ROOT = Path(__file__).resolve().parents[3]
PACKAGES = ("proxy", "harness", "inspector", "ctxscope")
VOCABULARY = ROOT / "proxy" / "responses" / "vocabulary.py"
# Files that may spell a terminal event as data: the typed wire models (a Literal per event type)
# and the stream builders (they emit the events).
WIRE_DATA = {ROOT / "harness" / "wire" / "types.py", ROOT / "proxy" / "responses" / "builders.py"}
# Files where `"session_id"` is not the wire's conversation key but a name of ctxscope's own.
NOT_WIRE_SESSION_ID = {
    ROOT / "harness" / "session" / "store.py": "the harness's session file names its session",
    ROOT / "harness" / "runtime.py": "the recording header's note of the harness session",
    ROOT / "harness" / "agent.py": "the agent's /status",
    ROOT / "harness" / "tools" / "write_stdin.py": "the write_stdin tool's parameter (an exec session)",
    ROOT / "inspector" / "otel" / "spans.py": "reads the recording header's note (runtime.py)",
}
# A set or tuple of two or more endpoint kinds: the model-endpoint sets belong to the vocabulary.
_ENDPOINT = '"(?:responses|responses/compact|websocket|models)"'
ENDPOINT_SET = re.compile(rf"[(\[{{]\s*{_ENDPOINT}\s*,\s*{_ENDPOINT}")


def _sources() -> list[Path]:
    return [p for package in PACKAGES for p in (ROOT / package).rglob("*.py") if p != VOCABULARY]


@pytest.mark.parametrize("event", sorted(TERMINAL_EVENT_STATUS))
def test_each_terminal_event_ends_the_fold_and_the_harness_stream_with_its_status(event: str) -> None:
    events = [
        {"type": "response.created", "response": {"id": "resp_1", "status": "in_progress"}},
        {"type": event, "response": {"id": "resp_1"}},
    ]
    snapshot = fold_events(events)
    assert snapshot["status"] == TERMINAL_EVENT_STATUS[event]
    assert snapshot["status"] in FINAL_STATUSES
    stream = ResponseStream()
    stream.feed(b"".join(encode_sse(e) for e in events))
    assert stream.terminal == event


def test_the_proxy_and_the_store_read_their_sets_from_the_vocabulary() -> None:
    assert FLOW_TERMINAL_EVENTS is TERMINAL_EVENTS
    assert PER_REQUEST_HEADERS <= VOLATILE_HEADERS
    assert set(COMPACTION_REQUEST_KINDS) == {RequestKind.COMPACTION, RequestKind.COMPACT}
    assert CodexHeader.SESSION_ID in THREAD_HEADERS
    assert not set(THREAD_HEADERS) & PER_REQUEST_HEADERS  # a conversation id is not noise per request
    assert SideKind.TITLE.label == "title"
    assert set(get_args(EndpointKind)) == {e.value for e in Endpoint}  # the typed field and the names
    assert RESPONSES_ENDPOINTS < MODEL_ENDPOINTS < RECORDED_IN_FULL and HTTP_MODEL_ENDPOINTS < MODEL_ENDPOINTS
    assert CONVERSATION_KEYS == (MetadataKey.THREAD_ID, MetadataKey.SESSION_ID)
    assert COMPACTION_TRIGGER == "compaction_trigger" and DONE_EVENT not in TERMINAL_EVENTS


def test_turn_metadata_is_read_from_the_header_or_client_metadata() -> None:
    raw = '{"request_kind": "compaction", "thread_source": "thread_title"}'
    assert turn_metadata({"X-Codex-Turn-Metadata": raw}, {})["request_kind"] == "compaction"
    assert (
        turn_metadata({}, {"client_metadata": {CodexHeader.TURN_METADATA: raw}})["thread_source"]
        == "thread_title"
    )
    assert turn_metadata({CodexHeader.TURN_METADATA: "not json"}, {}) == {}


def _spelled(pattern: re.Pattern[str], skip: Collection[Path] = ()) -> list[str]:
    """Files (but the vocabulary and `skip`) with a code line matching `pattern` (comments and lines
    quoting names in backticks, i.e. prose, do not count)."""
    return [
        str(path.relative_to(ROOT))
        for path in _sources()
        if path not in skip
        and any(
            pattern.search(line) and not line.lstrip().startswith("#") and "`" not in line
            for line in path.read_text().splitlines()
        )
    ]


@pytest.mark.parametrize(
    "literal",
    [
        *(f'"{event}"' for event in TERMINAL_EVENT_STATUS),
        *(f'"{h.value}"' for h in CodexHeader if "-" in h.value),
        f'"{DONE_EVENT}"',
        f'"{COMPACTION_TRIGGER}"',
        f'"{MetadataKey.THREAD_ID.value}"',
    ],
)
def test_wire_names_are_spelled_only_in_the_vocabulary(literal: str) -> None:
    skip = WIRE_DATA if literal.startswith('"response.') else ()
    spelled = _spelled(re.compile(re.escape(literal)), skip)
    assert spelled == [], f"{literal} spelled outside proxy/responses/vocabulary.py"


def test_the_session_id_key_is_spelled_only_in_the_vocabulary_where_it_is_the_wires() -> None:
    spelled = _spelled(re.compile(f'"{MetadataKey.SESSION_ID.value}"'), NOT_WIRE_SESSION_ID)
    assert spelled == [], "session_id spelled outside the vocabulary (add it there, or say why it is not the wire's)"


def test_model_endpoint_sets_are_spelled_only_in_the_vocabulary() -> None:
    assert ENDPOINT_SET.search('x in ("responses", "websocket")')  # the scan sees what it looks for
    # `proxy/model.py` types the field (`EndpointKind`, a Literal held equal to `Endpoint` above)
    assert _spelled(ENDPOINT_SET, {ROOT / "proxy" / "model.py"}) == [], "an endpoint set outside the vocabulary"

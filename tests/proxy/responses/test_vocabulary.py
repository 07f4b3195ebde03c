"""The wire vocabulary is spelled once: every package reads terminal events, header roles and request
kinds from `ctxscope.proxy.responses.vocabulary`, and each layer that acts on them agrees with it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ctxscope.harness.wire.stream import ResponseStream
from ctxscope.proxy.flow_fields import TERMINAL_EVENTS as FLOW_TERMINAL_EVENTS
from ctxscope.proxy.responses import encode_sse, fold_events
from ctxscope.proxy.responses.vocabulary import (
    COMPACTION_REQUEST_KINDS,
    FINAL_STATUSES,
    PER_REQUEST_HEADERS,
    TERMINAL_EVENT_STATUS,
    TERMINAL_EVENTS,
    THREAD_HEADERS,
    CodexHeader,
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


def test_turn_metadata_is_read_from_the_header_or_client_metadata() -> None:
    raw = '{"request_kind": "compaction", "thread_source": "thread_title"}'
    assert turn_metadata({"X-Codex-Turn-Metadata": raw}, {})["request_kind"] == "compaction"
    assert (
        turn_metadata({}, {"client_metadata": {CodexHeader.TURN_METADATA: raw}})["thread_source"]
        == "thread_title"
    )
    assert turn_metadata({CodexHeader.TURN_METADATA: "not json"}, {}) == {}


@pytest.mark.parametrize(
    "literal",
    [
        *(f'"{event}"' for event in TERMINAL_EVENT_STATUS),
        *(f'"{h.value}"' for h in CodexHeader if "-" in h.value),
    ],
)
def test_wire_names_are_spelled_only_in_the_vocabulary(literal: str) -> None:
    pattern = re.compile(re.escape(literal))
    spelled = [
        str(path.relative_to(ROOT))
        for path in _sources()
        if (path not in WIRE_DATA or not literal.startswith('"response.'))
        and any(
            pattern.search(line) and not line.lstrip().startswith("#") and "`" not in line
            for line in path.read_text().splitlines()
        )
    ]
    assert spelled == [], f"{literal} spelled outside proxy/responses/vocabulary.py"

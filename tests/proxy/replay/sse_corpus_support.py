"""A corpus of Responses streams with the shapes real backends send, written for ctxscope's own tests.

Each `CorpusStream` is the exact bytes an upstream sends and how it sends them (chunk size, whether
the connection is cut). Shapes: reasoning summaries and raw `reasoning_text`, custom tools
(apply_patch) and function calls (shell), the built-in `shell_call` / `apply_patch_call` items, a
refusal, `response.failed` / `response.incomplete` / an `error` event; framings: comment lines,
`id:`/`retry:`, CRLF and bare CR, `data:x`, multi-line data, an `event:` block without data;
delivery: 7-byte chunks that split UTF-8 characters, an unterminated last event, a cut mid-event.
Content is invented here; JSON is compact, as the API sends it, and finished items are echoed with
their keys in another order (so stored parts must keep each occurrence's own order). `JSON_BODIES`
are non-streaming answers in the layouts servers use (indented, compact, spaced, odd).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

__all__ = ["CORPUS", "JSON_BODIES", "CorpusStream"]

Event = dict[str, Any]


@dataclass(frozen=True)
class CorpusStream:
    name: str
    body: bytes
    chunk: int = 7
    """Bytes per write on the upstream side (0: one write per event block)."""
    cut: bool = False
    """Drop the connection after the last byte instead of ending the body."""

    def chunks(self) -> list[bytes]:
        if self.chunk <= 0:
            return [block + b"\n\n" for block in self.body.split(b"\n\n") if block] or [self.body]
        return [self.body[i : i + self.chunk] for i in range(0, len(self.body), self.chunk)]


def compact(event: Event) -> str:
    return json.dumps(event, separators=(",", ":"), ensure_ascii=False)


def frame(
    event: Event,
    eol: str = "\n",
    space: str = " ",
    named: bool = True,
    before: tuple[str, ...] = (),
    data_lines: int = 1,
) -> bytes:
    """One event block: extra lines first (`id: 3`, `: comment`), `event:`, `data:` line(s), blank line."""
    data = compact(event)
    if data_lines > 1:  # split at commas: the parts join with "\n", which JSON reads as whitespace
        parts = data.split(",", data_lines - 1)
        pieces = [p + "," for p in parts[:-1]] + [parts[-1]]
    else:
        pieces = [data]
    lines = list(before) + ([f"event: {event['type']}"] if named else [])
    lines += [f"data:{space}{piece}" for piece in pieces]
    return (eol.join(lines) + eol + eol).encode()


def reversed_keys(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: reversed_keys(value[k]) for k in reversed(list(value))}
    if isinstance(value, list):
        return [reversed_keys(v) for v in value]
    return value


class Stream:
    """Numbers events and collects finished items, like a backend writing one response."""

    def __init__(self, rid: str, model: str = "corpus-model") -> None:
        self.rid, self.model, self.seq = rid, model, 0
        self.items: list[Event] = []

    def event(self, kind: str, **fields: Any) -> Event:
        out = {"type": kind, "sequence_number": self.seq, **fields}
        self.seq += 1
        return out

    def envelope(self, status: str, **extra: Any) -> Event:
        return {
            "id": self.rid,
            "object": "response",
            "created_at": 1790000000,
            "status": status,
            "model": self.model,
            "output": [],
            "usage": None,
            **extra,
        }

    def start(self) -> list[Event]:
        return [
            self.event("response.created", response=self.envelope("in_progress")),
            self.event("response.in_progress", response=self.envelope("in_progress")),
        ]

    def item(self, index: int, started: Event, done: Event, middle: list[Event]) -> list[Event]:
        self.items.append(done)
        return [
            self.event("response.output_item.added", output_index=index, item=started),
            *middle,
            self.event("response.output_item.done", output_index=index, item=done),
        ]

    def deltas(self, kind: str, text: str, size: int, **ref: Any) -> list[Event]:
        return [self.event(kind, **ref, delta=text[i : i + size]) for i in range(0, len(text), size)]

    def message(self, index: int, mid: str, text: str, part_type: str = "output_text") -> list[Event]:
        field = "refusal" if part_type == "refusal" else "text"
        part: Event = {"type": part_type, field: text}
        if part_type == "output_text":
            part["annotations"] = []
        done = {"id": mid, "type": "message", "status": "completed", "role": "assistant", "content": [part]}
        ref = {"item_id": mid, "output_index": index, "content_index": 0}
        kind = "response.refusal" if part_type == "refusal" else "response.output_text"
        middle = [
            self.event("response.content_part.added", **ref, part={**part, field: ""}),
            *self.deltas(f"{kind}.delta", text, 9, **ref),
            self.event(f"{kind}.done", **ref, **{field: text}),
            self.event("response.content_part.done", **ref, part=part),
        ]
        return self.item(index, {**done, "status": "in_progress", "content": []}, done, middle)

    def completed(self, kind: str = "response.completed", echo_reordered: bool = True, **extra: Any) -> Event:
        status = {"response.completed": "completed", "response.failed": "failed"}.get(kind, "incomplete")
        output = [reversed_keys(i) for i in self.items] if echo_reordered else self.items
        usage = {
            "input_tokens": 812,
            "input_tokens_details": {"cached_tokens": 640},
            "output_tokens": 57,
            "output_tokens_details": {"reasoning_tokens": 21},
            "total_tokens": 869,
        }
        response = {**self.envelope(status), "output": output, "usage": usage, **extra}
        return self.event(kind, response=response)


def _reasoning_summaries() -> CorpusStream:
    s = Stream("resp_corpus_summary")
    rid = "rs_corpus_1"
    summaries = ["**Reading the layout**\n\nThe tests sit beside the sources.", "Then run them once."]
    parts = [{"type": "summary_text", "text": t} for t in summaries]
    middle: list[Event] = []
    for i, text in enumerate(summaries):
        ref = {"item_id": rid, "output_index": 0, "summary_index": i}
        middle.append(
            s.event("response.reasoning_summary_part.added", **ref, part={"type": "summary_text", "text": ""})
        )
        middle += s.deltas("response.reasoning_summary_text.delta", text, 11, **ref)
        middle.append(s.event("response.reasoning_summary_text.done", **ref, text=text))
        middle.append(s.event("response.reasoning_summary_part.done", **ref, part=parts[i]))
    done = {"id": rid, "type": "reasoning", "summary": parts, "encrypted_content": "gAAAA-corpus-opaque-0001"}
    events = s.start() + s.item(0, {**done, "summary": []}, done, middle)
    events += s.message(1, "msg_corpus_1", "Voilà : les tests passent — ça marche ✓")
    events.append(s.completed())
    return CorpusStream("reasoning_summary_crlf", b"".join(frame(e, eol="\r\n") for e in events))


def _reasoning_text() -> CorpusStream:
    s = Stream("resp_corpus_rtext", model="open-weights-20b")
    rid = "rs_corpus_2"
    thought = "The user wants a count of lines; wc -l is enough here."
    ref = {"item_id": rid, "output_index": 0, "content_index": 0}
    done = {
        "id": rid,
        "type": "reasoning",
        "summary": [],
        "content": [{"type": "reasoning_text", "text": thought}],
    }
    middle = [
        *s.deltas("response.reasoning_text.delta", thought, 13, **ref),
        s.event("response.reasoning_text.done", **ref, text=thought),
    ]
    events = s.start() + s.item(0, {**done, "content": []}, done, middle)
    events += s.message(1, "msg_corpus_2", "There are 42 lines.")
    events.append(s.completed(echo_reordered=False))
    return CorpusStream("reasoning_text_cr_nospace", b"".join(frame(e, eol="\r", space="") for e in events))


def _tools_with_comments() -> CorpusStream:
    s = Stream("resp_corpus_tools")
    patch = "*** Begin Patch\n*** Update File: notes.md\n@@\n-draft\n+final ✎\n*** End Patch\n"
    ctc = {
        "id": "ctc_corpus_1",
        "type": "custom_tool_call",
        "status": "completed",
        "call_id": "call_corpus_1",
        "name": "apply_patch",
        "input": patch,
    }
    args = json.dumps({"command": ["bash", "-lc", "git status --short"], "workdir": "/work/repo"})
    fc = {
        "id": "fc_corpus_1",
        "type": "function_call",
        "status": "completed",
        "call_id": "call_corpus_2",
        "name": "shell",
        "arguments": args,
    }
    events = s.start()
    events += s.item(
        0,
        {**ctc, "status": "in_progress", "input": ""},
        ctc,
        [
            *s.deltas(
                "response.custom_tool_call_input.delta", patch, 17, item_id="ctc_corpus_1", output_index=0
            ),
            s.event(
                "response.custom_tool_call_input.done", item_id="ctc_corpus_1", output_index=0, input=patch
            ),
        ],
    )
    events += s.item(
        1,
        {**fc, "status": "in_progress", "arguments": ""},
        fc,
        [
            *s.deltas(
                "response.function_call_arguments.delta", args, 20, item_id="fc_corpus_1", output_index=1
            ),
            s.event(
                "response.function_call_arguments.done", item_id="fc_corpus_1", output_index=1, arguments=args
            ),
        ],
    )
    events.append(s.completed())
    body = b": OPENROUTER PROCESSING\n\n" + b": OPENROUTER PROCESSING\n\n"
    for n, e in enumerate(events):
        before = (f"id: {n}",) if n else ("retry: 2500", f"id: {n}")
        body += frame(e, before=before)
        if n % 4 == 3:
            body += b": keep-alive\n\n"
    return CorpusStream("tools_with_comments", body)


def _builtin_shell_and_patch() -> CorpusStream:
    s = Stream("resp_corpus_builtin")
    shell = {
        "id": "sh_corpus_1",
        "type": "shell_call",
        "call_id": "call_corpus_3",
        "status": "completed",
        "action": {
            "commands": ["ls -1 src", "wc -l src/*.py"],
            "timeout_ms": 60000,
            "max_output_length": 4096,
        },
    }
    patch = {
        "id": "apc_corpus_1",
        "type": "apply_patch_call",
        "call_id": "call_corpus_4",
        "status": "completed",
        "operation": {
            "type": "update_file",
            "path": "src/main.py",
            "diff": "@@\n-print('hi')\n+print('hello')\n",
        },
    }
    events = s.start()
    events += s.item(0, {**shell, "status": "in_progress"}, shell, [])
    events += s.item(1, {**patch, "status": "in_progress"}, patch, [])
    events.append(s.completed())
    body = b"".join(frame(e, data_lines=3 if e["type"].endswith(".done") else 1) for e in events)
    return CorpusStream("builtin_shell_apply_patch_multiline", body, chunk=0)


def _refusal() -> CorpusStream:
    s = Stream("resp_corpus_refusal")
    events = s.start() + s.message(0, "msg_corpus_3", "I can't help with that request.", "refusal")
    events.append(s.completed())
    return CorpusStream("refusal_plain", b"".join(frame(e) for e in events))


def _failed() -> CorpusStream:
    s = Stream("resp_corpus_failed")
    events = s.start() + s.message(0, "msg_corpus_4", "Partial answ")
    events.append(
        s.completed("response.failed", error={"code": "server_error", "message": "The server had an error."})
    )
    spaced = [(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n").encode() for e in events]  # not compact
    return CorpusStream("failed_spaced_json", b"".join(spaced))


def _incomplete() -> CorpusStream:
    s = Stream("resp_corpus_incomplete")
    events = s.start() + s.message(0, "msg_corpus_5", "The list goes on and on and")
    events.append(s.completed("response.incomplete", incomplete_details={"reason": "max_output_tokens"}))
    return CorpusStream("incomplete", b"".join(frame(e, named=False) for e in events))


def _error_event() -> CorpusStream:
    s = Stream("resp_corpus_error")
    events = s.start()
    events.append(
        s.event(
            "error",
            error={
                "type": "rate_limit_error",
                "code": "rate_limit_exceeded",
                "message": "Rate limit reached; retry in 2s.",
                "param": None,
            },
        )
    )
    return CorpusStream("error_event", b"".join(frame(e) for e in events))


def _event_without_data() -> CorpusStream:
    s = Stream("resp_corpus_ping")
    events = s.start() + s.message(0, "msg_corpus_6", "pong")
    body = b"".join(frame(e) for e in events) + b"event: ping\n\n" + frame(s.completed())
    return CorpusStream("event_line_without_data", body)


def _split_utf8() -> CorpusStream:
    s = Stream("resp_corpus_utf8")
    text = "Ünïcödé → 日本語のテキスト, emoji 🧪🔬✅ and combining é (e\u0301)"
    events = s.start() + s.message(0, "msg_corpus_7", text)
    events.append(s.completed())
    return CorpusStream("split_utf8_5_bytes", b"".join(frame(e) for e in events), chunk=5)


def _unterminated() -> CorpusStream:
    s = Stream("resp_corpus_unterminated")
    events = s.start() + s.message(0, "msg_corpus_8", "Nearly done.")
    body = b"".join(frame(e) for e in events) + frame(s.completed())[:-2]  # no blank line at the end
    return CorpusStream("unterminated_last_event", body)


def _cut() -> CorpusStream:
    s = Stream("resp_corpus_cut")
    events = s.start() + s.message(0, "msg_corpus_9", "This answer is cut off in the middle of an event.")
    body = b"".join(frame(e) for e in events)
    cut_at = body.rindex(b"data: ") + 40  # inside the JSON of the last event
    return CorpusStream("cut_mid_event", body[:cut_at], cut=True)


CORPUS = [
    _reasoning_summaries(),
    _reasoning_text(),
    _tools_with_comments(),
    _builtin_shell_and_patch(),
    _refusal(),
    _failed(),
    _incomplete(),
    _error_event(),
    _event_without_data(),
    _split_utf8(),
    _unterminated(),
    _cut(),
]


def _json_bodies() -> dict[str, tuple[int, bytes]]:
    """Non-streaming JSON answers as servers lay them out: name → (status, exact body)."""
    response = {
        "id": "resp_corpus_json",
        "object": "response",
        "status": "completed",
        "output": [
            {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Grüße ✓"}]}
        ],
        "usage": {"input_tokens": 12, "output_tokens": 3, "total_tokens": 15},
    }
    error = {
        "error": {
            "message": "Rate limit reached for requests",
            "type": "requests",
            "code": "rate_limit_exceeded",
        }
    }
    odd = b'{ "output" : [ ], "temperature": 1.0e-5,\t"status":"completed" }'
    return {
        "json_indented": (200, (json.dumps(response, indent=2, ensure_ascii=False) + "\n").encode()),
        "json_compact_ascii": (200, json.dumps(response, separators=(",", ":")).encode()),
        "json_error_spaced": (429, json.dumps(error).encode()),
        "json_odd_layout": (200, odd),
    }


JSON_BODIES = _json_bodies()

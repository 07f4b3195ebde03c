"""Issue 34's hold-out: credential kinds no other test holds, end to end through the product.

`tests/fixtures/redact/holdout.json` was written by a helper who had not read the redactor: 60+ kinds
(vendor tokens by their documented shape, credentials known only by their place, positional arguments
in code, passwords inside JSON-escaped JSON, keys repeated without their prefix), each in a realistic
context, and look-alikes that are not secrets. Each case goes through a real recording proxy: in the
request where it says (a user message, a tool output, an assistant message of the history, a header)
and back in the answer a local upstream streams as `output_text` deltas. Then every file the product
writes that holds content is made from the recording (`export` of each kind, `otel` to OTLP/JSON,
`index --with-text --parquet`, `report`) and searched for each secret and every 12-character piece of
it, also JSON-escaped, URL-encoded and base64-encoded; the report's embedded payloads are decoded
first. Every look-alike must be stored byte for byte. One assertion lists every failing case and file.
"""

from __future__ import annotations

import base64
import binascii
import gzip
import json
import re
import urllib.parse
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from ctxscope.proxy.store import read_recording
from ctxscope.proxy.testing import FakeUpstream, SseReply, capture_proxy, response_stream, text_message
from tests.cli_support import run_cli

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "redact" / "holdout.json"
HOLDOUT: dict[str, Any] = json.loads(FIXTURE.read_text(encoding="utf-8"))
CASES: list[dict[str, Any]] = HOLDOUT["cases"]
LOOK_ALIKES: list[dict[str, str]] = HOLDOUT["look_alikes"]
PIECE = 12
CHUNKS = 7  # the answer streams in about this many deltas, so secrets are cut at arbitrary places

pytestmark = pytest.mark.slow


# -- the traffic ------------------------------------------------------------------------------------


def _request(case: dict[str, Any]) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """The request's input items and extra headers, with the case's text where the case says."""
    text, where = case.get("text", ""), case["where"]
    ask = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "look at this please"}]}
    call = {"type": "function_call", "call_id": "call_1", "name": "exec_command", "arguments": '{"cmd":"cat"}'}
    if where == "user_message":
        return [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}], {}
    if where == "assistant_text":
        said = {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]}
        return [ask, said, {**ask, "content": [{"type": "input_text", "text": "and now?"}]}], {}
    if where == "request_header":
        return [ask], {case["header"]: text}
    if where in ("tool_output", "streamed_deltas") and text:
        return [ask, call, {"type": "function_call_output", "call_id": "call_1", "output": text}], {}
    if where == "streamed_deltas":
        return [ask], {}
    raise AssertionError(f"{case['id']}: unknown place {where!r}")


def _answer_deltas(item: dict[str, Any]) -> list[str]:
    """What the model streams back: the case's own deltas, its answer, or its text again."""
    if "deltas" in item:
        return list(item["deltas"])
    text = item.get("answer") or item["text"]
    size = -(-len(text) // CHUNKS)
    return [text[i : i + size] for i in range(0, len(text), size)]


def _stream(deltas: list[str]) -> SseReply:
    events = response_stream(text_message("".join(deltas), chunks=len(deltas)))
    slots = [e for e in events if e.get("type") == "response.output_text.delta"]
    assert len(slots) == len(deltas)
    for event, delta in zip(slots, deltas, strict=True):
        event["delta"] = delta
    return SseReply(events)


def _record(upstream: FakeUpstream, recording: Path) -> None:
    """Every case and every look-alike, one exchange each, through a real recording proxy."""
    items = [*CASES, *({**look, "where": "tool_output"} for look in LOOK_ALIKES)]
    with capture_proxy(upstream.url, recording) as capture:
        with httpx.Client(timeout=30) as client:
            for item in items:
                input_items, headers = _request(item)
                deltas = _answer_deltas(item)
                upstream.reply(_stream(deltas))
                body = {
                    "model": "gpt-5",
                    "instructions": "You are a coding agent.",
                    "prompt_cache_key": f"holdout-{item['id']}",
                    "stream": True,
                    "input": input_items,
                }
                answer = client.post(f"{capture.url}/v1/responses", json=body, headers=headers)
                assert answer.status_code == 200, item["id"]
                assert "response.completed" in answer.text, item["id"]
        capture.wait_for(len(items))


# -- the files the product writes ---------------------------------------------------------------------


def _rows(connection: Any, sql: str, *params: object) -> str:
    return "\n".join(repr(row) for row in connection.execute(sql, list(params)).fetchall())


def _duckdb_text(path: Path) -> str:
    """Every value of every table of the index, as text (its pages are compressed on disk)."""
    import duckdb

    with duckdb.connect(str(path), read_only=True) as db:
        tables = [
            (schema, name)
            for schema, name in db.execute(
                "select table_schema, table_name from information_schema.tables where table_type = 'BASE TABLE'"
            ).fetchall()
        ]
        return "\n".join(_rows(db, f'select * from "{schema}"."{name}"') for schema, name in tables)


def _parquet_text(path: Path) -> str:
    import duckdb

    with duckdb.connect() as db:
        return _rows(db, "select * from read_parquet(?)", str(path))


_BASE64_RUN = re.compile(r"(?:[A-Za-z0-9+/_-]{16,}={0,2}\s*){4,}")  # wrapped lines too


def _embedded(text: str, depth: int = 0) -> Iterator[str]:
    """Payloads a page carries as base64 (of gzip, zlib or plain text), decoded, recursively."""
    if depth > 2:
        return
    for match in _BASE64_RUN.finditer(text):
        run = re.sub(r"\s+", "", match.group(0))
        try:
            raw = base64.b64decode(run + "=" * (-len(run) % 4), altchars=b"-_" if "-" in run or "_" in run else None)
        except (binascii.Error, ValueError):
            continue
        for unpack in (gzip.decompress, zlib.decompress, lambda data: data):
            try:
                decoded = unpack(raw).decode("utf-8")
            except (OSError, EOFError, zlib.error, UnicodeDecodeError):
                continue
            yield decoded
            yield from _embedded(decoded, depth + 1)
            break


def _views(tmp: Path, recording: Path) -> dict[str, str]:
    """file label -> searchable text, for every file made from the recording that holds content."""
    views = {"recording.jsonl": recording.read_text(encoding="utf-8")}
    for what in ("requests", "responses", "exchanges"):
        out = tmp / f"export-{what}.jsonl"
        result = run_cli("export", str(recording), "--what", what, "-o", str(out))
        assert result.returncode == 0, result.stderr
        views[f"export --what {what}"] = out.read_text(encoding="utf-8")
    otel = tmp / "otel.json"
    result = run_cli("otel", str(recording), "-o", str(otel), "--content", "full")
    assert result.returncode == 0, result.stderr
    views["otel --content full (OTLP/JSON)"] = otel.read_text(encoding="utf-8")
    index, parquet = tmp / "index.duckdb", tmp / "parquet"
    result = run_cli("index", str(recording), "-o", str(index), "--with-text", "--parquet", str(parquet))
    assert result.returncode == 0, result.stderr
    views["index.duckdb (bytes)"] = index.read_bytes().decode("latin-1")
    views["index.duckdb (tables)"] = _duckdb_text(index)
    files = sorted(parquet.rglob("*.parquet"))
    assert files, "index --parquet wrote no Parquet file"
    for file in files:
        label = f"parquet/{file.relative_to(parquet)}"
        views[f"{label} (bytes)"] = file.read_bytes().decode("latin-1")
        views[f"{label} (rows)"] = _parquet_text(file)
    report = tmp / "report.html"
    result = run_cli("report", str(recording), "-o", str(report))
    assert result.returncode == 0, result.stderr
    page = report.read_text(encoding="utf-8")
    views["report.html"] = page
    views["report.html (embedded payloads)"] = "\n".join(_embedded(page))
    assert len(views["report.html (embedded payloads)"]) > len(page) // 4, "the report's payload was not decoded"
    return views


# -- the search ---------------------------------------------------------------------------------------


def _encodings(value: str) -> list[str]:
    """The forms a value takes in the files: as is, JSON-escaped (once, twice), URL-encoded and decoded,
    and the stable middle of its base64 at each of the three alignments (standard and URL-safe)."""
    forms = {value, json.dumps(value)[1:-1], json.dumps(json.dumps(value))[3:-3]}
    forms |= {urllib.parse.quote(value, safe=""), urllib.parse.quote_plus(value), urllib.parse.unquote(value)}
    raw = value.encode()
    for shift in range(3):
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            encoded = encode(b"\0" * shift + raw).decode()
            forms.add(encoded[-(-8 * shift // 6) : -4])  # the first characters mix in the shift
    return [form for form in forms if len(form) >= PIECE]


def _pieces(value: str) -> set[str]:
    return {form[i : i + PIECE] for form in _encodings(value) for i in range(len(form) - PIECE + 1)}


def _context(case: dict[str, Any]) -> str:
    """What a case says around its secrets (each secret cut out)."""
    text = "\n".join([case.get("text", ""), case.get("answer", ""), "".join(case.get("deltas", []))])
    for secret in sorted(case["secrets"], key=len, reverse=True):
        text = text.replace(secret, "\0")
    return text


def _public() -> set[str]:
    """Pieces that are not secret: a documented prefix, anything a look-alike holds, and anything the
    cases say around their secrets (the base64 of `-----BEGIN ` starts a certificate and a key alike)."""
    public = {piece for prefix in HOLDOUT["public_prefixes"] for piece in _pieces(prefix)}
    public |= {piece for look in LOOK_ALIKES for piece in _pieces(look["text"])}
    return public | {piece for case in CASES for part in _context(case).split("\0") for piece in _pieces(part)}


def _secret_pieces() -> dict[str, str]:
    """12-character piece of any form of any secret -> the case it belongs to."""
    public = _public()
    owner: dict[str, str] = {}
    for case in CASES:
        for secret in case["secrets"]:
            for piece in _pieces(secret) - public:
                owner.setdefault(piece, case["id"])
    return owner


def _hits(data: str, owner: dict[str, str]) -> dict[str, int]:
    """Each case with a piece in `data`, and where its first piece is."""
    found: dict[str, int] = {}
    for at in range(len(data) - PIECE + 1):
        case = owner.get(data[at : at + PIECE])
        if case is not None and case not in found:
            found[case] = at
    return found


def _difference(sent: str, stored: str) -> str:
    """Where `stored` first differs from `sent`, with a little of both around it."""
    at = next((i for i, (a, b) in enumerate(zip(sent, stored, strict=False)) if a != b), min(len(sent), len(stored)))
    start = max(0, at - 30)
    return f"{sent[start : at + 30]!r} -> {stored[start : at + 30]!r}"


def _look_alike_changes(recording: Path) -> list[str]:
    """Each look-alike whose stored request or stored answer is not byte for byte what was sent."""
    by_key = {(e.request_body or {}).get("prompt_cache_key"): e for e in read_recording(recording).exchanges}
    changed = []
    for look in LOOK_ALIKES:
        exchange = by_key.get(f"holdout-{look['id']}")
        if exchange is None:
            changed.append(f"{look['id']}: no exchange recorded")
            continue
        stored = exchange.request_body["input"][-1]["output"]
        answer = "".join(json.loads(e.data)["delta"] for e in exchange.sse if e.event == "response.output_text.delta")
        done = [part["text"] for item in (exchange.response or {}).get("output", []) for part in item["content"]]
        for place, value in (("request", stored), ("streamed deltas", answer), ("response", "".join(done))):
            if value != look["text"]:
                changed.append(f"{look['id']} ({place}): {_difference(look['text'], value)}")
    return changed


def test_the_holdout_reaches_no_file_and_look_alikes_stay(tmp_path: Path, upstream: FakeUpstream) -> None:
    assert len(CASES) >= 40 and len({c["kind"] for c in CASES}) >= 30 and len(LOOK_ALIKES) >= 12
    recording = tmp_path / "holdout.jsonl"
    _record(upstream, recording)
    views = _views(tmp_path, recording)

    owner = _secret_pieces()
    kinds = {case["id"]: case["kind"] for case in CASES}
    leaks: dict[str, list[str]] = {}  # case id -> files
    first_seen: dict[str, str] = {}
    for label, data in views.items():
        for case_id, at in _hits(data, owner).items():
            leaks.setdefault(case_id, []).append(label)
            if case_id not in first_seen and "bytes" not in label:
                first_seen[case_id] = data[max(0, at - 50) : at + 40].replace("\n", "\\n")
    changed = _look_alike_changes(recording)

    lines = [f"{len(leaks)} of {len(CASES)} cases reach the disk:"] if leaks else []
    for case in CASES:
        if case["id"] in leaks:
            lines.append(f"  {case['id']} [{kinds[case['id']]}] in: {', '.join(leaks[case['id']])}")
            lines.append(f"      e.g. …{first_seen.get(case['id'], '')}…")
    if changed:
        lines.append(f"{len(changed)} look-alike places changed:")
        lines.extend(f"  {line}" for line in changed)
    assert not lines, "\n".join(lines)

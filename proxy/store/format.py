"""Constants of the recording file format (see docs/recording-format.md).

Every line is one JSON object with a `kind`:
  header    the first line: format name, version, who wrote it, capture metadata
  blob      one content-addressed part (an input item, instructions, tools, a header set)
  exchange  one request/response, large parts replaced by blob references
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import orjson

FORMAT_NAME = "ctxscope-recording"
FORMAT_VERSION = "1.3"
"""1.1 added SSE framing (`wire`) and per-occurrence key order (`$order`); 1.2 SSE events derived from
the stored response (`derive.py`); 1.3 event times as integer microsecond steps (`dt`), responses as
an earlier response plus what changed (`$as`), and large header values and request-body values stored
once as blobs. Older files read the same, and are appended to in their own version."""
WRITABLE_VERSIONS = ("1.0", "1.1", "1.2", "1.3")
MAJOR_VERSION = 1

KIND_HEADER = "header"
KIND_BLOB = "blob"
KIND_EXCHANGE = "exchange"

# Markers inside an exchange line that stand for stored parts.
REF = "$blob"  # {"$blob": h}: the blob's value
ITEMS = "$items"  # {"$items": {"base": id?, "keep": n, "add": [h, ...]}}: an input list
SET = "$set"  # extra keys merged over a referenced header set
ORDER = "$order"  # next to "$blob" in an SSE event: this occurrence's key order (see codec.key_order)
AS = "$as"  # {"$as": id, key: value, ...}: exchange id's request body (1.2) or response (1.3), keys replaced
STREAM = "$stream"  # {"$stream": h, "t_ms": [...]}: an exchange's SSE events, blob h (see derive.py)
STEPS = "dt"  # next to "$stream" (1.3): the events' times as integer microseconds after the one before

# Request strings shorter than this stay inline: a reference would cost more than it saves.
MIN_BLOB_CHARS = 64


def canonical_json(value: Any) -> bytes:
    """The one serialisation used for hashing, so equal values always share a blob.

    Compact, keys sorted, UTF-8 without escapes. orjson does this ~10x faster than `json`, which
    matters on the proxy's path for 600 KB bodies; values orjson refuses (ints over 64 bits, lone
    surrogates) fall back to `json` with the same conventions.
    """
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except (TypeError, orjson.JSONEncodeError):
        text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return text.encode("utf-8", "surrogatepass")


def content_hash(canonical: bytes) -> str:
    """A 16-hex-digit SHA-256 prefix: unique enough within one file, short enough to repeat."""
    return hashlib.sha256(canonical).hexdigest()[:16]


def dump_line(obj: dict[str, Any]) -> str:
    try:
        return orjson.dumps(obj).decode("utf-8") + "\n"
    except (TypeError, orjson.JSONEncodeError):
        return json.dumps(obj, separators=(",", ":"), ensure_ascii=False) + "\n"


def loads(data: bytes | str) -> Any:
    """Parse JSON fast (orjson), falling back to `json` for what orjson rejects (e.g. NaN, huge ints)."""
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        try:
            return json.loads(data)
        except RecursionError:  # orjson stops at 1024 levels; `json` would recurse until it crashes
            raise ValueError("JSON nested too deeply") from None

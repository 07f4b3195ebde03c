"""Turning an exchange into stored lines and back: content-addressed parts and input-list references.

Request bodies repeat the whole history every turn. The codec stores each `input[]` item, the
`instructions` and the `tools` once, as blobs keyed by content hash, and an input list as a reference
to an earlier exchange's list ("keep its first N items") plus the hashes appended since. The file then
grows with what changed, not with turns × context.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import orjson

from ..responses.vocabulary import PER_REQUEST_HEADERS
from .format import (
    AS,
    ITEMS,
    MIN_BLOB_CHARS,
    ORDER,
    REF,
    SET,
    STEPS,
    STREAM,
    canonical_json,
    content_hash,
    loads,
)
from .prefix_list import PrefixList
from .rebuild import rebuild_stream

__all__ = [
    "BlobSink",
    "Decoder",
    "InputHashes",
    "InputList",
    "MissingBlob",
    "OrderLookup",
    "SharedInput",
    "VOLATILE_HEADERS",
    "apply_order",
    "encode_body",
    "encode_headers",
    "encode_sse_data",
    "key_order",
    "ordered_hash",
    "ordered_ref",
    "time_steps",
]

# Headers that change on every request; kept inline so the rest of the set dedupes.
VOLATILE_HEADERS = PER_REQUEST_HEADERS | {"openai-processing-ms", "req-cost", "cf-ray", "set-cookie"}

# BlobSink(value) -> hash: stores `value` (already redacted) if new and returns its hash.
BlobSink = Callable[[Any], str]
# OrderLookup(hash) -> `ordered_hash` of the blob as it was first stored, or None if not known.
OrderLookup = Callable[[str], str | None]


def ordered_hash(value: Any) -> str:
    """A hash of `value` serialised in its own key order: equal iff two equal values also share order."""
    try:
        return content_hash(orjson.dumps(value))
    except (TypeError, orjson.JSONEncodeError):
        return content_hash(canonical_json(value))  # not stored as exact JSON anyway


def key_order(value: Any) -> Any:
    """The key order of every object inside `value`, as JSON; None if it holds no object.

    An object becomes the list of its keys, a key whose value holds objects as `[key, its order]`;
    an array becomes `{"<index>": order}` for the entries that hold objects.
    """
    if isinstance(value, dict):
        out: list[Any] = []
        for key, child in value.items():
            inner = key_order(child)
            out.append(key if inner is None else [key, inner])
        return out
    if isinstance(value, list):
        indexed = {str(i): inner for i, child in enumerate(value) if (inner := key_order(child)) is not None}
        return indexed or None
    return None


def apply_order(value: Any, order: Any) -> Any:
    """`value` with its objects' keys in the order `key_order` recorded (unnamed keys go last)."""
    if isinstance(value, dict) and isinstance(order, list):
        out: dict[str, Any] = {}
        for entry in order:
            key, inner = (
                (entry[0], entry[1]) if isinstance(entry, list) and len(entry) == 2 else (entry, None)
            )
            if isinstance(key, str) and key in value:
                out[key] = value[key] if inner is None else apply_order(value[key], inner)
        for key, child in value.items():
            out.setdefault(key, child)
        return out
    if isinstance(value, list) and isinstance(order, dict):
        return [
            apply_order(child, order[str(i)]) if str(i) in order else child for i, child in enumerate(value)
        ]
    return value


def ordered_ref(
    value: Any, sink: BlobSink, stored_order: OrderLookup, allow_order: bool = True
) -> dict[str, Any] | None:
    """A blob reference that restores this occurrence's own key order; None if that cannot be checked.

    Blobs are shared by content (keys sorted), so the first occurrence's key order is the stored one;
    an occurrence with another order carries its own, verified here to give back the same JSON.
    """
    h = sink(value)
    if stored_order(h) == ordered_hash(value):
        return {REF: h}
    if not allow_order:  # format 1.0 has no `$order`: the event stays raw
        return None
    order = key_order(value)
    try:
        restored = apply_order(loads(canonical_json(value)), order)
        if orjson.dumps(restored) != orjson.dumps(value):
            return None
    except (TypeError, ValueError, orjson.JSONEncodeError):
        return None
    return {REF: h, ORDER: order} if order is not None else {REF: h}


def blob_of(value: Any, sink: BlobSink) -> dict[str, str]:
    return {REF: sink(value)}


def encode_headers(
    headers: dict[str, str], sink: BlobSink, value_ref: Callable[[Any], dict[str, Any] | None] | None = None
) -> Any:
    """A header dict as a shared blob plus the per-request volatile values inline.

    `value_ref` (1.3) may turn a large volatile value into a blob reference: Codex sends a 1 KB
    `x-codex-turn-metadata` with every request of a turn, and its body repeats it in `client_metadata`.
    """
    if not headers:
        return {}
    stable = {k: v for k, v in headers.items() if k.lower() not in VOLATILE_HEADERS}
    volatile = {k: v for k, v in headers.items() if k.lower() in VOLATILE_HEADERS}
    encoded: dict[str, Any] = {REF: sink(stable)}
    if volatile:
        values: dict[str, Any] = volatile
        if value_ref is not None:
            values = {k: (value_ref(v) or v) if len(v) >= MIN_BLOB_CHARS else v for k, v in volatile.items()}
        encoded[SET] = values
    return encoded


def encode_body(
    body: dict[str, Any], item_hashes: list[str], base: tuple[int, int] | None, sink: BlobSink
) -> dict[str, Any]:
    """Encode a Responses-style request body whose input items are already stored as `item_hashes`.

    `base` is (exchange id, number of leading items shared with it), chosen by the writer.
    """
    out: dict[str, Any] = {}
    for key, value in body.items():
        if key == "input" and isinstance(value, list):
            ref: dict[str, Any] = {}
            if base is not None:
                ref["base"], ref["keep"] = base
                ref["add"] = item_hashes[base[1] :]
            else:
                ref["add"] = item_hashes
            out[key] = {ITEMS: ref}
        elif key == "tools" and isinstance(value, list) and value:
            out[key] = blob_of(value, sink)
        elif key == "instructions" and isinstance(value, str) and len(value) >= MIN_BLOB_CHARS:
            out[key] = blob_of(value, sink)
        else:
            out[key] = value
    return out


def time_steps(times: list[float]) -> list[int] | None:
    """Event times (ms, as the recorder rounds them: to the microsecond) as integer microsecond steps
    from 0, each after the one before; None when a time is not a whole microsecond (kept as floats).

    `k / 1000` is the double nearest k thousandths, which is what `round(t, 3)` gave: exact both ways.
    """
    steps: list[int] = []
    last = 0
    for t in times:
        # floats only, finite, not negative (nor -0.0, which would come back as 0.0)
        if type(t) is not float or not math.isfinite(t) or math.copysign(1.0, t) < 0:
            return None
        micros = round(t * 1000)
        if micros / 1000 != t:
            return None
        steps.append(micros - last)
        last = micros
    return steps


def times_of(steps: list[Any]) -> list[float]:
    """`time_steps` read back."""
    times: list[float] = []
    micros = 0
    for step in steps:
        if type(step) is not int:
            raise TypeError("an SSE time step is not an integer")
        micros += step
        times.append(micros / 1000)
    return times


def encode_sse_data(
    data: str, sink: BlobSink, stored_order: OrderLookup, allow_order: bool = True
) -> dict[str, Any] | None:
    """An SSE `data` payload as JSON whose large parts are blob references, or None to keep it raw.

    Response streams repeat what the file already holds: each `output_item.done` carries an item the
    next request sends back as input, and `response.created`/`completed` echo the whole response —
    with the real API that includes `instructions` and `tools`, tens of KB every turn. Parsed, those
    parts become references. Only payloads that orjson re-serialises to exactly the bytes received
    (compact JSON, as the API sends) are stored this way, and each stored part keeps this
    occurrence's key order (`$order` when the stored blob has another), so the reader restores the
    raw text byte for byte; anything else stays a raw string.
    """
    if len(data) < MIN_BLOB_CHARS or not data.startswith("{"):
        return None
    try:
        event = loads(data)
        if not isinstance(event, dict) or orjson.dumps(event).decode("utf-8") != data:
            return None
    except (ValueError, TypeError, UnicodeDecodeError):
        return None
    out = dict(event)
    refs: list[dict[str, Any] | None] = []

    def ref(value: Any) -> Any:
        refs.append(ordered_ref(value, sink, stored_order, allow_order))
        return refs[-1]

    if isinstance(out.get("item"), dict):
        out["item"] = ref(out["item"])
    if isinstance(out.get("response"), dict):
        response = dict(out["response"])
        for key in ("instructions", "tools"):
            value = response.get(key)
            if (isinstance(value, str) and len(value) >= MIN_BLOB_CHARS) or (
                isinstance(value, list) and value
            ):
                response[key] = ref(value)
        if isinstance(response.get("output"), list):
            response["output"] = [
                ref(item) if isinstance(item, dict) else item for item in response["output"]
            ]
        out["response"] = response
    return None if any(r is None for r in refs) else out


class MissingBlob(KeyError):
    """An exchange references a blob the file does not hold (a torn write)."""


class InputList(list[Any]):
    """A resolved request's `input`: a real list (every reader of a body sees a list), that also says
    what the file says of it: the first `keep` items are those of `base` (the earlier exchange's
    `InputList` it extends, or None) and the rest were added.

    The analysis follows `base` to reuse what it worked out for the earlier request instead of
    comparing whole inputs turn by turn (issue 36). Read-only, like every resolved body.
    """

    __slots__ = ("base", "keep")

    def __init__(self, base: InputList | None = None, keep: Any = 0, added: list[Any] | None = None) -> None:
        """`base`'s first `keep` items (a slice bound: a `keep` that is no index raises TypeError)
        and then `added`."""
        super().__init__()
        if base is not None:
            self += base  # one pass over the base's pointers (cheaper than a slice copied again)
            del self[keep:]
        self.base = base
        self.keep = len(self)
        self.extend(added or ())

    def added(self) -> list[Any]:
        """The items this input adds to its base (all of them when it has none)."""
        return self[self.keep :]


class SharedInput(PrefixList[Any]):
    """A resolved request's `input` as an `InputList` says it, but sharing its base's storage
    (`PrefixList`) rather than copying it: a thread of n requests holds its items once, not n²/2
    times. Not a `list`: JSON encoders are handed `list(x)`. What a reader asked for it gets
    (`Decoder(shared_inputs=True)`): the TUI's live feed and the commands that only report on the
    analysis; `read_recording` gives real lists by default."""

    __slots__ = ()

    def added(self) -> list[Any]:
        """The items this input adds to its base (all of them when it has none)."""
        return self[self.keep :]


ResolvedInput = InputList | SharedInput
"""A body's `input` as a reader resolves it: naming the earlier input it extends (`base`, `keep`)."""


class InputHashes(Mapping[int, list[str]]):
    """Each exchange's input as stored hashes, made from the file's `base`/`keep`/`add` references
    when asked (an exchange's list is not kept: a growing session would hold turns × items)."""

    def __init__(self) -> None:
        self._refs: dict[int, tuple[int | None, int, list[str]]] = {}
        self._made: dict[int, list[str]] = {}
        self._pinned: dict[int, list[str]] = {}
        """Lists made for good: only after a second line with an id already read (below)."""

    def add(self, exchange_id: int, base: int | None, keep: int, added: list[str]) -> None:
        if exchange_id in self._refs:
            # A second line with an id already read (a file appended to by a writer given preset ids, or
            # two recordings concatenated). A base names the latest line with that id, as read so far:
            # every list is made now, so that no walk meets the id again (it could name itself: a cycle).
            for known in self._refs:
                self._pinned[known] = self[known]
            kept = self[base][:keep] if base is not None else []
            self._refs[exchange_id] = (None, 0, kept + added)
            self._pinned[exchange_id] = kept + added
            self._made.clear()
            return
        self._refs[exchange_id] = (base, keep, added)
        self._made.pop(exchange_id, None)

    def length(self, exchange_id: int) -> int:
        """How many items the exchange's input has (without making its list)."""
        return len(self._refs[exchange_id][2]) + self._refs[exchange_id][1]

    def __getitem__(self, exchange_id: int) -> list[str]:
        made = self._pinned.get(exchange_id)
        if made is None:
            made = self._made.get(exchange_id)
        if made is not None:
            return list(made)
        # walk the base references back, taking from each exchange the added hashes still in view
        pieces: list[list[str]] = []
        limit: int | None = None
        current: int | None = exchange_id
        while current is not None:
            made = self._pinned.get(current)
            if made is None:
                made = self._made.get(current)
            if made is not None:
                pieces.append(made if limit is None else made[:limit])
                break
            base, keep, added = self._refs[current]
            pieces.append(added if limit is None else added[: max(0, limit - keep)])
            limit = keep if limit is None else min(limit, keep)
            current = base
        out = [h for piece in reversed(pieces) for h in piece]
        # the last one asked for: reading exchanges in order, the next one's walk stops here
        self._made = {exchange_id: out}
        return list(out)

    def __iter__(self) -> Iterator[int]:
        return iter(self._refs)

    def __len__(self) -> int:
        return len(self._refs)

    def __contains__(self, exchange_id: object) -> bool:
        return exchange_id in self._refs


class Decoder:
    """Resolves stored exchanges. Keeps each exchange's resolved input to follow `base` references.

    Resolved bodies share blob objects between exchanges (an item present in 300 requests is one
    Python object), and a body's `input` is an `InputList` that names the earlier exchange's list it
    extends: treat them as read-only.
    """

    def __init__(self, *, shared_inputs: bool = False) -> None:
        """`shared_inputs`: each body's `input` a `SharedInput` (else an `InputList`, a real list)."""
        self.blobs: dict[str, Any] = {}
        self.input_hashes = InputHashes()
        self.input_items: dict[int, ResolvedInput] = {}  # each exchange's resolved input (its body's list)
        self._input_type: type[InputList] | type[SharedInput] = SharedInput if shared_inputs else InputList
        self.encoded_bodies: dict[int, dict[str, Any]] = {}  # what `$as` refers to
        self.encoded_responses: dict[int, dict[str, Any]] = {}  # what a response's `$as` refers to (1.3)

    def blob(self, h: str) -> Any:
        try:
            return self.blobs[h]
        except KeyError:
            raise MissingBlob(h) from None

    def headers(self, encoded: Any) -> dict[str, str]:
        if not isinstance(encoded, dict):
            return {}
        if REF not in encoded:
            return dict(encoded)
        merged = dict(self.blob(encoded[REF]))
        for key, value in encoded.get(SET, {}).items():  # 1.3: a large value may be a blob
            merged[key] = self.blob(value[REF]) if isinstance(value, dict) and REF in value else value
        return merged

    def body(self, exchange_id: int, encoded: Any) -> Any:
        if not isinstance(encoded, dict):
            return encoded
        if AS in encoded:
            base = self.encoded_bodies.get(encoded[AS])
            if base is None:
                raise MissingBlob(f"exchange {encoded[AS]}")
            encoded = {**base, **{k: v for k, v in encoded.items() if k != AS}}
        self.encoded_bodies[exchange_id] = encoded
        out: dict[str, Any] = {}
        for key, value in encoded.items():
            if isinstance(value, dict) and ITEMS in value:
                out[key] = self._input(exchange_id, value[ITEMS])
            elif isinstance(value, dict) and REF in value and len(value) == 1 + (ORDER in value):
                out[key] = self._ref(value)
            else:
                out[key] = value
        return out

    def _input(self, exchange_id: int, ref: dict[str, Any]) -> ResolvedInput:
        """An input list as its base's resolved items (one list slice) plus the added items looked
        up: a growing session's n-th turn costs its new items, not n look-ups."""
        added = list(ref.get("add", []))
        base_items: ResolvedInput | None = None
        if "base" in ref:
            base_items = self.input_items.get(ref["base"])
            if base_items is None:
                raise MissingBlob(f"exchange {ref['base']}")
        keep = ref["keep"] if base_items is not None else 0
        items = self._input_type(base_items, keep, [self.blob(h) for h in added])  # type: ignore[arg-type]
        keep = items.keep
        self.input_hashes.add(exchange_id, ref["base"] if base_items is not None else None, keep, added)
        self.input_items[exchange_id] = items
        return items

    def _ref(self, value: Any) -> Any:
        if isinstance(value, dict) and REF in value and len(value) == 1 + (ORDER in value):
            blob = self.blob(value[REF])
            return apply_order(blob, value[ORDER]) if ORDER in value else blob
        return value

    def sse_event(self, stored: dict[str, Any]) -> dict[str, Any]:
        """An SSE event line with its `json` form turned back into the exact `data` text received."""
        if "json" not in stored:
            return stored
        event = dict(stored.pop("json"))
        if "item" in event:
            event["item"] = self._ref(event["item"])
        if isinstance(event.get("response"), dict):
            response = dict(event["response"])
            for key in ("instructions", "tools"):
                if key in response:
                    response[key] = self._ref(response[key])
            if isinstance(response.get("output"), list):
                response["output"] = [self._ref(item) for item in response["output"]]
            event["response"] = response
        stored["data"] = orjson.dumps(event).decode("utf-8")
        return stored

    def sse_events(self, encoded: Any, response: Any) -> list[dict[str, Any]]:
        """An exchange's SSE events as dicts with `t_ms`, `event`, `data` (and `wire`).

        A list is the 1.0/1.1 form (one stored event each); an object is a 1.2 stream, inline or a
        blob (`$stream`), with events derived from the exchange's resolved `response`.
        """
        if isinstance(encoded, list):
            return [self.sse_event(dict(event)) for event in encoded]
        if not isinstance(encoded, dict):
            raise TypeError("sse is neither a list nor a stream")
        stored = self.blob(encoded[STREAM]) if STREAM in encoded else encoded
        times = times_of(encoded[STEPS]) if STEPS in encoded else encoded["t_ms"]
        events = rebuild_stream(stored, response, literal=lambda form: self.sse_event(dict(form)))
        if len(times) != len(events):
            raise ValueError("sse has not one time per event")
        for event, t_ms in zip(events, times, strict=True):
            event["t_ms"] = t_ms
        return events

    def response(self, encoded: Any, exchange_id: int | None = None) -> Any:
        if not isinstance(encoded, dict):
            return encoded
        if AS in encoded:  # 1.3: an earlier exchange's response as stored, these keys replaced
            base = self.encoded_responses.get(encoded[AS])
            if base is None:
                raise MissingBlob(f"exchange {encoded[AS]}")
            encoded = {**base, **{k: v for k, v in encoded.items() if k != AS}}
        if exchange_id is not None:
            self.encoded_responses[exchange_id] = encoded
        out = dict(encoded)
        if isinstance(out.get("output"), dict) and ITEMS in out["output"]:
            out["output"] = [self.blob(h) for h in out["output"][ITEMS].get("add", [])]
        for key in ("instructions", "tools"):
            if key in out:
                out[key] = self._ref(out[key])
        return out

"""SSE events derived from the stored response (format 1.2): most of a stream repeats its final response.

A Responses stream sends its text twice more than the response holds it (the deltas, then the `.done`
events), each output item twice (`output_item.done`, `response.completed`) and the response object
two or three times (`response.created`, `in_progress`, `completed`). `derive_stream` stores each event
as a *template*: the event object whose parts equal a part of the exchange's (stored, redacted)
`response` are markers pointing at it, and an event shaped like the one before it holds only what
changed. `rebuild_stream` turns templates back into the `data` text, serialised in the stream's JSON
layout (compact as the API sends it, or spaced, ASCII-escaped ...).

The writer only keeps the derived form after `rebuild_stream` has given back every event's `data`
byte for byte; otherwise the stream is stored as before. Derived text comes from the stored response,
which is redacted like everything else, so nothing a redaction removed can come back.

Stored stream (`{"layout": L, "events": [form, ...]}`); each form is one of
  {"data": ...} / {"json": ...}       as in format 1.1 (a literal event)
  {"d": template}                     the event object with markers (below)
  {"same": {key: value}, "n": N}      the previous event's template with these keys replaced; an
                                      integer `sequence_number` counts on by one; `n` sets the length
                                      of the template's `$n` marker (`same` left out when empty)
  {"n": [N1, ...], "vary": {K: [v1, ...]}}  several such events in a row (a run of deltas), the i-th
                                      with `n` Ni and `same` {K: vi, ...} (`vary` left out when empty)
plus `event` when the SSE event name is not the JSON `type` (null: no `event:` line) and `wire`.
Markers (top-level values of a template only):
  {"$r": PATH}                        the value at PATH in the response ([] = the response itself)
  {"$r": PATH, "$n": N}               the next N characters of that text (a cursor per PATH)
  {"$r": PATH, "$k": [keys], "$set": {...}}  that object with these keys in this order, $set's values
                                      replacing the response's
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import orjson

from .format import loads

__all__ = ["LAYOUTS", "MARK", "derive_stream", "rebuild_stream", "render_event"]

MARK = "$r"
_COUNT, _KEYS, _SET = "$n", "$k", "$set"
_SEQ = "sequence_number"
_TEXT_FIELDS = ("text", "arguments", "input", "refusal")

_STYLES: dict[str, dict[str, Any]] = {
    "spaced-ascii": {"ensure_ascii": True},  # Python's json.dumps defaults
    "spaced": {"ensure_ascii": False},
    "compact-ascii": {"separators": (",", ":"), "ensure_ascii": True},
    "indent2": {"indent": 2, "ensure_ascii": False},
    "indent2-ascii": {"indent": 2, "ensure_ascii": True},
}
LAYOUTS = ("compact", *_STYLES)
"""JSON layouts an event's data may be rebuilt in (see `json_layout` for whole bodies)."""
# one encoder per layout: `json.dumps` would build one per call, a third of a spaced stream's read time
_ENCODERS = {name: json.JSONEncoder(**style) for name, style in _STYLES.items()}


def render_event(value: Any, layout: str) -> str:
    """`value` serialised in `layout`: compact as orjson writes it, the others as `json.dumps` does."""
    if layout == "compact":
        return orjson.dumps(value).decode("utf-8")
    encoder = _ENCODERS.get(layout)
    if encoder is None:
        raise ValueError(f"unknown SSE JSON layout {layout!r}")
    return encoder.encode(value)


def _layouts_of(data: str, value: Any, candidates: tuple[str, ...]) -> tuple[str, ...]:
    """The layouts among `candidates` that write `value` as exactly `data`.

    An ASCII-only event fits both a style and its `-ascii` variant; the stream's later events decide.
    (The compact pair is written by two encoders, orjson and json; they agree on ASCII output but for
    the odd float, and `derive_stream` checks every event in the layout it finally picks.)
    """
    found: list[str] = []
    for style in ("compact", "spaced", "indent2"):
        plain, escaped = style, f"{style}-ascii"
        try:
            if plain in candidates and render_event(value, plain) == data:
                found.append(plain)
                if escaped in candidates and data.isascii():
                    found.append(escaped)
            elif escaped in candidates and data.isascii() and render_event(value, escaped) == data:
                found.append(escaped)
        except (TypeError, ValueError, orjson.JSONEncodeError):
            return ()
        if found:
            break
    return tuple(found)


def _exact(value: Any) -> bytes | None:
    """Bytes that are equal iff two values are equal with the same key order; None if not JSON."""
    try:
        return orjson.dumps(value)
    except (TypeError, orjson.JSONEncodeError):
        return None


def _at(root: Any, path: list[Any]) -> Any:
    """The value at `path` (keys and indices); KeyError/IndexError/TypeError if there is none."""
    value = root
    for step in path:
        if isinstance(value, list) and isinstance(step, int) and step >= 0:
            value = value[step]
        elif isinstance(value, dict) and isinstance(step, str):
            value = value[step]
        else:
            raise KeyError(step)
    return value


def _location(event: dict[str, Any]) -> list[Any] | None:
    """Where in the response the output item (and part) an event is about sits."""
    index = event.get("output_index")
    if not isinstance(index, int) or isinstance(index, bool):
        return None
    path: list[Any] = ["output", index]
    for key, container in (("content_index", "content"), ("summary_index", "summary")):
        if isinstance(event.get(key), int) and not isinstance(event.get(key), bool):
            return [*path, container, event[key]]
    return path


class _Builder:
    """Makes templates for one stream against `response` (the response as the reader will see it)."""

    def __init__(self, response: Any) -> None:
        self.response = response if isinstance(response, dict) else None
        self.cursors: dict[tuple[Any, ...], int] = {}

    def _lookup(self, path: list[Any]) -> Any:
        try:
            return _at(self.response, path)
        except (KeyError, IndexError, TypeError):
            return _Missing

    def _same(self, path: list[Any], value: Any) -> bool:
        found = self._lookup(path)
        if found is _Missing:
            return False
        mine = _exact(value)
        return mine is not None and mine == _exact(found)

    def template(self, event: dict[str, Any]) -> dict[str, Any]:
        if self.response is None:
            return event
        location = _location(event)
        out: dict[str, Any] = {}
        for key, value in event.items():
            out[key] = self._marker(key, value, event, location)
        return out

    def _marker(self, key: str, value: Any, event: dict[str, Any], location: list[Any] | None) -> Any:
        if key == "response" and isinstance(value, dict):
            return self._projection(value)
        if location is None:
            return value
        if key == "item" and isinstance(value, dict) and self._same(location[:2], value):
            return {MARK: location[:2]}
        if key == "part" and isinstance(value, dict) and len(location) > 2 and self._same(location, value):
            return {MARK: location}
        if key in _TEXT_FIELDS and isinstance(value, str) and len(value) > 24:
            if self._same([*location, key], value):
                return {MARK: [*location, key]}
        if key == "delta" and isinstance(value, str) and str(event.get("type", "")).endswith(".delta"):
            return self._slice(location, value)
        return value

    def _projection(self, value: dict[str, Any]) -> Any:
        assert self.response is not None
        changed = {k: v for k, v in value.items() if not self._same([k], v)}
        if len(changed) == len(value):
            return value
        marker: dict[str, Any] = {MARK: [], _KEYS: list(value)}
        if changed:
            marker[_SET] = changed
        return marker

    def _slice(self, location: list[Any], delta: str) -> Any:
        for field in _TEXT_FIELDS:
            text = self._lookup([*location, field])
            if not isinstance(text, str):
                continue
            path = [*location, field]
            start = self.cursors.get(tuple(path), 0)
            if text[start : start + len(delta)] == delta:
                self.cursors[tuple(path)] = start + len(delta)
                return {MARK: path, _COUNT: len(delta)}
            return delta
        return delta


class _MissingType:
    pass


_Missing = _MissingType()


def _marked(template: dict[str, Any]) -> bool:
    return any(isinstance(value, dict) and MARK in value for value in template.values())


def _count_key(template: dict[str, Any]) -> str | None:
    for key, value in template.items():
        if isinstance(value, dict) and _COUNT in value:
            return key
    return None


def _compress(template: dict[str, Any], previous: dict[str, Any] | None) -> dict[str, Any]:
    """`{"d": template}`, or `{"same": ..., "n": ...}` when `previous` has the same keys in the same order."""
    if previous is None or list(previous) != list(template):
        return {"d": template}
    changed: dict[str, Any] = {}
    count: int | None = None
    count_key = _count_key(previous)
    for key, value in template.items():
        old = previous[key]
        if key == _SEQ and isinstance(old, int) and not isinstance(old, bool):
            if not (type(value) is int and value == old + 1):
                changed[key] = value
            continue
        if (
            key == count_key
            and isinstance(value, dict)
            and _COUNT in value
            and value.get(MARK) == old.get(MARK)
        ):
            count = value[_COUNT]
            continue
        if value is old:
            continue
        # `==` first (cheap, but 1 == 1.0 == True); equal containers may differ in key order
        if type(value) is not type(old) or value != old:
            changed[key] = value
        elif isinstance(value, dict | list) and (_exact(value) is None or _exact(value) != _exact(old)):
            changed[key] = value
    if count is not None:  # the common delta: nothing but its length changes
        return {"same": changed, "n": count} if changed else {"n": count}
    return {"same": changed}


def derive_stream(
    events: list[dict[str, Any]],
    response: Any,
    literal: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
) -> dict[str, Any] | None:
    """The stored stream for `events` (dicts with `data`, optional `event`/`wire`; no `t_ms`), or None.

    `response` is the exchange's response as a reader will resolve it; `literal(event)` gives the
    stored form of an event that is not derived (default: the event as is). None when no event could
    be derived, or when a derived event would not rebuild to its `data` and `event` exactly (the
    caller then stores the stream as before).
    """
    layouts = LAYOUTS  # those every derived event so far is written in
    builder = _Builder(response)
    forms: list[dict[str, Any]] = []
    previous: dict[str, Any] | None = None
    derived = 0

    def keep(event: dict[str, Any]) -> dict[str, Any]:
        return literal(event) if literal is not None else dict(event)

    for event in events:
        data = event.get("data", "")
        value = _derivable(data)
        found = _layouts_of(data, value, layouts) if value is not None else ()
        template = builder.template(value) if value is not None and found else None
        if template is None:  # not a JSON object in a layout we rebuild
            previous = None
            forms.append(keep(event))
            continue
        compressed = _compress(template, previous)
        if "d" in compressed and not _marked(template):
            kept = keep(event)
            if "json" in kept:  # format 1.1's form already stores its parts once: as good, and simpler
                previous = None
                forms.append(kept)
                continue
        layouts = found
        form = {k: v for k, v in event.items() if k not in ("data", "event")}
        if event.get("event") != template.get("type"):
            form["event"] = event.get("event")
        form.update(compressed)
        previous = template
        forms.append(form)
        derived += 1
    if not derived:
        return None
    stored = {"layout": layouts[0], "events": _runs(forms)}
    try:
        rebuilt = rebuild_stream(stored, response, literal=lambda form: {})
    except (KeyError, IndexError, TypeError, ValueError, orjson.JSONEncodeError):
        return None
    for event, form, got in zip(events, forms, rebuilt, strict=True):
        if ("d" in form or "same" in form or "n" in form) and (
            got["data"] != event.get("data", "") or got["event"] != event.get("event")
        ):
            return None
    return stored


def _runs(forms: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Consecutive `{"same": {K: v}, "n": N}` forms replacing the same keys K (a stream's deltas, each
    with its own `obfuscation`, say) as one `{"n": [N, ...], "vary": {K: [v, ...]}}`."""
    out: list[dict[str, Any]] = []
    current: tuple[str, ...] | None = None
    for form in forms:
        keys = _run_keys(form)
        if keys is not None and keys == current:
            run = out[-1]
            run["n"].append(form["n"])
            for key in keys:
                run["vary"][key].append(form["same"][key])
            continue
        current = keys
        if keys is None:
            out.append(form)
        else:
            run = {"n": [form["n"]]}
            if keys:
                run["vary"] = {key: [form["same"][key]] for key in keys}
            out.append(run)
    return [
        _single(form) if isinstance(form.get("n"), list) and len(form["n"]) == 1 else form for form in out
    ]


def _run_keys(form: dict[str, Any]) -> tuple[str, ...] | None:
    """The keys a `same` form with `n` replaces, if it can join a run (literal values only)."""
    if type(form.get("n")) is not int or not set(form) <= {"n", "same"}:
        return None
    same = form.get("same", {})
    if any(_is_marker(value) or key in (_SEQ, "type") for key, value in same.items()):
        return None
    return tuple(same)


def _single(run: dict[str, Any]) -> dict[str, Any]:
    vary = run.get("vary", {})
    form: dict[str, Any] = {"same": {key: values[0] for key, values in vary.items()}} if vary else {}
    form["n"] = run["n"][0]
    return form


def _derivable(data: str) -> dict[str, Any] | None:
    """The event object, if `data` is a JSON object without `$` keys that could clash with markers."""
    if not data.startswith("{") or '"$' in data:
        return None
    try:
        value = loads(data)
    except (ValueError, TypeError):
        return None
    return value if isinstance(value, dict) else None


def rebuild_stream(
    stored: dict[str, Any],
    response: Any,
    literal: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
) -> list[dict[str, Any]]:
    """The events of a stored stream with their `data` text back (and `event` names), in order.

    `literal` turns a literal form (`data`/`json`) into an event dict; by default it is taken as is.
    Raises KeyError/IndexError/TypeError/ValueError for a stream that does not fit `response`.
    """
    rebuild = _Rebuild(stored.get("layout", "compact"), response, literal)
    for form in stored["events"]:
        counts = form.get("n")
        if not (isinstance(counts, list) and set(form) <= {"n", "vary"}):
            rebuild.single(form)
            continue
        vary = form.get("vary", {})
        if not isinstance(vary, dict) or any(
            not isinstance(values, list) or len(values) != len(counts) for values in vary.values()
        ):
            raise ValueError("a run's 'vary' lists do not match its counts")
        if not rebuild.run(counts, vary):
            for index, count in enumerate(counts):
                same = {key: values[index] for key, values in vary.items()}
                rebuild.single({"same": same, "n": count} if same else {"n": count})
    return rebuild.out


class _Rebuild:
    """The state of rebuilding one stream: the previous template, text cursors, resolved parts."""

    def __init__(
        self, layout: str, response: Any, literal: Callable[[dict[str, Any]], dict[str, Any]] | None
    ) -> None:
        if layout != "compact" and layout not in _ENCODERS:
            raise ValueError(f"unknown SSE JSON layout {layout!r}")
        self.layout = layout
        self.response = response
        self.literal = literal
        self.cursors: dict[tuple[Any, ...], int] = {}
        self.found: dict[tuple[Any, ...], Any] = {}  # response parts by path: deltas look up one text
        self.previous: dict[str, Any] | None = None
        self.marked: list[str] = []  # the keys of `previous` whose values are markers
        self.out: list[dict[str, Any]] = []

    def single(self, form: dict[str, Any]) -> None:
        if "d" in form:
            template = form["d"]
            if not isinstance(template, dict):
                raise TypeError("an SSE template is not an object")
            self.marked = [key for key, part in template.items() if _is_marker(part)]
        elif "same" in form or "n" in form:
            if self.previous is None:
                raise ValueError("a 'same' event follows no derived event")
            template, self.marked = _apply_same(self.previous, self.marked, form)
        else:
            self.previous = None
            self.out.append(self.literal(form) if self.literal is not None else dict(form))
            return
        self.previous = template
        value = dict(template)
        for key in self.marked:
            value[key] = _resolve(template[key], self.response, self.cursors, self.found)
        event = {k: v for k, v in form.items() if k not in ("d", "same", "n")}
        if "event" not in event:
            event["event"] = value.get("type")
        event["data"] = render_event(value, self.layout)
        self.out.append(event)

    def run(self, counts: list[Any], vary: dict[str, list[Any]]) -> bool:
        """A run of deltas, rendered once with placeholders and filled per event; False to go one by one.

        JSON serialisation is compositional: the text of an object is its members' texts in order, so
        an event that differs from the one before only in `sequence_number`, its delta and the `vary`
        keys is the same text with those put in (each written as the layout writes it in an object).
        """
        previous = self.previous
        if previous is None or not counts or not all(type(n) is int and n >= 0 for n in counts):
            return False
        counting = [k for k in self.marked if _COUNT in previous.get(k, {})]
        if len(counting) != 1 or self.layout.startswith("indent"):
            return False
        key = counting[0]
        if (
            key in vary
            or _SEQ in vary
            or "type" in vary
            or any(_is_marker(v) for values in vary.values() for v in values)
        ):
            return False
        numbered = type(previous.get(_SEQ)) is int
        seq: int = previous[_SEQ] if numbered else 0
        value = dict(previous)
        for other in self.marked:
            if other != key and other not in vary:
                value[other] = _resolve(previous[other], self.response, self.cursors, self.found)
        string = _string_encoder(self.layout)
        holes = {name: f"\x00\x01{n}\x00" for n, name in enumerate([key, *vary])}
        if numbered:
            holes[_SEQ] = "\x00\x01seq\x00"
        value.update(holes)
        try:
            text = render_event(value, self.layout)
            tokens = {name: string(hole) for name, hole in holes.items()}
        except (TypeError, ValueError, orjson.JSONEncodeError):
            return False
        if any(text.count(token) != 1 for token in tokens.values()):
            return False
        order = sorted(tokens, key=lambda name: text.index(tokens[name]))
        pieces: list[str] = []
        rest = text
        for name in order:
            head, _, rest = rest.partition(tokens[name])
            pieces.append(head)
        pieces.append(rest)
        marker = previous[key]
        path = tuple(marker[MARK])
        full = (
            self.found[path]
            if path in self.found
            else self.found.setdefault(path, _at(self.response, marker[MARK]))
        )
        if not isinstance(full, str):
            raise TypeError("a '$n' marker points at no text")
        event_name = value.get("type")
        start = self.cursors.get(path, 0)
        fills: dict[str, str] = {}
        for index, n in enumerate(counts):
            if numbered:
                seq += 1
                fills[_SEQ] = str(seq)
            fills[key] = string(full[start : start + n])
            for name, values in vary.items():
                item = values[index]
                fills[name] = string(item) if isinstance(item, str) else render_event(item, self.layout)
            start += n
            data = pieces[0] + "".join(fills[part] + pieces[i + 1] for i, part in enumerate(order))
            self.out.append({"event": event_name, "data": data})
        self.cursors[path] = start
        last = dict(previous)
        last[key] = {**marker, _COUNT: counts[-1]}
        last.update({name: values[-1] for name, values in vary.items()})
        if numbered:
            last[_SEQ] = seq
        self.previous = last
        self.marked = [k for k in self.marked if k not in vary]
        return True


def _string_encoder(layout: str) -> Callable[[str], str]:
    """How `layout` writes one string (quotes included), as its encoder does inside an object."""
    if layout == "compact":
        return lambda text: orjson.dumps(text).decode("utf-8")
    encoder = _ENCODERS[layout]
    if encoder.ensure_ascii:
        return json.encoder.encode_basestring_ascii
    return json.encoder.encode_basestring


def _is_marker(part: Any) -> bool:
    return isinstance(part, dict) and MARK in part


def _apply_same(
    previous: dict[str, Any], marked: list[str], form: dict[str, Any]
) -> tuple[dict[str, Any], list[str]]:
    """The template of a `same` form, and its marked keys."""
    template = dict(previous)
    seq = template.get(_SEQ)
    if isinstance(seq, int) and not isinstance(seq, bool):
        template[_SEQ] = seq + 1
    same = form.get("same", {})
    if not isinstance(same, dict):
        raise TypeError("'same' is not an object")
    template.update(same)
    if same:
        marked = [key for key in marked if key not in same] + [k for k, v in same.items() if _is_marker(v)]
    if "n" in form:
        key = next((k for k in marked if _COUNT in previous.get(k, {})), None)
        if key is None or key in same:
            raise ValueError("'n' given for a template without a '$n' marker")
        template[key] = {**previous[key], _COUNT: form["n"]}
    return template, marked


def _resolve(
    part: dict[str, Any],
    response: Any,
    cursors: dict[tuple[Any, ...], int],
    found: dict[tuple[Any, ...], Any],
) -> Any:
    path = part[MARK]
    key = tuple(path)
    value = found[key] if key in found else found.setdefault(key, _at(response, path))
    if _COUNT in part:
        if not isinstance(value, str):
            raise TypeError("a '$n' marker points at no text")
        start = cursors.get(key, 0)
        cursors[key] = start + part[_COUNT]
        return value[start : start + part[_COUNT]]
    if _KEYS in part:
        replaced = part.get(_SET, {})
        return {k: replaced[k] if k in replaced else value[k] for k in part[_KEYS]}
    return value

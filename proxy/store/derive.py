"""SSE events derived from the stored response (format 1.2): most of a stream repeats its final response.

A Responses stream sends its text twice more than the response holds it (the deltas, then the `.done`
events), each output item twice (`output_item.done`, `response.completed`) and the response object
two or three times (`response.created`, `in_progress`, `completed`). `derive_stream` stores each event
as a *template*: the event object whose parts equal a part of the exchange's (stored, redacted)
`response` are markers pointing at it, and an event shaped like the one before it holds only what
changed. `rebuild.rebuild_stream` turns templates back into the `data` text, serialised in the stream's JSON
layout (compact as the API sends it, or spaced, ASCII-escaped ...).

The writer only keeps the derived form after `rebuild_stream` has given back every event's `data`
byte for byte; otherwise the stream is stored as before. Derived text comes from the stored response,
which is redacted like everything else, so nothing a redaction removed can come back.

The stored forms and markers are described in `sse_forms`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import orjson

from .format import loads
from .rebuild import rebuild_stream
from .sse_forms import (
    COUNT,
    KEYS,
    LAYOUTS,
    MARK,
    SEQ,
    SET,
    TEXT_FIELDS,
    exact_bytes,
    is_marker,
    render_event,
    value_at,
)

__all__ = ["derive_stream"]


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


def _style(data: str) -> str:
    """The JSON style an event's text looks written in, from its first characters (a guess that
    `_layouts_of` then checks)."""
    if data.startswith("{\n"):
        return "indent2"
    head = data[:48]
    return "spaced" if '": ' in head or '", "' in head else "compact"


def _stream_layouts(events: list[dict[str, Any]]) -> tuple[str, ...]:
    """The layouts of the style most of the stream's events are written in.

    A stream is written in one style, but the redactor re-serialises (compactly) an event it
    redacted something in: a spaced stream whose `response.created` echoed a secret must still be
    derived in its own style, not in the one its first event happens to have.
    """
    texts = (event.get("data", "") for event in events)
    styles = Counter(_style(text) for text in texts if text.startswith("{"))
    if not styles:
        return LAYOUTS
    style = styles.most_common(1)[0][0]
    return tuple(layout for layout in LAYOUTS if layout.split("-")[0] == style)


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
            return value_at(self.response, path)
        except (KeyError, IndexError, TypeError):
            return _Missing

    def _same(self, path: list[Any], value: Any) -> bool:
        found = self._lookup(path)
        if found is _Missing:
            return False
        mine = exact_bytes(value)
        return mine is not None and mine == exact_bytes(found)

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
        if key in TEXT_FIELDS and isinstance(value, str) and len(value) > 24:
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
        marker: dict[str, Any] = {MARK: [], KEYS: list(value)}
        if changed:
            marker[SET] = changed
        return marker

    def _slice(self, location: list[Any], delta: str) -> Any:
        for field in TEXT_FIELDS:
            text = self._lookup([*location, field])
            if not isinstance(text, str):
                continue
            path = [*location, field]
            start = self.cursors.get(tuple(path), 0)
            if text[start : start + len(delta)] == delta:
                self.cursors[tuple(path)] = start + len(delta)
                return {MARK: path, COUNT: len(delta)}
            return delta
        return delta


class _MissingType:
    pass


_Missing = _MissingType()


def _marked(template: dict[str, Any]) -> bool:
    return any(isinstance(value, dict) and MARK in value for value in template.values())


def _count_key(template: dict[str, Any]) -> str | None:
    for key, value in template.items():
        if isinstance(value, dict) and COUNT in value:
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
        if key == SEQ and isinstance(old, int) and not isinstance(old, bool):
            if not (type(value) is int and value == old + 1):
                changed[key] = value
            continue
        if (
            key == count_key
            and isinstance(value, dict)
            and COUNT in value
            and value.get(MARK) == old.get(MARK)
        ):
            count = value[COUNT]
            continue
        if value is old:
            continue
        # `==` first (cheap, but 1 == 1.0 == True); equal containers may differ in key order
        if type(value) is not type(old) or value != old:
            changed[key] = value
        elif isinstance(value, dict | list) and (
            exact_bytes(value) is None or exact_bytes(value) != exact_bytes(old)
        ):
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
    layouts = _stream_layouts(events)  # those every derived event so far is written in
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
    if any(is_marker(value) or key in (SEQ, "type") for key, value in same.items()):
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

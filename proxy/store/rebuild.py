"""Reading a format-1.2 SSE stream: the stored forms (see `sse_forms`) back to each event's `data`.

A template's markers are resolved against the exchange's stored response and the event is written in
the stream's JSON layout; a run of deltas is rendered once with placeholders and filled per event
(JSON text is compositional, and strings are written by the layout's own encoder).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import orjson

from .sse_forms import COUNT, ENCODERS, KEYS, MARK, SEQ, SET, is_marker, render_event, value_at

__all__ = ["rebuild_stream"]


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
        if layout != "compact" and layout not in ENCODERS:
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
            self.marked = [key for key, part in template.items() if is_marker(part)]
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
        counting = [k for k in self.marked if COUNT in previous.get(k, {})]
        if len(counting) != 1 or self.layout.startswith("indent"):
            return False
        key = counting[0]
        if (
            key in vary
            or SEQ in vary
            or "type" in vary
            or any(is_marker(v) for values in vary.values() for v in values)
        ):
            return False
        numbered = type(previous.get(SEQ)) is int
        seq: int = previous[SEQ] if numbered else 0
        value = dict(previous)
        for other in self.marked:
            if other != key and other not in vary:
                value[other] = _resolve(previous[other], self.response, self.cursors, self.found)
        string = _string_encoder(self.layout)
        holes = {name: f"\x00\x01{n}\x00" for n, name in enumerate([key, *vary])}
        if numbered:
            holes[SEQ] = "\x00\x01seq\x00"
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
            else self.found.setdefault(path, value_at(self.response, marker[MARK]))
        )
        if not isinstance(full, str):
            raise TypeError("a '$n' marker points at no text")
        event_name = value.get("type")
        start = self.cursors.get(path, 0)
        fills: dict[str, str] = {}
        for index, n in enumerate(counts):
            if numbered:
                seq += 1
                fills[SEQ] = str(seq)
            fills[key] = string(full[start : start + n])
            for name, values in vary.items():
                item = values[index]
                fills[name] = string(item) if isinstance(item, str) else render_event(item, self.layout)
            start += n
            data = pieces[0] + "".join(fills[part] + pieces[i + 1] for i, part in enumerate(order))
            self.out.append({"event": event_name, "data": data})
        self.cursors[path] = start
        last = dict(previous)
        last[key] = {**marker, COUNT: counts[-1]}
        last.update({name: values[-1] for name, values in vary.items()})
        if numbered:
            last[SEQ] = seq
        self.previous = last
        self.marked = [k for k in self.marked if k not in vary]
        return True


def _string_encoder(layout: str) -> Callable[[str], str]:
    """How `layout` writes one string (quotes included), as its encoder does inside an object."""
    if layout == "compact":
        return lambda text: orjson.dumps(text).decode("utf-8")
    encoder = ENCODERS[layout]
    if encoder.ensure_ascii:
        return json.encoder.encode_basestring_ascii
    return json.encoder.encode_basestring


def _apply_same(
    previous: dict[str, Any], marked: list[str], form: dict[str, Any]
) -> tuple[dict[str, Any], list[str]]:
    """The template of a `same` form, and its marked keys."""
    template = dict(previous)
    seq = template.get(SEQ)
    if isinstance(seq, int) and not isinstance(seq, bool):
        template[SEQ] = seq + 1
    same = form.get("same", {})
    if not isinstance(same, dict):
        raise TypeError("'same' is not an object")
    template.update(same)
    if same:
        marked = [key for key in marked if key not in same] + [k for k, v in same.items() if is_marker(v)]
    if "n" in form:
        key = next((k for k in marked if COUNT in previous.get(k, {})), None)
        if key is None or key in same:
            raise ValueError("'n' given for a template without a '$n' marker")
        template[key] = {**previous[key], COUNT: form["n"]}
    return template, marked


def _resolve(
    part: dict[str, Any],
    response: Any,
    cursors: dict[tuple[Any, ...], int],
    found: dict[tuple[Any, ...], Any],
) -> Any:
    path = part[MARK]
    key = tuple(path)
    value = found[key] if key in found else found.setdefault(key, value_at(response, path))
    if COUNT in part:
        if not isinstance(value, str):
            raise TypeError("a '$n' marker points at no text")
        start = cursors.get(key, 0)
        cursors[key] = start + part[COUNT]
        return value[start : start + part[COUNT]]
    if KEYS in part:
        replaced = part.get(SET, {})
        return {k: replaced[k] if k in replaced else value[k] for k in part[KEYS]}
    return value

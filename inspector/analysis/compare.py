"""Backend comparison: two recordings of the same task (API key vs ChatGPT OAuth, harness vs Codex
CLI) aligned turn by turn — endpoint, headers (already redacted), request defaults, instructions,
tools, items, transport and usage.

Both sides are normalised as strict replay normalises a live request against a recorded one (one
definition: `ctxscope.proxy.replay.normalise.Normaliser` with a `paths.PathMap` learned from each aligned
pair): paths under the recorded roots (the checkout, CODEX_HOME and its skill roots), temp dirs, item
and call ids, uuids, dates, versions and volatile metadata, so two runs of one task on two machines
compare as the same context. `Comparison.normalised` says what was normalised; `raw=True` compares
the bodies as sent. `thread="T1"` (or `"T1:T2"`, A's thread then B's) compares one
thread of each recording. A difference that every aligned pair shows the same way (the endpoint of
an API-key run against a ChatGPT run) is named once in `Comparison.repeated`, and when the pairs
differ in nothing else, `Comparison.identical_apart_from` lists those fields.
"""

from __future__ import annotations

import difflib
import json
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any
from urllib.parse import urlsplit

from ctxscope.inspector.analysis.alignment import align_turn_rows
from ctxscope.inspector.analysis.analyse import Analysis, TurnAnalysis
from ctxscope.inspector.analysis.diffs import (
    IN_BAND_ITEM_TYPES,
    PARAM_KEYS,
    ToolDiff,
    effective_tools,
    instructions_diff,
    params_diff,
    tools_diff,
)
from ctxscope.inspector.analysis.instructions import BASE_PROMPT_KIND, effective_instructions
from ctxscope.inspector.analysis.items import Item
from ctxscope.inspector.analysis.normalise import cross_run, strip_item_ids
from ctxscope.inspector.analysis.structure import structural_differences
from ctxscope.inspector.analysis.threads import Thread
from ctxscope.inspector.analysis.turns import Turn
from ctxscope.proxy.errors import ConfigError
from ctxscope.proxy.replay.paths import PathMap
from ctxscope.proxy.replay.tool_diff import line_diff
from ctxscope.proxy.responses.vocabulary import PER_REQUEST_HEADERS, THREAD_HEADERS
from ctxscope.proxy.store import SharedInput

__all__ = [
    "DIFFERENCE_FIELDS",
    "DIFF_LINES",
    "Comparison",
    "FragmentDiff",
    "TurnComparison",
    "Verdict",
    "compare_analyses",
]

DIFFERENCE_FIELDS = (
    "endpoint",
    "transport",
    "status",
    "headers",
    "params",
    "body_keys",
    "instructions_diff",
    "tools",
    "items_diff",
    "fragments_diff",
)
"""What a pair of turns can differ in, named as the keys of a report's pair document."""

DIFF_LINES = 40
"""Changed lines kept per differing fragment (the count of the rest is said)."""

_PREVIEW = 40
"""Characters of normalised text that stand for an item cut short in the layout diff."""


class Verdict(StrEnum):
    """One verdict per aligned pair, the same in `compare` text, JSON and the TUI compare screen."""

    SAME = "same"
    """Equal after normalisation: every item, fragment text, tool and setting."""
    SAME_APART = "same_apart"
    """Differs only in what every aligned pair differs in, the same way (said once, above)."""
    DIFFERS = "differs"
    ONLY_A = "only_a"
    ONLY_B = "only_b"


@dataclass(frozen=True)
class FragmentDiff:
    """A context fragment (or plain item) at the same place on both sides whose text differs."""

    name: str
    """The fragment's label as normalised (`permissions`, `agents_md:<cwd>`), or the item's."""
    a_item: int
    """Its position in A's input[]."""
    b_item: int
    """Its position in B's input[]."""
    diff: tuple[str, ...]
    """The changed lines of the normalised texts (`- ` A's, `+ ` B's), at most `DIFF_LINES`."""
    more: int = 0
    """Changed lines left out."""


# Headers that differ on every request whatever the backend: not a difference worth showing.
_NOISY_HEADERS = PER_REQUEST_HEADERS | set(THREAD_HEADERS) | {"host"}


@dataclass
class TurnComparison:
    """Row `index` of the alignment: how turn `a` differs from turn `b` (None: no counterpart)."""

    index: int
    a: TurnAnalysis | None
    b: TurnAnalysis | None
    endpoint: tuple[str, str] | None = None
    transport: tuple[str, str] | None = None
    headers_only_a: list[str] = field(default_factory=list)
    headers_only_b: list[str] = field(default_factory=list)
    headers_changed: dict[str, tuple[str, str]] = field(default_factory=dict)
    params: dict[str, tuple[Any, Any]] = field(default_factory=dict)
    body_keys_only_a: list[str] = field(default_factory=list)
    body_keys_only_b: list[str] = field(default_factory=list)
    instructions: list[str] = field(default_factory=list)
    tools: ToolDiff = field(default_factory=ToolDiff)
    items: list[str] = field(default_factory=list)
    """Layout diff lines (`- label`, `+ label`) of the normalised item labels."""
    usage: dict[str, tuple[int | None, int | None]] = field(default_factory=dict)
    status: tuple[str, str] | None = None
    structure: list[str] = field(default_factory=list)
    """Structural differences (`structure.structural_differences`); empty: the same structure."""
    fragments: list[FragmentDiff] = field(default_factory=list)
    """Items at the same place (same normalised label) whose content differs: named, with a diff."""
    verdict: Verdict = Verdict.DIFFERS
    """Set by `compare_analyses` once the differences all pairs share are known."""

    @property
    def same_structure(self) -> bool:
        """True when both sides exist and differ only in wording and values (`structure.ALLOWED`)."""
        return self.a is not None and self.b is not None and not self.structure

    def differences(self) -> dict[str, Any]:
        """What differs, by field (`DIFFERENCE_FIELDS`, in that order); two pairs that differ the same
        way in a field have equal values for it. Empty when nothing but volatile values differ."""
        headers = (self.headers_only_a, self.headers_only_b, self.headers_changed)
        body_keys = (self.body_keys_only_a, self.body_keys_only_b)
        found: dict[str, Any] = {
            "endpoint": self.endpoint,
            "transport": self.transport,
            "status": self.status,
            "headers": headers if any(headers) else None,
            "params": self.params or None,
            "body_keys": body_keys if any(body_keys) else None,
            "instructions_diff": self.instructions or None,
            "tools": None if self.tools.empty else self.tools,
            "items_diff": self.items or None,
            "fragments_diff": self.fragments or None,
        }
        return {name: value for name, value in found.items() if value is not None}

    @property
    def same(self) -> bool:
        """True when nothing but volatile values differ."""
        return self.a is not None and self.b is not None and not self.differences()


@dataclass
class Comparison:
    """Two analysed recordings side by side."""

    a: Analysis
    b: Analysis
    turns: list[TurnComparison]
    notes: list[str] = field(default_factory=list)
    """Remarks about the pair as a whole (e.g. the tasks look different)."""
    threads: tuple[str, str] | None = None
    """The threads compared (report names, A's then B's); None: the whole recordings."""
    compared: tuple[int, int] = (0, 0)
    """How many turns of A and of B were compared (all, or the chosen threads')."""
    repeated: list[str] = field(default_factory=list)
    """Fields (`DIFFERENCE_FIELDS`) in which every aligned pair differs, the same way in each; only
    for two or more aligned pairs (a repetition to summarise)."""
    identical_apart_from: list[str] | None = None
    """`repeated`, when the aligned pairs differ in nothing else; None otherwise."""
    normalised: list[str] = field(default_factory=list)
    """What was normalised before comparing, one phrase each (`the checkout: A /a/w ↔ B /b/w`, `temp
    dirs`, `call ids`); empty with `raw`."""
    raw: bool = False
    """Compared as sent, nothing normalised (`compare --raw`)."""


def _repeated(pairs: list[TurnComparison]) -> list[str]:
    """Fields in which every pair with both sides differs, the same way in each (two pairs or more)."""
    found = [p.differences() for p in pairs if p.a is not None and p.b is not None]
    if len(found) < 2:
        return []
    first = found[0]
    return [name for name in first if all(d.get(name) == first[name] for d in found[1:])]


def _endpoint(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}{parts.path}"


def _headers(headers: dict[str, str]) -> dict[str, str]:
    return {k.lower(): v for k, v in headers.items() if k.lower() not in _NOISY_HEADERS}


def _without_input(body: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in body.items() if key != "input"}


def _in_band(turn: Turn, norm: Any) -> list[Any]:
    """The turn's in-band tool and parameter items (`additional_tools`, `configuration_update`),
    normalised as its body is."""
    return [
        norm.body(i) for i in turn.raw_input if isinstance(i, dict) and i.get("type") in IN_BAND_ITEM_TYPES
    ]


def _pair(
    index: int,
    a: TurnAnalysis | None,
    b: TurnAnalysis | None,
    norm_a: Any,
    norm_b: Any,
    texts: tuple[_ItemTexts, _ItemTexts],
) -> TurnComparison:
    result = TurnComparison(index, a, b)
    if a is None or b is None:
        return result
    ta, tb = a.turn, b.turn
    if _endpoint(ta.exchange.url) != _endpoint(tb.exchange.url):
        result.endpoint = (_endpoint(ta.exchange.url), _endpoint(tb.exchange.url))
    if ta.transport != tb.transport:
        result.transport = (ta.transport, tb.transport)
    ha, hb = _headers(ta.exchange.request_headers), _headers(tb.exchange.request_headers)
    result.headers_only_a = sorted(set(ha) - set(hb))
    result.headers_only_b = sorted(set(hb) - set(ha))
    for name in sorted(set(ha) & set(hb)):
        va, vb = norm_a.text(ha[name]), norm_b.text(hb[name])
        if va != vb:
            result.headers_changed[name] = (ha[name], hb[name])
    # input[] is compared item by item below (cached per item): normalising it again inside each
    # whole body made a comparison quadratic in the session's length.
    ba, bb = norm_a.body(_without_input(ta.body)), norm_b.body(_without_input(tb.body))
    in_band_a, in_band_b = _in_band(ta, norm_a), _in_band(tb, norm_b)
    result.params = params_diff(ba, bb, in_band_a, in_band_b)
    ignore = {"input", "instructions", "tools", *PARAM_KEYS}  # those are compared above
    result.body_keys_only_a = sorted(set(ba) - set(bb) - ignore)
    result.body_keys_only_b = sorted(set(bb) - set(ba) - ignore)
    # Wherever each side sends its base prompt (field, input[0], model switch), compare the texts.
    result.instructions = instructions_diff(
        norm_a.text(effective_instructions(ta.body, ta.items)),
        norm_b.text(effective_instructions(tb.body, tb.items)),
    )
    result.tools = tools_diff(
        effective_tools(ba, in_band_a), effective_tools(bb, in_band_b)
    )
    labels_a = [texts[0].layout_label(i) for i in ta.items]
    labels_b = [texts[1].layout_label(i) for i in tb.items]
    if labels_a != labels_b:
        result.items = [line for line in difflib.ndiff(labels_a, labels_b) if line[:1] in "+-"]
    result.fragments = _content_diffs(ta.items, tb.items, labels_a, labels_b, texts[0], texts[1])
    for key in ("input_tokens", "cached_tokens", "output_tokens"):
        result.usage[key] = (a.tokens.usage.get(key), b.tokens.usage.get(key))
    if ta.status != tb.status:
        result.status = (ta.status, tb.status)
    result.structure = structural_differences(
        a, b, texts[0].label, texts[1].label, memos=(texts[0].layout, texts[1].layout)
    )
    return result


class _ItemTexts:
    """(name, normalised text) of each part of a message, or of a whole other item (its JSON), for
    one side; cached by item key, since the turns of one recording share most of their items."""

    def __init__(self, normaliser: Any) -> None:
        self.normaliser = normaliser
        self._cache: dict[str, list[tuple[str, str]]] = {}
        self._labels: dict[str, str] = {}
        self._layouts: dict[str, str] = {}
        self.layout: dict[str, str | None] = {}
        """`structure.layout`'s memo for this side."""

    def label(self, label: str) -> str:
        """A label normalised (labels repeat every turn: each is normalised once)."""
        hit = self._labels.get(label)
        if hit is None:
            hit = self._labels[label] = self.normaliser.text(label)
        return hit

    def layout_label(self, item: Item) -> str:
        """The item's label normalised, for the layout diff. A label cut short (`…`) was cut before
        normalising, at a place that moves with the length of a path it holds; its preview is made
        again from the normalised text, so two checkouts cut it alike."""
        hit = self._layouts.get(item.key)
        if hit is not None:
            return hit
        label = self.label(item.label)
        if "…" in label and not item.parts:
            head = label.split(":", 1)[0] if ":" in label else item.kind
            text = " ".join("\n".join(t for _, t in self(item)).split())
            label = f"{head}: {text[:_PREVIEW]}"
        self._layouts[item.key] = label
        return label

    def __call__(self, item: Item) -> list[tuple[str, str]]:
        hit = self._cache.get(item.key)
        if hit is not None:
            return hit
        norm = self.normaliser
        if item.parts:
            texts = [(norm.text(p.label), norm.text(p.text)) for p in item.parts]
        else:
            raw = json.dumps(
                strip_item_ids(item.raw), sort_keys=True, ensure_ascii=False, indent=1, default=str
            )
            texts = [(norm.text(item.label), norm.text(raw))]
        self._cache[item.key] = texts
        return texts


def _line_diff(a: str, b: str) -> tuple[tuple[str, ...], int]:
    """The changed lines (`tool_diff.line_diff`, the one line diff of fragments and tools), capped."""
    changed = line_diff(a, b)
    return tuple(changed[:DIFF_LINES]), max(len(changed) - DIFF_LINES, 0)


def _content_diffs(
    items_a: Sequence[Item],
    items_b: Sequence[Item],
    labels_a: list[str],
    labels_b: list[str],
    texts_a: _ItemTexts,
    texts_b: _ItemTexts,
) -> list[FragmentDiff]:
    """Items the layout diff pairs up (same normalised label) whose normalised content differs, part
    by part: a changed permissions text or one more AGENTS.md line is named with its diff. The base
    prompt is left to `instructions_diff`."""
    found: list[FragmentDiff] = []
    opcodes: Sequence[tuple[str, int, int, int, int]]
    if labels_a == labels_b:  # the usual case: one stretch, no matching to do
        opcodes = [("equal", 0, len(labels_a), 0, len(labels_b))]
    else:
        opcodes = difflib.SequenceMatcher(None, labels_a, labels_b, autojunk=False).get_opcodes()
    for tag, a0, a1, b0, _ in opcodes:
        if tag != "equal":
            continue
        for offset in range(a1 - a0):
            ia, ib = items_a[a0 + offset], items_b[b0 + offset]
            if ia.kind == BASE_PROMPT_KIND or ia.key == ib.key:
                continue
            parts_a, parts_b = texts_a(ia), texts_b(ib)
            if parts_a == parts_b:
                continue
            if len(parts_a) != len(parts_b):
                parts_a = [(labels_a[a0 + offset], "\n".join(t for _, t in parts_a))]
                parts_b = [(labels_b[b0 + offset], "\n".join(t for _, t in parts_b))]
            for (name, text_a), (_, text_b) in zip(parts_a, parts_b, strict=True):
                if text_a != text_b:
                    diff, more = _line_diff(text_a, text_b)
                    found.append(FragmentDiff(name, ia.position, ib.position, diff, more))
    return found


def _first_request(turns: list[TurnAnalysis], normaliser: Any) -> str | None:
    for result in turns:
        for item in result.turn.items:
            if item.kind == "user_message":
                return str(normaliser.text(item.text))
    return None


def _task_note(a: list[TurnAnalysis], b: list[TurnAnalysis], norm_a: Any, norm_b: Any) -> list[str]:
    first_a, first_b = _first_request(a, norm_a), _first_request(b, norm_b)
    if first_a is None or first_b is None or first_a == first_b:
        return []
    return [
        f"the first user messages differ ({_quote(first_a)} vs {_quote(first_b)}): these may be "
        "recordings of different tasks, so their turns differ as a whole"
    ]


def _quote(text: str, limit: int = 40) -> str:
    flat = " ".join(text.split())
    return json.dumps(flat if len(flat) <= limit else flat[: limit - 1] + "…", ensure_ascii=False)


def _chosen_threads(spec: str, a: Analysis, b: Analysis) -> tuple[Thread, Thread]:
    """`T1` (the same name or id in both) or `T1:T2` (A's thread, then B's), as `diff --thread` names
    threads; an unknown one is a one-line error naming the recording and its threads."""
    known_a = any(spec in (t.name, t.hint) for t in a.threads)
    name_a, _, name_b = (spec, "", spec) if known_a or ":" not in spec else spec.partition(":")
    chosen = []
    for side, analysis, name in (("A", a, name_a), ("B", b, name_b)):
        try:
            chosen.append(analysis.thread(name))
        except ConfigError as err:
            raise ConfigError(f"recording {side} ({analysis.source}): {err}") from err
    return chosen[0], chosen[1]


def _verdict(pair: TurnComparison, repeated: list[str]) -> Verdict:
    if pair.a is None:
        return Verdict.ONLY_B
    if pair.b is None:
        return Verdict.ONLY_A
    differences = set(pair.differences())
    if not differences:
        return Verdict.SAME
    return Verdict.SAME_APART if differences <= set(repeated) else Verdict.DIFFERS


class _AsSent:
    """The normaliser of `compare --raw`: every value as sent."""

    def text(self, value: str) -> str:
        return value

    def body(self, value: Any) -> Any:
        return value


_PLACEHOLDER = re.compile(r"<(id:[a-z]+|uuid|hex|datetime|date|tmp|cwd|root\d*|home\d*|mapped\d*|[a-z_.-]+)>")
_KIND_WORDS = {
    "uuid": "uuids",
    "hex": "commit hashes",
    "datetime": "times",
    "date": "dates",
    "tmp": "temp dirs",
    "version": "client versions",
}


def _placeholders(text: str) -> Counter[str]:
    return Counter(m.group(1) for m in _PLACEHOLDER.finditer(text))


_Side = tuple[dict[str, Any], TurnAnalysis]
"""A compared turn and what its request adds to its side (`_fresh`)."""


def _normalised_phrases(pairs: list[tuple[_Side, _Side]], norms: tuple[Any, Any], paths: PathMap) -> list[str]:
    """What normalising changed in the compared requests, one phrase each: the path pairs, and each
    kind of placeholder that normalising wrote (a `<cwd>` the text held already does not count)."""
    phrases: list[str] = []
    live_of = {placeholder: live for live, placeholder in paths.live.items()}
    for recorded, placeholder in paths.recorded.items():
        phrases.append(f"paths under A {recorded} ↔ B {live_of.get(placeholder, '?')} ({placeholder})")
    for side, norm in zip("AB", norms, strict=True):
        if norm.cwds:
            phrases.append(f"{side}'s working directory {', '.join(sorted(norm.cwds))} (<cwd>)")
    written: Counter[str] = Counter()
    for pair in pairs:
        for (fresh, result), norm in zip(pair, norms, strict=True):
            for value in (fresh, result.turn.exchange.request_headers):
                raw = json.dumps(value, ensure_ascii=False, default=str)
                after = json.dumps(norm.body(value), ensure_ascii=False, default=str)
                written += _placeholders(after) - _placeholders(raw)
    ids = sorted(k.removeprefix("id:") for k in written if k.startswith("id:"))
    if ids:
        phrases.append(f"ids ({', '.join(ids)})")
    for kind, words in _KIND_WORDS.items():
        if written.get(kind):
            phrases.append(words)
    known = {"cwd", *_KIND_WORDS} | {k for k in written if k.startswith(("id:", "root", "home", "mapped"))}
    volatile = sorted(k for k in written if k not in known and k != "ignored")
    if volatile:
        phrases.append(f"volatile metadata ({', '.join(volatile)})")
    return phrases


def _fresh(body: dict[str, Any], seen: set[int]) -> dict[str, Any]:
    """What `body` holds that an earlier body of its side did not: its values and input items that are
    not the very objects seen before (the reader shares one object per stored part, so a session's
    tools and history are one object each). Learning paths and naming what was normalised over only
    this stays linear in the session's length, as `cross_run` does."""
    out: dict[str, Any] = {}
    for key, value in body.items():
        if key == "input" and isinstance(value, list | SharedInput):
            ids = list(map(id, value))
            out[key] = [item for item, ident in zip(value, ids, strict=True) if ident not in seen]
            seen.update(ids)
        elif id(value) not in seen or not isinstance(value, dict | list | str):
            out[key] = value
            seen.add(id(value))
    return out


def _fresh_views(rows: Sequence[TurnAnalysis]) -> list[dict[str, Any]]:
    """`_fresh` of each row's request body, in order."""
    seen: set[int] = set()
    return [_fresh(row.turn.body, seen) for row in rows]


def _header_cwd(analysis: Analysis) -> str | None:
    """The working directory the capture ran in (header meta `cwd`), as replay reads a cassette's."""
    cwd = analysis.header.meta.get("cwd") if analysis.header is not None else None
    return cwd if isinstance(cwd, str) else None


def compare_analyses(
    a: Analysis, b: Analysis, *, thread: str | None = None, raw: bool = False
) -> Comparison:
    """Align the model requests of two recordings by fingerprint (`alignment`) and compare each pair;
    a turn with no counterpart is a pair with one side None. `thread` limits each side to one thread
    (`T1`, or `T1:T2` for A's T1 against B's T2); turn numbers stay the recordings'. Each side is
    normalised as strict replay normalises (see the module docstring), or not at all with `raw`."""
    rows_a, rows_b, threads = a.turns, b.turns, None
    if thread is not None:
        thread_a, thread_b = _chosen_threads(thread, a, b)
        rows_a = [r for r in a.turns if r.turn.thread == thread_a.name]
        rows_b = [r for r in b.turns if r.turn.thread == thread_b.name]
        threads = (thread_a.name, thread_b.name)
    norm_a: Any
    norm_b: Any
    phrases: list[str] = []
    learned = cross_run([t.turn.body for t in rows_a]), cross_run([t.turn.body for t in rows_b])
    aligned = align_turn_rows(rows_a, rows_b, learned)
    if raw:
        norm_a = norm_b = _AsSent()
    else:
        norm_a, norm_b = learned
        # Strict replay's path map, learned from each aligned pair as a replay learns from each request
        # against its recorded one: A stands for the recording, B for the live side.
        paths = PathMap()
        # Each row's request as what it adds to its side (`_fresh`), once: learning and naming stay linear.
        fresh_a, fresh_b = _fresh_views(rows_a), _fresh_views(rows_b)
        # Only turns whose fingerprints match are the same step of the same task: a pair made up by
        # position (`matched=False`) may be two unrelated requests, whose paths stand for nothing.
        cwd_a, cwd_b = (_header_cwd(x) for x in (a, b))
        for p in aligned:
            if p.matched and p.a is not None and p.b is not None:
                paths.learn(fresh_a[p.a], fresh_b[p.b], cwd_a, cwd_b)
        norm_a.roots, norm_b.roots = paths.recorded, paths.live
        both = [
            ((fresh_a[p.a], rows_a[p.a]), (fresh_b[p.b], rows_b[p.b]))
            for p in aligned
            if p.a is not None and p.b is not None
        ]
        phrases = _normalised_phrases(both, (norm_a, norm_b), paths)
    texts = (_ItemTexts(norm_a), _ItemTexts(norm_b))
    pairs = [
        _pair(
            index,
            rows_a[p.a] if p.a is not None else None,
            rows_b[p.b] if p.b is not None else None,
            norm_a,
            norm_b,
            texts,
        )
        for index, p in enumerate(aligned, start=1)
    ]
    repeated = _repeated(pairs)
    for pair in pairs:
        pair.verdict = _verdict(pair, repeated)
    apart_from = (
        repeated
        if repeated
        and all(set(p.differences()) == set(repeated) for p in pairs if p.a is not None and p.b is not None)
        else None
    )
    return Comparison(
        a,
        b,
        pairs,
        _task_note(rows_a, rows_b, norm_a, norm_b),
        threads=threads,
        compared=(len(rows_a), len(rows_b)),
        repeated=repeated,
        identical_apart_from=apart_from,
        normalised=phrases,
        raw=raw,
    )

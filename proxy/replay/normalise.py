"""Normalisation of volatile values, so a live request can be compared with a recorded one.

Two requests from the same client doing the same thing differ in values that say nothing about the
context sent to the model: item ids (`msg_…`, `rs_…`, `fc_…`), uuids, timestamps and dates, temporary
directories, the checkout the client ran in, session/thread/turn ids (also inside JSON-in-string
metadata such as `client_metadata["x-codex-turn-metadata"]`), `prompt_cache_key`, installation ids,
client versions and redaction placeholders. `Normaliser.body()` rewrites all of them to fixed
placeholders (`<id:msg>`, `<uuid>`, `<cwd>`, `<tmp>`, `<date>`, ...). Each side of a comparison gets its
own `Normaliser`, because each side has its own working directory.

JSON-in-string values (a string holding a JSON object or array, e.g. function-call `arguments` or Codex
turn metadata) are parsed and normalised as structures, so differences are reported inside them.
User-given JSON paths (`--ignore`) are replaced by `"<ignored>"` after normalisation.
"""

from __future__ import annotations

import json
import re
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ctxscope.proxy.responses.vocabulary import CodexHeader, MetadataKey

__all__ = ["Normaliser", "find_cwds", "parse_json_path", "IGNORED"]

IGNORED = "<ignored>"

# Keys whose value is volatile wherever they appear (body, client_metadata, JSON-in-string metadata).
_VOLATILE_KEYS = frozenset(
    {
        "prompt_cache_key",
        MetadataKey.SESSION_ID.value,
        CodexHeader.SESSION.value,
        MetadataKey.THREAD_ID.value,
        CodexHeader.THREAD.value,
        "turn_id",
        "conversation_id",
        "installation_id",
        CodexHeader.INSTALLATION_ID.value,
        CodexHeader.CLIENT_REQUEST_ID.value,
        "request_id",
        "created_at",
        "timestamp",
        "started_at",
        "user_agent",
        # Codex 0.169 over the WebSocket: when the frame was sent (epoch ms, in `client_metadata`) and
        # when each message was made (epoch s, in `internal_chat_message_metadata_passthrough`).
        CodexHeader.WS_REQUEST_START.value,
        "create_time",
    }
)
_VERSION_KEY_RE = re.compile(r"(^|[_-])version$", re.IGNORECASE)
# Moments in time: `created_at`, `turn_started_at_unix_ms`, `started_at_ms`, `*_timestamp`, `*_unix`.
_TIME_KEY_RE = re.compile(r"(^|[_-])(at|timestamp|unix|epoch)([_-](unix|ms|s|secs|seconds))*$", re.IGNORECASE)
_WINDOW_KEYS = frozenset({CodexHeader.WINDOW_ID.value, "window_id"})

# Temp locations: a pytest tmp dir counts as a whole, otherwise the first directory under the root.
_TMP_RE = re.compile(
    r"(?:/private)?/(?:var/)?tmp/(?:pytest-of-[^/\s\"'<>]+/pytest-\d+/[^/\s\"'<>]+|[^/\s\"'<>]+)"
    r"|/var/folders/[^/\s]+/[^/\s]+/T/[^/\s\"'<>]+"
)
_REDACTED_RE = re.compile(r"<redacted:([a-z_]+):(?:\d+|[0-9a-f]{6})>")
_ID_RE = re.compile(
    r"\b(msg|rs|fc|fco|ctc|ctco|cc|resp|call|ws|lsh|ig|cmp|comp|item|sess|conv|turn|req|ci|mcp|tc|wsc)"
    r"_(?=[A-Za-z0-9-]*\d)[A-Za-z0-9-]{4,}\b"
)
_UUID_RE = re.compile(r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b")
_HEX_RE = re.compile(r"\b[0-9a-f]{40}\b")  # git commit hashes in turn metadata
_DATETIME_RE = re.compile(r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?\b")
_DATE_RE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
_CLIENT_VERSION_RE = re.compile(r"\b([A-Za-z][\w.-]*)/v?\d+\.\d+(?:\.\d+)*(?:[-+][\w.]+)?")
# Codex tool-output and context details that change run to run.
_TEXT_RULES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"<current_date>[^<]*</current_date>"), "<current_date><date></current_date>"),
    (re.compile(r"<timezone>[^<]*</timezone>"), "<timezone><tz></timezone>"),
    (re.compile(r"Wall time: [\d.]+ ?\w*"), "Wall time: <n>"),
    (re.compile(r"Chunk ID: \w+"), "Chunk ID: <id>"),
    (re.compile(r"Duration: [\d.]+ ?(?:ms|s|seconds)\b"), "Duration: <n>"),
    # Counted over the output, whose paths differ in length between checkouts; the output is compared.
    (re.compile(r"Original token count: \d+"), "Original token count: <n>"),
)
_TEXT_RULES_HINT = re.compile(
    r"<current_date>|<timezone>|Wall time: |Chunk ID: |Duration: |Original token count: "
)
_DIGIT_RE = re.compile(r"\d")
_CACHE_SIZE = 50_000
_CWD_TAG_RE = re.compile(r"<cwd>([^<]+)</cwd>")
_PATH_TAIL = r"(?![\w.-])"  # a path ends where a path character does not follow


def find_cwds(value: Any) -> set[str]:
    """Working directories a request names: `<cwd>…</cwd>` in text and `cwd` keys in (JSON-in-)strings."""
    found: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key, child in node.items():
                if key == "cwd" and isinstance(child, str) and child.startswith("/"):
                    found.add(child.rstrip("/") or "/")
                walk(child)
        elif isinstance(node, list):
            for child in node:
                walk(child)
        elif isinstance(node, str):
            for match in _CWD_TAG_RE.finditer(node):
                path = match.group(1).strip().rstrip("/")
                if path.startswith("/") and path != "":
                    found.add(path)
            parsed = _maybe_json(node)
            if parsed is not None:
                walk(parsed)

    walk(value)
    found.discard("/")  # replacing "/" everywhere would erase every path
    return found


def parse_json_path(path: str) -> list[str | int]:
    """`a.b[2].c`, `input[*].id`, `$.x`, `client_metadata["x.y"]` → segments (`*` matches any key/index)."""
    text = path.strip()
    if text.startswith("$"):
        text = text[1:].lstrip(".")
    segments: list[str | int] = []
    pos = 0
    token = re.compile(r"\.?([^.\[\]]+)|\[(\d+|\*)\]|\[\"([^\"]*)\"\]|\['([^']*)'\]")
    while pos < len(text):
        match = token.match(text, pos)
        if match is None:
            raise ValueError(f"cannot read JSON path {path!r} at position {pos}")
        name, index, dq, sq = match.groups()
        if name is not None:
            segments.append(name)
        elif index is not None:
            segments.append("*" if index == "*" else int(index))
        else:
            segments.append(dq if dq is not None else sq)
        pos = match.end()
    if not segments:
        raise ValueError(f"empty JSON path {path!r}")
    return segments


def _maybe_json(text: str) -> Any:
    """The parsed value of a string holding a JSON object or array, else None."""
    stripped = text.strip()
    if len(stripped) < 2 or stripped[0] not in "{[" or stripped[-1] not in "}]":
        return None
    try:
        parsed = json.loads(stripped)
    except ValueError:
        return None
    return parsed if isinstance(parsed, dict | list) else None


@dataclass
class Normaliser:
    """Rewrites the volatile values of one side (recorded or live) of a comparison."""

    cwds: set[str] = field(default_factory=set)
    """Working directories of this side; each becomes `<cwd>` (longest first)."""
    ignore: tuple[str, ...] = ()
    """User JSON paths replaced by `<ignored>` after normalisation (also where only one side has them)."""
    roots: dict[str, str] = field(default_factory=dict)
    """Directory prefixes of this side → the placeholder shared with the other side (see `paths.PathMap`);
    every path under a prefix keeps its tail (`/a/w/repo/pkg` → `<root>/repo/pkg`)."""
    keep_placeholders: bool = False
    """Keep redaction placeholders' numbers (replay binds them as variables, see `PlaceholderBinding`);
    by default `<redacted:KIND:N>` becomes `<redacted:KIND>`, for comparing two recordings."""

    def __post_init__(self) -> None:
        self._ignore_paths = [parse_json_path(p) for p in self.ignore]
        self._cwd_re: re.Pattern[str] | None = None
        self._cwd_key: tuple[object, ...] = ()
        self._replacements: dict[str, str] = {}
        self._cache_key: tuple[object, ...] = ()
        self._cache: dict[str, str] = {}
        temp_root = tempfile.gettempdir().rstrip("/")
        extra = [] if temp_root in ("/tmp", "/var/tmp", "") else [re.escape(temp_root) + r"/[^/\s\"'<>]+"]
        self._tmp_re = re.compile("|".join([_TMP_RE.pattern, *extra]))

    def learn(self, body: Any) -> None:
        """Add the working directories `body` names to this side's set."""
        self.cwds |= find_cwds(body)

    def body(self, value: Any) -> Any:
        """A normalised deep copy of a JSON value."""
        out = self._value(value, key=None)
        for segments in self._ignore_paths:
            out = _replace_path(out, segments)
        return out

    def text(self, value: str) -> str:
        """Normalise one string (paths, ids, dates, versions, placeholders)."""
        # Requests repeat their whole history every turn: the same strings come back again and again.
        key = (*sorted(self.cwds), *sorted(self.roots.items()))
        if key != self._cache_key:
            self._cache_key, self._cache = key, {}
        cached = self._cache.get(value)
        if cached is None:
            cached = self._text(value)
            if len(self._cache) >= _CACHE_SIZE:
                self._cache.clear()
            self._cache[value] = cached
        return cached

    def _text(self, value: str) -> str:
        value = self._paths(value)
        if "<redacted:" in value and not self.keep_placeholders:
            value = _REDACTED_RE.sub(r"<redacted:\1>", value)
        if _DIGIT_RE.search(value):  # every id, uuid, date and version below has a digit
            value = _UUID_RE.sub("<uuid>", value)
            value = _ID_RE.sub(lambda m: f"<id:{m.group(1)}>", value)
            value = _HEX_RE.sub("<hex>", value)
            value = _DATETIME_RE.sub("<datetime>", value)
            value = _DATE_RE.sub("<date>", value)
            value = _CLIENT_VERSION_RE.sub(r"\1/<version>", value)
        if _TEXT_RULES_HINT.search(value):
            for pattern, repl in _TEXT_RULES:
                value = pattern.sub(repl, value)
        return value

    def _paths(self, value: str) -> str:
        if "/" not in value:
            return value
        key = (*sorted(self.cwds), *sorted(self.roots.items()))
        if key != self._cwd_key:
            self._cwd_key = key
            self._replacements = {c: "<cwd>" for c in self.cwds} | self.roots
            longest_first = sorted(self._replacements, key=len, reverse=True)
            pattern = "|".join(re.escape(c) + _PATH_TAIL for c in longest_first)
            self._cwd_re = re.compile(pattern) if pattern else None
        if self._cwd_re is not None:
            replacements = self._replacements
            value = self._cwd_re.sub(lambda m: replacements[m.group(0)], value)
        return self._tmp_re.sub("<tmp>", value)

    def _value(self, value: Any, key: str | None) -> Any:
        if key is not None and value is not None and not isinstance(value, dict | list):
            lowered = key.lower()
            if lowered in _VOLATILE_KEYS or _VERSION_KEY_RE.search(lowered) or _TIME_KEY_RE.search(lowered):
                return f"<{lowered}>"
            if lowered in _WINDOW_KEYS and isinstance(value, str):
                # "<thread>:<n>": the thread part is volatile, the window number is not.
                return re.sub(r"^.*?(:\d+)?$", lambda m: "<thread>" + (m.group(1) or ""), value, count=1)
        if isinstance(value, dict):
            # Paths also appear as keys (Codex keys its git workspaces by path).
            return {(self._paths(k) if "/" in k else k): self._value(v, k) for k, v in value.items()}
        if isinstance(value, list):
            return [self._value(v, None) for v in value]
        if isinstance(value, str):
            parsed = _maybe_json(value)
            if parsed is not None:
                return self._value(parsed, None)
            return self.text(value)
        return value


def _replace_path(value: Any, segments: list[str | int]) -> Any:
    """`value` with every node at `segments` replaced by `IGNORED` (missing paths are fine)."""
    if not segments:
        return IGNORED
    head, rest = segments[0], segments[1:]
    if isinstance(value, dict):
        keys: Iterable[str] = value.keys() if head == "*" else [str(head)] if str(head) in value else []
        selected = set(keys)
        out = {k: (_replace_path(v, rest) if k in selected else v) for k, v in value.items()}
        if not rest and head != "*" and str(head) not in value:
            # A key one side has and the other lacks is covered too: both read `<ignored>`.
            out[str(head)] = IGNORED
        return out
    if isinstance(value, list):
        if head == "*":
            return [_replace_path(v, rest) for v in value]
        if isinstance(head, int) and -len(value) <= head < len(value):
            copy = list(value)
            copy[head] = _replace_path(copy[head], rest)
            return copy
    return value

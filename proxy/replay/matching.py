"""Request matching for replay: small named matchers and a JSON diff that names what differs.

As in vcrpy, a matcher is a tiny function of `(live, recorded)`; here it returns the list of
differences (empty when the requests match) rather than raising, so all of them can be reported at once.
Bodies are compared after normalisation (see `normalise.py`). The diff speaks at the level a person
reads a model request: `input[3].content[0].text differs: recorded '…' vs live '…'`,
`input: 1 item added at the end (input[5] message/user)`, `tools: added foo; removed bar`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from ctxscope.proxy.replay.tool_diff import diff_tools, tools_by_name
from ctxscope.proxy.responses.vocabulary import CodexHeader

__all__ = [
    "CLIENT_BOOKKEEPING",
    "DEFAULT_MATCH_ON",
    "METADATA_ONLY",
    "MATCHERS",
    "SOMETIMES_SENT",
    "Matcher",
    "RequestView",
    "check_match_on",
    "json_diff",
    "match_requests",
    "metadata_only",
    "register_matcher",
    "request_path",
]

MAX_DIFFERENCES = 20
_SNIPPET = 60


@dataclass(frozen=True)
class RequestView:
    """What matching looks at: method, path (with query) and the body (normalised JSON, or text)."""

    method: str
    path: str
    body: Any


Matcher = Callable[[RequestView, RequestView], list[str]]


def request_path(url_or_path: str) -> str:
    """The path and query of a URL (or of a path) — the part of a request URL a cassette keys on."""
    parts = urlsplit(url_or_path)
    path = parts.path or "/"
    return f"{path}?{parts.query}" if parts.query else path


def method(live: RequestView, recorded: RequestView) -> list[str]:
    """The HTTP method must be the same."""
    if live.method.upper() == recorded.method.upper():
        return []
    return [f"method differs: recorded {recorded.method} vs live {live.method}"]


def path(live: RequestView, recorded: RequestView) -> list[str]:
    """The URL path (and query) must be the same."""
    if live.path == recorded.path:
        return []
    return [f"path differs: recorded {recorded.path} vs live {live.path}"]


SOMETIMES_SENT: tuple[tuple[str, ...], ...] = (
    ("client_metadata", CodexHeader.TURN_METADATA.value, "workspaces"),
)
"""Keys a client sends only sometimes, for reasons that say nothing about the context: compared when
both requests hold them, not reported when only one does. Codex fills in its turn metadata's
`workspaces` (git state per workspace root) when its git probe finished in time, so one run of the
same session has it on a request where another run has not."""

CLIENT_BOOKKEEPING: tuple[str, ...] = ("client_metadata",)
"""Top-level body keys the model never sees: the client's own bookkeeping (Codex's turn metadata with
its git probe, `workspaces[*].has_changes` and `latest_git_commit_hash`, the sandbox it reports, its
window and installation ids). The `body` matcher leaves them out, so a dirty checkout or another
machine does not fail a replay; the `metadata` matcher compares them, for a stricter `match_on`."""

METADATA_ONLY = "only client metadata differs (the model's context is the same)"
"""How a mismatch found by the `metadata` matcher alone is introduced (see `metadata_only`)."""


def body(live: RequestView, recorded: RequestView) -> list[str]:
    """The normalised bodies must be equal, apart from the client's bookkeeping (`CLIENT_BOOKKEEPING`);
    differences are named by JSON path."""
    return json_diff(_without_bookkeeping(recorded.body), _without_bookkeeping(live.body))


def metadata(live: RequestView, recorded: RequestView) -> list[str]:
    """The client's bookkeeping (`client_metadata`) must be equal too: opt in with `match_on`."""
    rec, liv = (
        {k: b[k] for k in CLIENT_BOOKKEEPING if k in b} if isinstance(b, dict) else {}
        for b in (recorded.body, live.body)
    )
    for where in SOMETIMES_SENT:
        rec, liv = _without_one_sided(rec, liv, where)
    return json_diff(rec, liv)


def metadata_only(differences: list[str]) -> bool:
    """True when every difference is in the client's bookkeeping, none in what the model sees."""
    return bool(differences) and all(d.startswith(CLIENT_BOOKKEEPING) for d in differences)


def _without_bookkeeping(value: Any) -> Any:
    if not isinstance(value, dict) or not any(k in value for k in CLIENT_BOOKKEEPING):
        return value
    return {k: v for k, v in value.items() if k not in CLIENT_BOOKKEEPING}


def _without_one_sided(recorded: Any, live: Any, where: tuple[str, ...]) -> tuple[Any, Any]:
    """Both values with the key at `where` left out of the one that has it, if only one has it."""
    parents: list[Any] = [recorded, live]
    for key in where[:-1]:
        parents = [p.get(key) if isinstance(p, dict) else None for p in parents]
    has = [isinstance(p, dict) and where[-1] in p for p in parents]
    if has[0] == has[1]:
        return recorded, live
    trimmed = [_drop(v, where) if h else v for v, h in zip((recorded, live), has, strict=True)]
    return trimmed[0], trimmed[1]


def _drop(value: Any, where: tuple[str, ...]) -> Any:
    """A copy of `value` without the key at `where` (copies only along the path)."""
    if len(where) == 1:
        return {k: v for k, v in value.items() if k != where[0]}
    return {**value, where[0]: _drop(value[where[0]], where[1:])}


def query(live: RequestView, recorded: RequestView) -> list[str]:
    """The query string must be the same (`path` compares it too; `query` alone ignores the path)."""
    rec_query, live_query = recorded.path.partition("?")[2], live.path.partition("?")[2]
    if rec_query == live_query:
        return []
    return [f"query differs: recorded {rec_query!r} vs live {live_query!r}"]


MATCHERS: dict[str, Matcher] = {
    "method": method,
    "path": path,
    "query": query,
    "body": body,
    "metadata": metadata,
}
"""Matchers by name; `match_on` picks from these. Add one with `register_matcher`."""

DEFAULT_MATCH_ON: tuple[str, ...] = ("method", "path", "body")


def register_matcher(name: str, matcher: Matcher) -> None:
    """Make `matcher` selectable as `name` in `match_on` (replayer, `--match-on`, the pytest marker).

    A matcher is `(live, recorded) -> list of differences` (empty when they match), over `RequestView`s
    whose bodies are already normalised. Registering a taken name replaces that matcher.
    """
    if not name or not name.replace("_", "").isalnum():
        raise ValueError(f"a matcher name is a word (letters, digits, _), not {name!r}")
    if not callable(matcher):
        raise TypeError(f"matcher {name!r} must be callable, not {type(matcher).__name__}")
    MATCHERS[name] = matcher


def check_match_on(names: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """`names` as a tuple if each names a registered matcher; ValueError (one line) otherwise."""
    chosen = tuple(names)
    unknown = [n for n in chosen if n not in MATCHERS]
    if unknown:
        known = ", ".join(MATCHERS)
        raise ValueError(f"unknown matcher {', '.join(map(repr, unknown))}: use some of {known}")
    if not chosen:
        raise ValueError(f"match_on names no matcher: use some of {', '.join(MATCHERS)}")
    return chosen


def match_requests(
    live: RequestView, recorded: RequestView, matchers: tuple[str, ...] = DEFAULT_MATCH_ON
) -> list[str]:
    """All differences found by the named matchers, capped at `MAX_DIFFERENCES` (with a count of the rest)."""
    found: list[str] = []
    for name in matchers:
        found += MATCHERS[name](live, recorded)
    if len(found) > MAX_DIFFERENCES:
        rest = len(found) - MAX_DIFFERENCES
        found = found[:MAX_DIFFERENCES] + [f"... and {rest} more differences"]
    return found


def json_diff(recorded: Any, live: Any, where: str = "") -> list[str]:
    """Differences between two JSON values, each a line naming its JSON path."""
    label = where or "body"
    if isinstance(recorded, dict) and isinstance(live, dict):
        return _diff_dicts(recorded, live, where)
    if isinstance(recorded, list) and isinstance(live, list):
        if _is_tool_list(recorded) and _is_tool_list(live):
            return _diff_tools(recorded, live, where)
        return _diff_lists(recorded, live, where)
    if recorded == live and type(recorded) is type(live):
        return []
    if type(recorded) is not type(live) and not (_is_number(recorded) and _is_number(live)):
        return [f"{label} differs: recorded {_kind(recorded)} vs live {_kind(live)}"]
    if isinstance(recorded, str) and isinstance(live, str):
        return [f"{label}{_fragment(recorded)} differs: {_string_snippets(recorded, live)}"]
    if recorded == live:
        return []
    return [f"{label} differs: recorded {_short(recorded)} vs live {_short(live)}"]


def _join(where: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{where}[{key}]"
    if key.replace("_", "").replace("-", "").isalnum():
        return f"{where}.{key}" if where else key
    return f'{where}["{key}"]'


def _diff_dicts(recorded: dict[str, Any], live: dict[str, Any], where: str) -> list[str]:
    out: list[str] = []
    for key in recorded:
        if key not in live:
            out.append(f"{_join(where, key)} removed (recorded {_short(recorded[key])})")
    for key in live:
        if key not in recorded:
            out.append(f"{_join(where, key)} added (live {_short(live[key])})")
    for key in recorded:
        if key in live:
            out += json_diff(recorded[key], live[key], _join(where, key))
    return out


def _diff_lists(recorded: list[Any], live: list[Any], where: str) -> list[str]:
    out: list[str] = []
    common = min(len(recorded), len(live))
    for index in range(common):
        out += json_diff(recorded[index], live[index], _join(where, index))
    label = where or "body"
    if len(live) > common:
        extra = len(live) - common
        shown = ", ".join(
            f"{_join(where, i)} {_describe(live[i])}" for i in range(common, min(len(live), common + 3))
        )
        out.append(f"{label}: {extra} item{'s' if extra > 1 else ''} added at the end ({shown})")
    if len(recorded) > common:
        missing = len(recorded) - common
        shown = ", ".join(
            f"{_join(where, i)} {_describe(recorded[i])}"
            for i in range(common, min(len(recorded), common + 3))
        )
        out.append(
            f"{label}: {missing} recorded item{'s' if missing > 1 else ''} missing at the end ({shown})"
        )
    return out


def _is_tool_list(value: list[Any]) -> bool:
    return bool(value) and all(
        isinstance(t, dict) and ("name" in t or t.get("type") == "web_search") for t in value
    )


def _diff_tools(recorded: list[Any], live: list[Any], where: str) -> list[str]:
    """The tool-list diff (`tool_diff.diff_tools`, the inspector's too), each change named by JSON path."""
    label = where or "tools"
    diff = diff_tools(recorded, live)
    out: list[str] = []
    if diff.added or diff.removed:
        parts = []
        if diff.added:
            parts.append("added " + ", ".join(diff.added))
        if diff.removed:
            parts.append("removed " + ", ".join(diff.removed))
        out.append(f"{label}: {'; '.join(parts)}")
    for name, changes in diff.changes.items():
        for change in changes:
            at = f"{label}[name={name}]" + (f".{change.path}" if not change.path.startswith("[") else change.path)
            if change.change == "removed":
                out.append(f"{at} removed (recorded {_short(change.old)})")
            elif change.change == "added":
                out.append(f"{at} added (live {_short(change.new)})")
            else:
                out += json_diff(change.old, change.new, at)
    if diff.reordered:
        recorded_names, live_names = (", ".join(tools_by_name(t)) for t in (recorded, live))
        out.append(f"{label}: order differs: recorded {recorded_names} vs live {live_names}")
    return out


def _describe(item: Any) -> str:
    """A short label for an input item: `message/user`, `function_call exec_command`, ..."""
    if not isinstance(item, dict):
        return _kind(item)
    kind = str(item.get("type", "object"))
    if "role" in item:
        return f"{kind}/{item['role']}"
    if "name" in item:
        return f"{kind} {item['name']}"
    return kind


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return f"list of {len(value)}"
    if isinstance(value, str):
        return f"string {_short(value)}"
    return type(value).__name__


def _short(value: Any) -> str:
    text = repr(value) if isinstance(value, str) else _compact(value)
    return text if len(text) <= _SNIPPET else text[: _SNIPPET - 1] + "…"


def _compact(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError):
        return repr(value)


_FRAGMENT_RE = re.compile(r"\s*(?:<([A-Za-z_][\w -]{0,40})>|# (AGENTS\.md) instructions)")


def _fragment(text: str) -> str:
    """` (environment_context)` when a text opens with a context-fragment wrapper, else ``.

    Only the opening marker is read (the harness owns the full fragment vocabulary; proxy must not
    import it): enough to say which part of the context changed.
    """
    match = _FRAGMENT_RE.match(text)
    if match is None:
        return ""
    return f" ({match.group(1) or match.group(2)})"


def _string_snippets(recorded: str, live: str) -> str:
    """Both strings around their first difference, so a long prompt shows where it changed."""
    start = next(
        (i for i, (a, b) in enumerate(zip(recorded, live, strict=False)) if a != b),
        min(len(recorded), len(live)),
    )
    lo = max(0, start - 20)

    def cut(text: str) -> str:
        piece = text[lo : lo + _SNIPPET]
        prefix = "…" if lo > 0 else ""
        suffix = "…" if lo + _SNIPPET < len(text) else ""
        return repr(prefix + piece + suffix)

    return f"at char {start}: recorded {cut(recorded)} vs live {cut(live)}"

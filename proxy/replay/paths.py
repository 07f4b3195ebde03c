"""Path mapping for replay: which directory of the recording corresponds to which live directory.

A session recorded in `/home/ann/w/repo` and replayed in `/srv/ci/w-second/repo` names paths under
both checkouts, and also outside them: Codex lists its skill roots (`$CODEX_HOME/skills`, beside the
repository, not under it) and the selected skill's file by absolute path. Comparing such requests needs
to know which recorded prefix stands for which live one. `PathMap` learns that from each pair of
requests being compared:

- the working directories each request names (environment_context `<cwd>`, a `cwd` key, the keys of
  Codex's turn-metadata `workspaces`) are paired, and the common trailing components are stripped
  (`…/w/repo` vs `…/w-second/repo` → `…/w` stands for `…/w-second`), so every path under that root maps;
- the owners of skill roots (`X/skills`, `X/skills/.system`, `<skill><path>X/skills/…`) that are not
  under a root already known are paired in order of appearance (`$CODEX_HOME`, or the home holding
  `~/.codex` / `~/.agents`);
- the writable roots Codex's permissions part lists (`` The writable roots are `/tmp`, `/a/w/repo`. ``)
  are paired in order when both sides list as many;
- the user adds what cannot be inferred: `--map-path OLD=NEW` (recorded OLD, live NEW).

Each pair gets one placeholder (`<root>`, `<home>`, `<mapped>`, numbered from the second on), which
each side's `Normaliser` writes in place of its own prefix. A request that names no working directory
(Codex's WebSocket prewarm holds only the base prompt and the tools) falls back to the process-level
ones (the recording header's `cwd`, the replayer's own), but only provisionally: the first request that
names its directories replaces a fallback pair they contradict, so a replayer started in an unrelated
directory learns the checkouts from the frames themselves. `describe` and `suggest_map_path` say, in a
mismatch about paths, which roots were inferred and which `--map-path` would pair what they missed.

The answers go the other way: a recorded answer names recorded paths (an apply_patch `*** Add File:
/home/ann/w/repo/notes.txt`, an exec_command `workdir`), and served as recorded it would make the live
client act on the recorded checkout. `PathMap.to_live` and `events_to_live` write each recorded prefix
as its live one; streamed deltas are mapped over their concatenation, since a path may be split
between two of them.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from ctxscope.proxy.model import SseEvent

__all__ = [
    "PathMap",
    "first_path_difference",
    "infer_roots",
    "parse_map_path",
    "request_cwds",
    "request_workspaces",
    "request_writable_roots",
    "skill_owners",
    "string_at",
    "suggest_map_path",
]

_CWD_TAG_RE = re.compile(r"<cwd>([^<]+)</cwd>")
# An absolute path up to a `skills` component: the owner of a skill root (CODEX_HOME, ~/.agents, a repo).
_SKILLS_RE = re.compile(r"(/[^\s`'\"<>()|,;]*?)/skills(?=/|`|<|\s|\)|$)")
_HOME_MARKERS = (".codex", ".agents")
_WRITABLE_RE = re.compile(r"writable roots are ((?:`[^`]+`(?:, )?)+)")
_ABS_PATH_RE = re.compile(r"(?<![\w<>.-])/[^\s`'\"<>,;()\[\]{}|]+")
_PATH_TAIL = r"(?![\w.-])"  # a path ends where a path character does not follow


def _walk_strings(value: Any) -> list[tuple[str | None, Any]]:
    """(key, value) for every node in document order, JSON-in-strings parsed (depth-first)."""
    out: list[tuple[str | None, Any]] = []

    def walk(node: Any, key: str | None) -> None:
        out.append((key, node))
        if isinstance(node, dict):
            for k, child in node.items():
                walk(child, k)
        elif isinstance(node, list):
            for child in node:
                walk(child, None)
        elif isinstance(node, str):
            stripped = node.strip()
            if len(stripped) >= 2 and stripped[0] in "{[" and stripped[-1] in "}]":
                try:
                    parsed = json.loads(stripped)
                except ValueError:
                    return
                if isinstance(parsed, dict | list):
                    walk(parsed, key)

    walk(value, None)
    return out


def _clean(path: str) -> str | None:
    path = path.strip().rstrip("/")
    return path if path.startswith("/") and path != "" else None


def _ordered(paths: list[str]) -> list[str]:
    """Distinct, in order of first appearance."""
    return list(dict.fromkeys(paths))


def request_cwds(body: Any) -> list[str]:
    """The working directories a request names, distinct, in order of appearance (the last is current)."""
    found: list[str] = []
    for key, node in _walk_strings(body):
        if key == "cwd" and isinstance(node, str):
            cleaned = _clean(node)
            if cleaned:
                found.append(cleaned)
        elif isinstance(node, str) and "<cwd>" in node:
            found += [c for m in _CWD_TAG_RE.finditer(node) if (c := _clean(m.group(1)))]
    return _ordered(found)


def request_workspaces(body: Any) -> list[str]:
    """The workspace roots of Codex's turn metadata (`workspaces: {path: {...}}`), in order."""
    found: list[str] = []
    for key, node in _walk_strings(body):
        if key == "workspaces" and isinstance(node, dict):
            found += [c for k in node if (c := _clean(k))]
    return _ordered(found)


def request_writable_roots(body: Any) -> list[str]:
    """The writable roots Codex's permissions part lists, in order (the last listing wins)."""
    found: list[str] = []
    for _, node in _walk_strings(body):
        if isinstance(node, str) and "writable roots are" in node:
            for match in _WRITABLE_RE.finditer(node):
                found = [c for p in re.findall(r"`([^`]+)`", match.group(1)) if (c := _clean(p))]
    return found


def skill_owners(body: Any) -> list[str]:
    """Directories holding skill roots (`X` of `X/skills/…`; the home for `~/.codex`, `~/.agents`)."""
    found: list[str] = []
    for _, node in _walk_strings(body):
        if isinstance(node, str) and "/skills" in node:
            for match in _SKILLS_RE.finditer(node):
                owner = match.group(1)
                parent, _, last = owner.rpartition("/")
                if last in _HOME_MARKERS and parent:
                    owner = parent
                found.append(owner)
    return _ordered(found)


def infer_roots(recorded_cwd: str, live_cwd: str) -> tuple[str, str] | None:
    """The recorded and live directories that stand for each other, or None if the cwds are equal.

    The common trailing components are stripped while each side keeps at least one:
    `/a/w/repo` and `/b/w-second/repo` → (`/a/w`, `/b/w-second`).
    """
    if recorded_cwd == live_cwd:
        return None
    rec = [p for p in recorded_cwd.split("/") if p]
    live = [p for p in live_cwd.split("/") if p]
    while len(rec) > 1 and len(live) > 1 and rec[-1] == live[-1]:
        rec.pop()
        live.pop()
    return "/" + "/".join(rec), "/" + "/".join(live)


def parse_map_path(spec: str) -> tuple[str, str]:
    """`OLD=NEW` (absolute paths; OLD as recorded, NEW as live) → (OLD, NEW); ValueError otherwise."""
    old, sep, new = spec.partition("=")
    old_c, new_c = _clean(old), _clean(new)
    if not sep or old_c is None or new_c is None:
        raise ValueError(f"--map-path wants OLD=NEW with two absolute paths, not {spec!r}")
    return old_c, new_c


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root + "/")


def first_path_difference(recorded: Any, live: Any) -> tuple[tuple[str | int, ...], str, str] | None:
    """The first pair of differing strings (at the same JSON place) that name paths, in document order:
    (their place as keys and indices, the recorded string, the live string)."""
    if isinstance(recorded, dict) and isinstance(live, dict):
        for key in recorded:
            if key in live and (found := first_path_difference(recorded[key], live[key])):
                return (key, *found[0]), found[1], found[2]
    elif isinstance(recorded, list) and isinstance(live, list):
        for index, (rec_item, live_item) in enumerate(zip(recorded, live, strict=False)):
            if found := first_path_difference(rec_item, live_item):
                return (index, *found[0]), found[1], found[2]
    elif isinstance(recorded, str) and isinstance(live, str) and recorded != live:
        if "/" in recorded or "/" in live or "<root" in recorded + live:
            return (), recorded, live
    return None


def string_at(value: Any, where: tuple[str | int, ...]) -> str | None:
    """The string at `where` in `value` (None if the place does not hold one)."""
    for key in where:
        if isinstance(value, dict) and isinstance(key, str) and key in value:
            value = value[key]
        elif isinstance(value, list) and isinstance(key, int) and 0 <= key < len(value):
            value = value[key]
        else:
            return None
    return value if isinstance(value, str) else None


def suggest_map_path(recorded_text: str, live_text: str) -> str | None:
    """`--map-path OLD=NEW` pairing the first absolute path of one text that the other lacks."""
    rec_paths = [p.rstrip(".:") for p in _ABS_PATH_RE.findall(recorded_text)]
    live_paths = [p.rstrip(".:") for p in _ABS_PATH_RE.findall(live_text)]
    rec_only = [p for p in rec_paths if p not in live_paths]
    live_only = [p for p in live_paths if p not in rec_paths]
    if not rec_only or not live_only:
        return None
    roots = infer_roots(rec_only[0], live_only[0])
    return f"--map-path {roots[0]}={roots[1]}" if roots is not None else None


@dataclass
class PathMap:
    """Pairs of (recorded prefix, live prefix), each with the placeholder both sides write for it."""

    recorded: dict[str, str] = field(default_factory=dict)
    """Recorded prefix → placeholder."""
    live: dict[str, str] = field(default_factory=dict)
    """Live prefix → placeholder."""
    _provisional: set[str] = field(default_factory=set, repr=False, compare=False)
    """Recorded prefixes paired from the process-level cwds, not from what a request named."""
    _live_key: tuple[tuple[str, str], ...] = field(default=(), init=False, repr=False, compare=False)
    _live_re: re.Pattern[str] | None = field(default=None, init=False, repr=False, compare=False)

    def add(self, recorded: str, live: str, label: str) -> bool:
        """Pair two prefixes (the first pairing of a prefix wins); True if something new was learned."""
        if recorded == live or recorded in self.recorded or live in self.live:
            return False
        used = sum(1 for p in self.recorded.values() if p.startswith(f"<{label}"))
        placeholder = f"<{label}>" if used == 0 else f"<{label}{used + 1}>"
        self.recorded[recorded] = placeholder
        self.live[live] = placeholder
        return True

    def learn(
        self,
        recorded_body: Any,
        live_body: Any,
        recorded_default: str | None = None,
        live_default: str | None = None,
    ) -> bool:
        """Learn pairs from two requests compared with each other; True if something new was learned.

        What the requests name comes first; the defaults (process-level cwds) count only when neither
        names a working directory, and are dropped as soon as a named pair contradicts them.
        """
        learned = False
        rec_cwds, live_cwds = request_cwds(recorded_body), request_cwds(live_body)
        named: list[tuple[str, str]] = []
        if len(rec_cwds) == len(live_cwds):
            named += zip(rec_cwds, live_cwds, strict=True)
        if rec_cwds and live_cwds:
            named.append((rec_cwds[-1], live_cwds[-1]))
        for found in (request_workspaces, request_writable_roots):
            # a path both sides list (`/tmp`) names itself; pair the rest in order, so that two lists
            # in different orders (`/tmp`, repo vs repo, `/tmp`) never cross a root with `/tmp`
            rec_ws, live_ws = found(recorded_body), found(live_body)
            shared = set(rec_ws) & set(live_ws)
            rec_ws, live_ws = [p for p in rec_ws if p not in shared], [p for p in live_ws if p not in shared]
            if len(rec_ws) == len(live_ws):
                named += zip(rec_ws, live_ws, strict=True)
        for rec, live in named:
            if "/" in (rec, live):
                continue
            self._drop_contradicted(rec, live)  # equal paths too: a fallback pair must not map them
            roots = infer_roots(rec, live)
            if roots is not None and not self._covered(*roots):
                learned |= self.add(roots[0], roots[1], "root")
        rec_current = rec_cwds[-1] if rec_cwds else recorded_default
        live_current = live_cwds[-1] if live_cwds else live_default
        if not (rec_cwds and live_cwds) and rec_current and live_current:
            if "/" not in (rec_current, live_current):
                roots = infer_roots(rec_current, live_current)
                if roots is not None and not self._covered(*roots) and self.add(roots[0], roots[1], "root"):
                    self._provisional.add(roots[0])
                    learned = True
        rec_owners = [o for o in skill_owners(recorded_body) if not self._known(o, self.recorded)]
        live_owners = [o for o in skill_owners(live_body) if not self._known(o, self.live)]
        if len(rec_owners) == len(live_owners):
            for rec, live in zip(rec_owners, live_owners, strict=True):
                learned |= self.add(rec, live, "home")
        return learned

    def _drop_contradicted(self, recorded: str, live: str) -> None:
        """Forget fallback pairs that a pair of paths the requests name contradicts (the requests know
        better): a fallback pair contradicts it when it covers either path but does not map one onto
        the other."""
        for rec_root in list(self._provisional):
            placeholder = self.recorded.get(rec_root)
            live_root = next((p for p, ph in self.live.items() if ph == placeholder), None)
            if live_root is None:
                continue
            covers = _under(recorded, rec_root) or _under(live, live_root)
            maps = (
                _under(recorded, rec_root)
                and _under(live, live_root)
                and recorded[len(rec_root) :] == live[len(live_root) :]
            )
            if covers and not maps:
                self._provisional.discard(rec_root)
                self.recorded.pop(rec_root, None)
                self.live.pop(live_root, None)

    def describe(self) -> str:
        """The pairs in use, for a person: `recorded /a/w = live /b/w-second (<root>)`, …"""
        live_of = {placeholder: live for live, placeholder in self.live.items()}
        pairs = [
            f"recorded {rec} = live {live_of.get(ph, '?')} ({ph}"
            + (", from the processes' cwds)" if rec in self._provisional else ")")
            for rec, ph in self.recorded.items()
        ]
        return "; ".join(pairs) if pairs else "none"

    def _covered(self, recorded: str, live: str) -> bool:
        """Both already map under one pair (a deeper cwd of a known checkout)."""
        for rec_root, placeholder in self.recorded.items():
            if _under(recorded, rec_root):
                live_root = next((p for p, ph in self.live.items() if ph == placeholder), None)
                if live_root is not None and _under(live, live_root):
                    return recorded[len(rec_root) :] == live[len(live_root) :]
        return False

    @staticmethod
    def _known(path: str, side: dict[str, str]) -> bool:
        return any(_under(path, root) for root in side)

    def to_live(self, text: str) -> str:
        """`text` from a recorded answer with every recorded prefix written as its live one."""
        pattern, pairs = self._to_live_pattern()
        if pattern is None or "/" not in text:
            return text
        return pattern.sub(lambda m: pairs[m.group(0)], text)

    def events_to_live(self, events: list[SseEvent]) -> list[SseEvent]:
        """A recorded stream with its paths written as live ones (unchanged events kept as they are).

        The `delta`s of one item are mapped over their concatenation and cut again where they were cut
        (a cut inside a mapped path moves to the path's end), so they still add up to the done item.
        """
        pattern, _ = self._to_live_pattern()
        if pattern is None:
            return events
        out = [
            e if "/" not in e.data else e.model_copy(update={"data": self.to_live(e.data)}) for e in events
        ]
        for indices, pieces in _delta_runs(events).values():
            mapped = self._split_to_live(pieces)
            if mapped == pieces:
                continue
            for index, piece in zip(indices, mapped, strict=True):
                payload = json.loads(events[index].data)
                payload["delta"] = piece
                out[index] = events[index].model_copy(
                    update={"data": json.dumps(payload, ensure_ascii=False)}
                )
        return out

    def _split_to_live(self, pieces: list[str]) -> list[str]:
        """`pieces` mapped as one text, cut at the mapped positions of the old cuts."""
        pattern, pairs = self._to_live_pattern()
        whole = "".join(pieces)
        if pattern is None or "/" not in whole:
            return pieces
        mapped: list[str] = []
        moved: list[tuple[int, int, int]] = []  # (start, end, shift after) of each replaced prefix
        last, shift = 0, 0
        for match in pattern.finditer(whole):
            live = pairs[match.group(0)]
            mapped += [whole[last : match.start()], live]
            shift += len(live) - len(match.group(0))
            moved.append((match.start(), match.end(), shift))
            last = match.end()
        mapped.append(whole[last:])
        text = "".join(mapped)
        cuts, end = [], 0
        for piece in pieces:
            end += len(piece)
            new = end
            for start, stop, after in moved:
                if end >= stop:
                    new = end + after
                elif end > start:  # the cut falls inside a replaced prefix: move it past the prefix
                    new = stop + after
            cuts.append(new)
        out, begin = [], 0
        for cut in cuts:
            out.append(text[begin:cut])
            begin = cut
        return out

    def _to_live_pattern(self) -> tuple[re.Pattern[str] | None, dict[str, str]]:
        live_of = {placeholder: live for live, placeholder in self.live.items()}
        pairs = {rec: live_of[ph] for rec, ph in self.recorded.items() if ph in live_of}
        key = tuple(sorted(pairs.items()))
        if key != self._live_key:
            longest_first = sorted(pairs, key=len, reverse=True)
            joined = "|".join(re.escape(p) + _PATH_TAIL for p in longest_first)
            self._live_key, self._live_re = key, (re.compile(joined) if joined else None)
        return self._live_re, pairs


def _delta_runs(events: list[SseEvent]) -> dict[str, tuple[list[int], list[str]]]:
    """Per streamed item (and part): the indices of its `*.delta` events and their text, in order."""
    runs: dict[str, tuple[list[int], list[str]]] = {}
    for index, event in enumerate(events):
        if "delta" not in event.data or "\n" in event.data:
            continue  # one-line JSON only: a re-encoded payload must fit the recorded framing
        try:
            payload = json.loads(event.data)
        except ValueError:
            continue
        if not isinstance(payload, dict) or not isinstance(payload.get("delta"), str):
            continue
        kind = str(payload.get("type", ""))
        part = (payload.get("item_id"), payload.get("output_index"), payload.get("content_index"), kind)
        indices, pieces = runs.setdefault(json.dumps(part), ([], []))
        indices.append(index)
        pieces.append(payload["delta"])
    return runs

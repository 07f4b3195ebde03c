"""Session files: one JSONL file per session, one entry per line, entries linked by parent id.

    {"id": "e0001", "parent_id": null, "timestamp": "2026-...Z", "type": "session_meta", "payload": {...}}

Entry types: `session_meta` (first line: session id, cwd, provider, model, forked_from),
`response_item` (one history item, in order), `world_state` (a full world-state snapshot: the
baseline later requests diff against), `turn_context` (per-turn settings: model, cwd, sandbox...),
`model_switch` ({from, to}), `plan_state` (plan mode's whole state after each change: the last one
on the branch wins), `event` (notices, errors, usage), `goal` (the thread goal after each
change, or null when cleared), `compacted` (the history that replaced everything before it, and
the new window number). Readers keep entries of unknown types.

Writers lock the file (`fcntl.flock`) while they append, and `locked()` holds the lock across a
read-check-write, so a second process (`--session ID -p "/plan approve N"`) sees the latest entries
and its check (is N still the latest revision?) cannot race another writer.

Each line is flushed as written, so a killed harness leaves a loadable file (a torn line is
skipped, and the next entry starts on a fresh line). Payloads are written exactly (no redaction of
the conversation: a resumed session sends byte for byte what the model saw; the file is owner-only),
except the credentials the harness holds itself (`credentials`, asked at each append), which are
replaced wherever they appear (`harness.session.withhold`). Recordings, which get shared, are the
ones redacted.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import sys
import threading
import uuid
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from pydantic import BaseModel, ConfigDict

from harness.goal.state import GoalState, parse_goal_entry
from proxy.errors import ConfigError
from proxy.files import PRIVATE_MODE, open_private_append
from proxy.home import sessions_dir

from .withhold import withhold

__all__ = ["ENTRY_TYPES", "Credentials", "ResumedSession", "SessionEntry", "SessionStore", "new_session_id"]

ENTRY_TYPES = (
    "session_meta",
    "response_item",
    "world_state",
    "turn_context",
    "model_switch",
    "plan_state",
    "event",
    "goal",
    "compacted",
)


Credentials = Callable[[], Iterable[str]]
"""What the harness holds (API key, tokens, configured header values): kept out of session files."""


def new_session_id() -> str:
    return str(uuid.uuid4())


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


class SessionEntry(BaseModel):
    """One line of a session file."""

    model_config = ConfigDict(extra="allow")

    id: str
    parent_id: str | None = None
    timestamp: str
    type: str
    payload: dict[str, Any]


@dataclass
class ResumedSession:
    """What a session file says about where the conversation stands (on one branch)."""

    meta: dict[str, Any]
    history: list[dict[str, Any]] = field(default_factory=list)
    world_state: dict[str, Any] | None = None
    """The last full world-state snapshot (the diff baseline), or None before the first request."""
    model: str | None = None
    turn_context: dict[str, Any] | None = None
    turns: int = 0
    plan_state: dict[str, Any] | None = None
    """The last `plan_state` entry's payload (validated by plan mode, which owns its shape)."""
    goal: GoalState | None = None
    """The thread goal as last recorded (None: never set, or cleared)."""
    window: int = 0
    """Compactions so far: the context window the next request belongs to."""


def _malformed(entry: SessionEntry) -> str | None:
    """What is wrong with the payload of an entry `load` reads (None: nothing), so a damaged or
    hand-edited file is a one-line error at resume rather than a crash halfway through it."""
    payload = entry.payload
    if entry.type == "response_item" and not isinstance(payload.get("item"), dict):
        return "its item is not an object"
    if entry.type == "world_state" and not isinstance(payload.get("state"), dict | None):
        return "its state is not an object"
    if entry.type == "model_switch" and not isinstance(payload.get("to"), str | None):
        return "its model is not a string"
    if entry.type == "compacted":
        history, window = payload.get("history"), payload.get("window")
        if not (history is None or (isinstance(history, list) and all(isinstance(i, dict) for i in history))):
            return "its history is not a list of items"
        if not (window is None or (isinstance(window, int) and not isinstance(window, bool))):
            return "its window is not a number"
    return None


class SessionStore:
    """Append-only writer and reader of one session file."""

    def __init__(
        self,
        path: Path,
        session_id: str,
        entries: list[SessionEntry] | None = None,
        *,
        credentials: Credentials | None = None,
    ) -> None:
        """`entries`: the file's entries when the caller has just read them (saves a second parse).
        `credentials`: returns the values the harness holds (asked at each append: a refreshed token
        counts from then on); they never reach the file."""
        self.path = path
        self.credentials = credentials
        self.session_id = session_id
        self._lock = threading.RLock()
        self._file_lock: IO[str] | None = None
        """The open file holding the `flock` while `locked()` runs (appends inside reuse it)."""
        if entries is None:
            entries = self.entries() if path.exists() else []
        self._count = len(entries)
        self.head: str | None = entries[-1].id if entries else None
        """Id of the last entry: the parent of the next one."""
        self._held: list[bytes] = []  # entry lines not yet on disk (a failed write)
        self._trouble: str | None = None  # the write failure last reported

    # ---- creating and opening ----------------------------------------------------------------

    @classmethod
    def create(
        cls,
        meta: dict[str, Any],
        *,
        directory: Path | None = None,
        session_id: str | None = None,
        credentials: Credentials | None = None,
    ) -> SessionStore:
        """A new session file with its `session_meta` line."""
        session_id = session_id or new_session_id()
        directory = directory or sessions_dir()
        directory.mkdir(parents=True, exist_ok=True)
        store = cls(directory / f"{session_id}.jsonl", session_id, credentials=credentials)
        if store.path.exists():
            raise ConfigError(f"session {session_id} already exists at {store.path}")
        store.append("session_meta", {"session_id": session_id, "created_at": _now(), **meta})
        return store

    @classmethod
    def open(
        cls, ref: str, *, directory: Path | None = None, credentials: Credentials | None = None
    ) -> SessionStore:
        """Open by session id (or unique id prefix) in the sessions directory, or by file path."""
        as_path = Path(ref).expanduser()
        if as_path.suffix == ".jsonl" and as_path.is_file():
            path = as_path
        elif "/" in ref or as_path.is_absolute() or ref.startswith("~"):
            # A path, not an id: globbing the sessions directory with it cannot work.
            raise ConfigError(
                f"{ref} is not a session file: give a session id or an existing <id>.jsonl file"
            )
        else:
            directory = directory or sessions_dir()
            matches = sorted(directory.glob(f"{ref}*.jsonl")) if ref else []
            if not matches:
                raise ConfigError(
                    f"no session {ref!r} in {directory}: check the id (session files are named <id>.jsonl)"
                )
            if len(matches) > 1:
                raise ConfigError(
                    f"session id {ref!r} is ambiguous ({len(matches)} sessions): give more of it"
                )
            path = matches[0]
        entries = cls._read(path)
        if not entries or entries[0].type != "session_meta":
            raise ConfigError(f"{path} is not a ctxscope session file (no session_meta line)")
        return cls(
            path, str(entries[0].payload.get("session_id") or path.stem), entries, credentials=credentials
        )

    # ---- writing -------------------------------------------------------------------------------

    def append(self, type: str, payload: dict[str, Any]) -> SessionEntry:
        """Write one entry (exact, held credentials withheld) as a child of `head`, flushed on return."""
        with self._lock:
            self._count += 1
            entry = SessionEntry(
                id=f"e{self._count:05d}-{uuid.uuid4().hex[:6]}",
                parent_id=self.head,
                timestamp=_now(),
                type=type,
                payload=withhold(payload, self.credentials()) if self.credentials else payload,
            )
            line = json.dumps(entry.model_dump(mode="json"), ensure_ascii=False, separators=(",", ":"))
            self._held.append((line + "\n").encode("utf-8", "surrogatepass"))
            try:
                self._write_held()
            except OSError as err:
                # A full disk must not end the conversation: the entry is held and written with the next
                # one; said once on stderr, with the cause.
                reason = err.strerror or err.__class__.__name__
                if self._trouble != reason:
                    self._trouble = reason
                    _stderr(f"ctxscope: cannot write session file {self.path}: {reason}; holding entries")
            else:
                if self._trouble is not None:
                    self._trouble = None
                    _stderr(f"ctxscope: writing session file {self.path} again")
            self.head = entry.id
            return entry

    def _write_held(self) -> None:
        """Append the held lines with one `os.write` loop (owner-only file, never glued to a torn line)."""
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, PRIVATE_MODE)
        try:
            os.fchmod(fd, PRIVATE_MODE)  # owner-only wherever the sessions folder is
            # Inside `locked()` this process already holds the lock (through another open file:
            # flock on a second one would wait for ourselves); closing `fd` releases this one.
            if self._file_lock is None:
                fcntl.flock(fd, fcntl.LOCK_EX)
            data = (b"\n" if self._torn_tail() else b"") + b"".join(self._held)
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            self._held.clear()
        finally:
            os.close(fd)

    @contextlib.contextmanager
    def locked(self) -> Iterator[list[SessionEntry]]:
        """Hold the file's lock; yields the entries as they are now (head moves to the file's last
        entry, so what this process appends follows what another one wrote)."""
        with self._lock, open_private_append(self.path) as f:
            fcntl.flock(f, fcntl.LOCK_EX)
            self._file_lock = f
            try:
                entries = self.entries()
                self._count = max(self._count, len(entries))
                self.head = entries[-1].id if entries else None
                yield entries
            finally:
                self._file_lock = None
                fcntl.flock(f, fcntl.LOCK_UN)

    def _torn_tail(self) -> bool:
        try:
            with self.path.open("rb") as f:
                f.seek(0, 2)
                if f.tell() == 0:
                    return False
                f.seek(-1, 2)
                return f.read(1) != b"\n"
        except FileNotFoundError:
            return False

    # ---- reading -------------------------------------------------------------------------------

    @staticmethod
    def _read(path: Path) -> list[SessionEntry]:
        entries: list[SessionEntry] = []
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as e:
            raise ConfigError(f"cannot read session file {path} ({e.__class__.__name__})") from e
        for n, line in enumerate(lines):
            if not line.strip():
                continue
            try:
                entries.append(SessionEntry.model_validate_json(line))
            except ValueError as e:
                if entries:
                    # A torn line from a killed writer (later appends start on a fresh line):
                    # everything else in the file is still good, so skip it.
                    continue
                raise ConfigError(
                    f"{path} line {n + 1} is not a ctxscope session entry: "
                    "the file is damaged or not a session"
                ) from e
        return entries

    def entries(self) -> list[SessionEntry]:
        return self._read(self.path)

    def branch(self, leaf: str | None = None) -> list[SessionEntry]:
        """Entries from the root to `leaf` (default: the last entry), following parent ids."""
        entries = self.entries()
        if not entries:
            return []
        by_id = {e.id: e for e in entries}
        node: SessionEntry | None = by_id.get(leaf) if leaf else entries[-1]
        if node is None:
            raise ConfigError(f"no entry {leaf!r} in session {self.session_id}")
        chain: list[SessionEntry] = []
        while node is not None and len(chain) <= len(entries):
            chain.append(node)
            node = by_id.get(node.parent_id) if node.parent_id else None
        return list(reversed(chain))

    def load(self, leaf: str | None = None) -> ResumedSession:
        """Rebuild history, world-state baseline and model from one branch."""
        chain = self.branch(leaf)
        state = ResumedSession(meta=chain[0].payload if chain else {})
        state.model = state.meta.get("model")
        for entry in chain[1:]:
            problem = _malformed(entry)
            if problem is not None:
                raise ConfigError(
                    f"{self.path}: entry {entry.id} ({entry.type}) is malformed ({problem}); "
                    "fix or remove that line before resuming"
                )
            if entry.type == "response_item":
                state.history.append(entry.payload["item"])
            elif entry.type == "world_state":
                state.world_state = entry.payload.get("state")
            elif entry.type == "model_switch":
                state.model = entry.payload.get("to") or state.model
            elif entry.type == "turn_context":
                state.turn_context = entry.payload
                state.turns += 1
            elif entry.type == "plan_state":
                state.plan_state = entry.payload
            elif entry.type == "goal":
                state.goal = parse_goal_entry(entry.payload, f"session file {self.path}")
            elif entry.type == "compacted":
                # The compacted window replaces the history: a resume sends what the model saw last.
                state.history = list(entry.payload.get("history") or [])
                state.window = int(entry.payload.get("window") or state.window + 1)
        return state

    def fork(self, *, directory: Path | None = None, leaf: str | None = None) -> SessionStore:
        """Copy one branch into a new session (new id, `forked_from` in its meta)."""
        chain = self.branch(leaf)
        meta = dict(chain[0].payload) if chain else {}
        meta.pop("session_id", None)
        meta.pop("created_at", None)
        meta["forked_from"] = {"session_id": self.session_id, "entry_id": chain[-1].id if chain else None}
        new = SessionStore.create(meta, directory=directory or self.path.parent, credentials=self.credentials)
        for entry in chain[1:]:
            new.append(entry.type, entry.payload)
        return new


def _stderr(line: str) -> None:
    try:
        print(line, file=sys.stderr, flush=True)
    except (OSError, ValueError):  # stderr closed: nothing more to say
        pass

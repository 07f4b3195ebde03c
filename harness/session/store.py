"""Session files: one JSONL file per session, one entry per line, entries linked by parent id.

    {"id": "e0001", "parent_id": null, "timestamp": "2026-...Z", "type": "session_meta", "payload": {...}}

Entry types: `session_meta` (first line: session id, cwd, provider, model, forked_from),
`response_item` (one history item, in order), `world_state` (a full world-state snapshot: the
baseline later requests diff against), `turn_context` (per-turn settings: model, cwd, sandbox...),
`model_switch` ({from, to}), `plan_state` (plan mode's whole state after each change: the last one
on the branch wins), `event` (notices, errors, usage), `goal` (the thread goal after each
change, or null when cleared), `compacted` (the history that replaced everything before it, and
the new window number). Readers keep entries of unknown types.

Reading fails closed (`ctxscope.harness.session.reader`): a damaged line, a broken parent chain or a payload
of the wrong shape is a one-line error naming the file and line; only a killed writer's torn last
line is skipped, with a warning.

One writer per session: the first write (or `hold()`) locks the file (`flock`, through the
recordings' `open_locked`) until `close()`, so a second agent on the same session is refused in one
line naming the holder's pid, and `locked()` is a consistent read-check-write for this writer.

Each line is written with one `os.write` loop. A write that fails (a full disk, a file-size limit)
is cut back off the file, so no half line is left in the middle; the entry is held and written with
the next one, said at once on stderr, and counted (`failed_writes`, and `unwritten` after `close()`:
what never reached the file), so the agent can say so at exit and exit non-zero. Payloads are written
exactly (no redaction of the conversation: a resumed session sends byte for byte what the model saw;
the file is owner-only), except the credentials the harness holds itself (`credentials`, asked at
each append), which are replaced wherever they appear (`ctxscope.harness.session.withhold`). Recordings,
which get shared, are the ones redacted.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import threading
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ctxscope.harness.goal.state import GoalState, parse_goal_entry
from ctxscope.proxy.errors import ConfigError
from ctxscope.proxy.home import sessions_dir
from ctxscope.proxy.store.lock import open_locked

from .reader import SessionEntry, SessionFile, damaged, read_session, regular_file
from .withhold import withhold

__all__ = [
    "ENTRY_TYPES",
    "Credentials",
    "PayloadCheck",
    "ResumedSession",
    "SessionEntry",
    "SessionStore",
    "new_session_id",
]

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
_TURN_ENDS = ("turn_completed", "turn_aborted", "error")
"""`event` kinds that close a turn (a branch that ends inside a turn lost what came after)."""


Credentials = Callable[[], Iterable[str]]
"""What the harness holds (API key, tokens, configured header values): kept out of session files."""

PayloadCheck = Callable[[dict[str, Any], str], object]
"""Validates one entry's payload (given `<file> line <n>` to name); raises `ConfigError` when it
is malformed or contradicts itself. Passed by the layer that owns the payload's shape (plan mode)."""


def new_session_id() -> str:
    return str(uuid.uuid4())


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


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
    """The last `plan_state` entry's payload (checked by the caller's `PayloadCheck`, if given)."""
    goal: GoalState | None = None
    """The thread goal as last recorded (None: never set, or cleared)."""
    window: int = 0
    """Compactions so far: the context window the next request belongs to."""
    unfinished: str | None = None
    """Set when the file ends inside a turn: what was saved last (the rest of that turn is lost:
    the agent was stopped, or could not write its session file)."""


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
        self._fd: int | None = None
        """The open, `flock`ed file while this store is the session's writer."""
        self._closed = False
        if entries is None:
            entries = self.entries() if path.exists() else []
        self._count = len(entries)
        self.head: str | None = entries[-1].id if entries else None
        """Id of the last entry: the parent of the next one."""
        self._held: list[bytes] = []  # entry lines not yet on disk (a failed write)
        self._trouble: str | None = None  # the write failure last reported
        self._unterminated = False  # the file's last line has no newline: the next write adds one
        self.failed_writes = 0
        """Appends whose write failed (each entry is held and tried again with the next one)."""
        self.last_error: str | None = None
        """Why the last failed write failed (`No space left on device`, ...)."""
        self.unwritten = 0
        """Entries that never reached the file (known once `close()` made its last try)."""

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
        """A new session file with its `session_meta` line (this store is its writer)."""
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
        """Open by session id (or unique id prefix) in the sessions directory, or by file path.

        Only reads: `hold()` (or the first append) makes this process the session's writer."""
        as_path = Path(ref).expanduser()
        if as_path.suffix == ".jsonl" and as_path.exists():
            regular_file(as_path)  # a FIFO or a device would hang the read: one line instead
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
        found = read_session(path)
        if not found.entries:
            raise ConfigError(f"{path} is not a ctxscope session file (no session_meta line)")
        if found.torn:
            _stderr(
                f"ctxscope: warning: session file {path} line {found.torn} is torn (a writer was killed "
                "while writing it): that entry is skipped"
            )
        entries = found.entries
        return cls(
            path, str(entries[0].payload.get("session_id") or path.stem), entries, credentials=credentials
        )

    # ---- the one writer ----------------------------------------------------------------------

    def hold(self) -> None:
        """Become the session's one writer: lock the file until `close()`; refused in one line,
        naming the holder's pid, while another agent has it."""
        with self._lock:
            if self._fd is not None:
                return
            if self._closed:
                raise ConfigError(f"session {self.session_id} was closed: open it again to write")
            regular_file(self.path)  # opening a FIFO to write would block until a reader came
            self._fd = open_locked(self.path, self._busy)
            try:
                found = read_session(self.path) if os.fstat(self._fd).st_size else SessionFile(self.path)
                if found.torn:
                    # A killed writer's half line would sit in the middle once we append: cut it.
                    os.ftruncate(self._fd, found.size)
                self._unterminated = found.unterminated
                # What another writer appended before we took the lock is the head now.
                self._count = max(self._count, len(found.entries))
                self.head = found.entries[-1].id if found.entries else None
            except BaseException:
                os.close(self._fd)
                self._fd = None
                raise

    def _busy(self, holder: str) -> ConfigError:
        return ConfigError(
            f"session {self.session_id} is in use by {holder}: end that agent first, "
            f"or continue a copy with --fork {self.session_id}"
        )

    def close(self) -> None:
        """Write what is held (one last try), then release the lock; `unwritten` says what was lost."""
        with self._lock:
            if self._fd is not None:
                if self._held:
                    with contextlib.suppress(OSError):
                        self._write_held()
                os.close(self._fd)
                self._fd = None
            self.unwritten = len(self._held)
            self._closed = True

    @property
    def closed(self) -> bool:
        return self._closed

    def __del__(self) -> None:
        fd: int | None = getattr(self, "_fd", None)
        if fd is not None:  # a store dropped without close(): release the lock with it
            with contextlib.suppress(OSError):
                os.close(fd)

    # ---- writing -------------------------------------------------------------------------------

    def append(self, type: str, payload: dict[str, Any]) -> SessionEntry:
        """Write one entry (exact, held credentials withheld) as a child of `head`, flushed on return."""
        with self._lock:
            self.hold()
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
                # one; said at once on stderr, with the cause, and counted for the exit.
                self.failed_writes += 1
                reason = err.strerror or err.__class__.__name__
                self.last_error = reason
                if self._trouble != reason:
                    self._trouble = reason
                    _stderr(
                        f"ctxscope: cannot write session file {self.path}: {reason}; "
                        f"holding {len(self._held)} entr{'y' if len(self._held) == 1 else 'ies'}"
                    )
            else:
                if self._trouble is not None:
                    self._trouble = None
                    _stderr(f"ctxscope: writing session file {self.path} again (held entries written)")
            self.head = entry.id
            return entry

    def _write_held(self) -> None:
        """Append the held lines with one `os.write` loop; a failure cuts its part line off again."""
        fd = self._fd
        assert fd is not None
        data = (b"\n" if self._unterminated else b"") + b"".join(self._held)
        size = os.fstat(fd).st_size
        view = memoryview(data)
        try:
            while view:
                view = view[os.write(fd, view) :]
        except OSError:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, size)  # shrinking needs no space: the file ends on a whole line
            raise
        self._unterminated = False
        self._held.clear()

    @contextlib.contextmanager
    def locked(self) -> Iterator[list[SessionEntry]]:
        """A read-check-write as this session's writer: yields the entries as they are now (those
        on disk and those still held), and nothing else can write until the block ends."""
        with self._lock:
            self.hold()
            held = [SessionEntry.model_validate_json(line) for line in self._held]
            yield [*self.entries(), *held]

    # ---- reading -------------------------------------------------------------------------------

    def entries(self) -> list[SessionEntry]:
        return read_session(self.path).entries

    def branch(self, leaf: str | None = None) -> list[SessionEntry]:
        """Entries from the root to `leaf` (default: the last entry)."""
        return self._branch(read_session(self.path), leaf)

    def _branch(self, found: SessionFile, leaf: str | None) -> list[SessionEntry]:
        entries = found.entries
        if leaf is None:
            return list(entries)
        # The file is one linear chain (the reader checks it), so a branch is a prefix.
        at = next((n for n, e in enumerate(entries) if e.id == leaf), None)
        if at is None:
            raise ConfigError(f"no entry {leaf!r} in session {self.session_id}")
        return entries[: at + 1]

    def load(
        self, leaf: str | None = None, *, checks: Mapping[str, PayloadCheck] | None = None
    ) -> ResumedSession:
        """Rebuild history, world-state baseline and model from one branch.

        Fails closed: a payload of the wrong shape (or one `checks[type]` refuses) is a one-line
        `ConfigError` naming the file and line."""
        found = read_session(self.path)
        chain = self._branch(found, leaf)
        state = ResumedSession(meta=chain[0].payload if chain else {})
        state.model = state.meta.get("model")
        open_turn: SessionEntry | None = None
        for entry in chain[1:]:
            where = found.where(entry)
            check = (checks or {}).get(entry.type)
            if check is not None:
                check(entry.payload, where)
            _apply(state, entry, where)
            if entry.type == "turn_context":
                open_turn = entry
            elif entry.type == "event" and entry.payload.get("kind") in _TURN_ENDS:
                open_turn = None
        if open_turn is not None and chain:
            state.unfinished = (
                f"the turn started at {open_turn.timestamp} ({found.where(open_turn)}) has no end in the "
                f"file: after {_describe(chain[-1])} (line {found.lines.get(chain[-1].id)}) nothing of it "
                "was saved (the agent was stopped, or could not write the file)"
            )
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


def _apply(state: ResumedSession, entry: SessionEntry, where: str) -> None:
    """Fold one entry into `state`; a known type with a payload of the wrong shape fails closed."""
    payload = entry.payload
    if entry.type == "response_item":
        item = payload.get("item")
        if not isinstance(item, dict):
            raise damaged(where, "a response_item entry without an item object")
        state.history.append(item)
    elif entry.type == "world_state":
        snapshot = payload.get("state")
        if snapshot is not None and not isinstance(snapshot, dict):
            raise damaged(where, "a world_state entry whose state is not an object")
        state.world_state = snapshot
    elif entry.type == "model_switch":
        to = payload.get("to")
        if not isinstance(to, str) or not to:
            raise damaged(where, "a model_switch entry without the model it switched to")
        state.model = to
    elif entry.type == "turn_context":
        state.turn_context = payload
        state.turns += 1
    elif entry.type == "plan_state":
        state.plan_state = payload
    elif entry.type == "goal":
        state.goal = parse_goal_entry(payload, f"session file {where}")
    elif entry.type == "compacted":
        # The compacted window replaces the history: a resume sends what the model saw last.
        history, window = payload.get("history"), payload.get("window")
        if not isinstance(history, list) or not all(isinstance(i, dict) for i in history):
            raise damaged(where, "a compacted entry whose history is not a list of items")
        if not isinstance(window, int) or isinstance(window, bool) or window <= state.window:
            raise damaged(
                where, f"a compacted entry with window {window!r} after window {state.window} (it only grows)"
            )
        state.history = list(history)
        state.window = window


def _describe(entry: SessionEntry) -> str:
    """What an entry saved, for a person: `the function_call exec_command`, `a world_state entry`."""
    if entry.type == "response_item":
        item = entry.payload.get("item") or {}
        kind = item.get("type") or "message"
        name = item.get("name") or item.get("role")
        return f"the {kind}{f' {name}' if name else ''}"
    if entry.type == "event":
        return f"the {entry.payload.get('kind') or 'event'} event"
    return f"a {entry.type} entry"


def _stderr(line: str) -> None:
    try:
        print(line, file=sys.stderr, flush=True)
    except (OSError, ValueError):  # stderr closed: nothing more to say
        pass

"""Session files: JSONL entries {id, parent_id, timestamp, type, payload}; resume and fork."""

from __future__ import annotations

from harness.session.store import ENTRY_TYPES, ResumedSession, SessionEntry, SessionStore, new_session_id

__all__ = ["ENTRY_TYPES", "ResumedSession", "SessionEntry", "SessionStore", "new_session_id"]

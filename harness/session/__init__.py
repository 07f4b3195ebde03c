"""Session files: JSONL entries {id, parent_id, timestamp, type, payload}; resume and fork."""

from __future__ import annotations

from ctxscope.harness.session.store import (
    ENTRY_TYPES,
    Credentials,
    ResumedSession,
    SessionEntry,
    SessionStore,
    new_session_id,
)
from ctxscope.harness.session.withhold import WITHHELD

__all__ = [
    "ENTRY_TYPES",
    "WITHHELD",
    "Credentials",
    "ResumedSession",
    "SessionEntry",
    "SessionStore",
    "new_session_id",
]

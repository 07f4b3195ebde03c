"""Normalising volatile values so that ids, uuids and timestamps never show up as changes.

Two strengths. Within one recording (`item_key`) only per-response item ids and statuses are
dropped: everything else that changes between turns of one session (a date, a cwd) is a real change.
Across two recordings (`cross_run`) the replay normaliser (`ctxscope.proxy.replay.normalise.Normaliser`, one
definition shared with cassette matching) also rewrites uuids, timestamps, dates, temp dirs, the
working directory and session ids to placeholders.
"""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING, Any

from ctxscope.proxy.responses.vocabulary import ITEM_PASSTHROUGH
from ctxscope.proxy.store import SharedInput

if TYPE_CHECKING:
    from ctxscope.proxy.replay.normalise import Normaliser

PASSTHROUGH = ITEM_PASSTHROUGH
"""Codex 0.169's per-item metadata (`turn_id`, `create_time`, `content_item_kinds`): about the item, not
what the model reads. Codex adds it to items it re-sends (a function call gets a `turn_id` in a full
resend), so it is not part of an item's identity; its `content_item_kinds` are shown beside the parts."""

# Item ids (`msg_…`, `rs_…`, `fc_…`) are assigned per response and differ between otherwise identical
# items; `status` flips from "in_progress" to "completed" when a client echoes items back; the
# passthrough metadata (above) is metadata.
_ITEM_VOLATILE_KEYS = frozenset({"id", "status", PASSTHROUGH})


def strip_item_ids(item: Any) -> Any:
    """The item without its per-response id, status and passthrough metadata (top level only: content is
    kept as sent)."""
    if isinstance(item, dict):
        return {k: v for k, v in item.items() if k not in _ITEM_VOLATILE_KEYS}
    return item


def stable_hash(value: Any) -> str:
    """A short content hash of a JSON value, independent of key order."""
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    return hashlib.blake2b(text.encode("utf-8"), digest_size=10).hexdigest()


def item_key(item: Any) -> str:
    """Identity of an input item inside one recording: its content with ids dropped."""
    return stable_hash(strip_item_ids(item))


def cross_run(bodies: list[Any]) -> Normaliser:
    """A normaliser for one side of a cross-recording comparison, taught that side's directories."""
    # Imported here: the `ctxscope.proxy.replay` package loads mitmproxy (over a second), which only a
    # comparison needs.
    from ctxscope.proxy.replay.normalise import Normaliser

    normaliser = Normaliser()
    seen: set[int] = set()
    for body in bodies:
        if isinstance(body, dict) and isinstance(body.get("input"), list | SharedInput):
            # Each turn repeats the history: learn from the items not seen in an earlier body (the
            # reader shares one object per stored item), so learning stays linear in the session.
            fresh = [item for item in body["input"] if id(item) not in seen]
            seen.update(id(item) for item in fresh)
            body = {**body, "input": fresh}
        normaliser.learn(body)
    return normaliser

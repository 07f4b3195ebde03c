"""Compaction forensics: what a compaction dropped, the summary beside what it replaced, the context
it re-materialised, and the tokens before and after.

Both Codex forms are recognised: local compaction (an ordinary request marked `request_kind:
"compaction"` whose answer becomes a summary-prefixed user message) and remote compaction
(`POST /responses/compact`, or an input ending in `compaction_trigger`, answered with
`compaction` / `context_compaction` items).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ctxscope.inspector.analysis.items import Item, Part
from ctxscope.inspector.analysis.turns import Turn
from ctxscope.proxy.responses.vocabulary import COMPACTION_REQUEST_KINDS, COMPACTION_TRIGGER, RequestKind


@dataclass
class CompactionReport:
    """One compaction seen at the first turn after it."""

    trigger: str
    """`request_kind compaction`, `remote /responses/compact`, `compaction_trigger`, or `in context`."""
    request_turn: int | None
    """The turn that asked for the compaction (None when only its result is visible)."""
    summarised: list[Item] = field(default_factory=list)
    """Conversation items of the compacted history that are gone afterwards."""
    dropped_context: list[Item] = field(default_factory=list)
    """Context (fragment) items of the compacted history that are gone afterwards."""
    kept_in_place: int = 0
    """Leading items of the history left where they were (the shared prefix)."""
    kept: list[Item] = field(default_factory=list)
    """Conversation items of the history carried over after the split (recent user messages)."""
    summary: str | None = None
    summary_items: list[Item] = field(default_factory=list)
    rematerialised: list[Item] = field(default_factory=list)
    """Context items injected again after the summary (AGENTS.md, permissions, environment...)."""
    tokens_before: int = 0
    tokens_after: int = 0
    history: int = 0
    """Items of the compacted history (the request's own prompt or trigger left out): the whole that
    `kept_in_place`, `summarised`, `dropped_context`, `kept` and `resent` add up to."""

    @property
    def resent(self) -> int:
        """Context items of the history that the new window sends again, as they were or brought up
        to date: what is left of the history once the other counts are taken, so that `kept_in_place`
        + `summarised` + dropped for good + `kept` + `resent` = `history`."""
        counted = self.kept_in_place + len(self.summarised) + len(self.dropped_for_good) + len(self.kept)
        return max(0, self.history - counted)

    @property
    def dropped_for_good(self) -> list[Item]:
        """The context items of `dropped_context` holding a fragment that does not come back."""
        gone = set(self.dropped_names)
        return [i for i in self.dropped_context if any(_fragment_name(p) in gone for p in i.fragments)]

    @property
    def replaced_summary(self) -> bool:
        """The compacted history already held a summary, which the new one replaces."""
        return any(_is_summary(i) for i in (*self.summarised, *self.dropped_context))

    @property
    def dropped_names(self) -> list[str]:
        """The context fragments gone after the compaction and not brought back (`skill demo-skill`)."""
        # the request's own prompt and the old summary are not context (the summary is said apart)
        back = {p.kind for i in self.rematerialised for p in i.fragments} | _NOT_CONTEXT
        # By name too: the "replaced" form of AGENTS.md of ./pkg comes back in its plain form.
        back_names = {_fragment_name(p) for i in self.rematerialised for p in i.fragments}
        names = [
            _fragment_name(p)
            for i in self.dropped_context
            for p in i.fragments
            if p.kind not in back and _fragment_name(p) not in back_names
        ]
        return list(dict.fromkeys(names))

    @property
    def sentence(self) -> str:
        """One line for the timeline: the history's items accounted for once each (the counts add up
        to the history), then what the new window carries again, each fragment named once."""
        said = [f"{len(self.summarised)} of {_count(self.history, 'history item')} summarised"]
        if self.replaced_summary:
            said[0] += " (previous summary replaced)"
        dropped = self.dropped_for_good
        if dropped:
            said.append(f"{_count(len(dropped), 'context item')} dropped ({', '.join(self.dropped_names)})")
        if self.kept:
            said.append(f"{_count(len(self.kept), 'recent message')} kept")
        if self.resent:
            said.append(f"{_count(self.resent, 'context item')} re-sent")
        if self.kept_in_place:
            said.append(f"{_count(self.kept_in_place, 'leading item')} kept in place")
        text = f"compaction ({self.trigger}): " + ", ".join(said)
        if self.rematerialised:
            names = list(dict.fromkeys(_fragment_name(p) for i in self.rematerialised for p in i.fragments))
            text += (
                f"; context re-materialised: {', '.join(names)} "
                f"({_count(len(names), 'fragment')} in {_count(len(self.rematerialised), 'item')})"
            )
        tokens = f"; tokens {self.tokens_before:,} → {self.tokens_after:,}"
        return text + tokens + " (input items, tools not counted)"


_NOT_CONTEXT = frozenset({"compaction_summary", "compaction_prompt"})
_FRAGMENT_WORDS = {
    "environment_context": "environment",
    "permissions": "permissions",
    "skills_catalog": "skills catalog",
    "collaboration_mode": "collaboration mode",
}


def _fragment_name(part: Part) -> str:
    """What a person calls a context fragment: `AGENTS.md of /repo/pkg`, `skill demo-skill`, `environment`."""
    kind, label = part.kind, part.label
    if kind.startswith("agents_md"):
        return "AGENTS.md of " + label.split(":", 1)[1] if ":" in label else "AGENTS.md"
    if kind == "selected_skill":
        return "skill " + label.split(":", 1)[1] if ":" in label else "selected skill"
    if kind in _FRAGMENT_WORDS:
        return _FRAGMENT_WORDS[kind]
    # Any other kind in words, with what its label adds (`model switch gpt-5-mini`, `goal status active`).
    words = kind.replace("_", " ")
    return f"{words} {label.split(':', 1)[1]}" if ":" in label else words


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _trigger(previous: Turn) -> str:
    if previous.endpoint == "responses/compact":
        return "remote /responses/compact"
    # Checked before request_kind: a trigger request may also be marked `compaction`.
    if previous.items and previous.items[-1].kind == COMPACTION_TRIGGER:
        return COMPACTION_TRIGGER
    if previous.request_kind == RequestKind.COMPACTION:
        return "request_kind compaction"
    return "in context"


def _is_summary(item: Item) -> bool:
    return item.kind in ("compaction", "compaction_summary") or any(
        p.kind == "compaction_summary" for p in item.parts
    )


def compaction_report(history: Sequence[Item], previous: Turn, current: Turn, kept: int) -> CompactionReport:
    """Describe the compaction between `previous` (the request before) and `current`.

    `history` is the context that was compacted: a compaction request's items without the
    compaction prompt it added, or `previous`'s items when there was no such request. `kept` is the
    length of the prefix `current` shares with `previous`.
    """
    after_keys = {i.key for i in current.items}
    before_keys = {i.key for i in history}
    gone = [i for i in history if i.key not in after_keys]
    report = CompactionReport(
        trigger=_trigger(previous),
        request_turn=previous.number
        if previous.request_kind in COMPACTION_REQUEST_KINDS or previous.endpoint == "responses/compact"
        else None,
        summarised=[i for i in gone if i.is_conversation or not i.fragments],
        dropped_context=[i for i in gone if i.fragments and not i.is_conversation],
        kept_in_place=kept,
        kept=[i for i in current.items[kept:] if i.key in before_keys and i.is_conversation],
        tokens_before=sum(i.tokens for i in history),
        tokens_after=sum(i.tokens for i in current.items),
        history=len(history),
    )
    history_kinds = {p.kind for i in history for p in i.fragments}
    for item in current.items[kept:]:
        if _is_summary(item):  # the newest summary (it may repeat an earlier one word for word)
            report.summary_items.append(item)
            summaries = [
                str(p.values.get("summary", p.text)) for p in item.parts if p.kind == "compaction_summary"
            ]
            report.summary = "\n".join(summaries) or item.text or report.summary
        elif item.fragments and not item.is_conversation and {p.kind for p in item.fragments} & history_kinds:
            report.rematerialised.append(item)
    if report.summary is None and previous.output:
        # Local compaction: the request's answer is the summary the next turn carries.
        texts = [
            str(c.get("text", ""))
            for o in previous.output
            if isinstance(o, dict)
            for c in (o.get("content") or [])
            if isinstance(c, dict)
        ]
        report.summary = "\n".join(t for t in texts if t) or None
    return report

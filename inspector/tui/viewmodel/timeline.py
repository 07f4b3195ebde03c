"""The timeline's rows: one per turn (thread, change kind, flags, model, the event words in a column
of their own and the answer in short after them, tokens with a window fill bar, duration), plus a
folded row for requests that are not model turns. A row is drawn to the pane's width, so the
figures at its right are never cut."""

from __future__ import annotations

from dataclasses import dataclass

from ctxscope.inspector.analysis.analyse import TurnAnalysis
from ctxscope.inspector.analysis.changes import ChangeKind
from ctxscope.inspector.analysis.marks import MODE_FRAGMENTS, mode_marks
from ctxscope.inspector.analysis.window import fill_ratio
from ctxscope.inspector.reports.world import goal_event_sentence
from ctxscope.inspector.tui.viewmodel.lines import Line, Run, bar, clip, short_tokens
from ctxscope.proxy.responses.vocabulary import side_label

ROW_WIDTH = 80
"""A row's width when the pane's is not known yet."""
MODEL_WIDTH = 9
MIN_EVENT_WIDTH = 16
MIN_ANSWER_WIDTH = 8
"""The event column's least width before the model column gives way to it."""

KIND_WORDS: dict[str, str] = {
    ChangeKind.INITIAL: "initial",
    ChangeKind.APPEND: "append",
    ChangeKind.REWRITE: "REWRITE",
    ChangeKind.COMPACTION: "COMPACT",
    ChangeKind.FORK: "FORK",
}
"""Change kind → its timeline word (the kinds that break the cached prefix in capitals)."""
KIND_GLYPHS: dict[str, str] = {
    ChangeKind.INITIAL: "*",
    ChangeKind.APPEND: "+",
    ChangeKind.REWRITE: "~",
    ChangeKind.COMPACTION: "v",
    ChangeKind.FORK: "Y",
}
"""Change kind → a glyph that keeps kinds apart without colour (the word is shown as well)."""


@dataclass(frozen=True)
class TimelineRow:
    """One turn as the timeline shows it."""

    number: int
    thread: str
    kind: str
    model: str
    marks: tuple[str, ...]
    tokens: int | None
    fill: float
    duration_ms: float | None
    ok: bool
    world_changed: bool
    side: str | None = None
    """A side request's kind (`SideKind`): shown by kind and dimmed, never as a change kind."""
    cache_break: bool = False
    """The cached prefix broke at this turn (`cache_report`): the `c` flag."""
    answer: str = ""
    """The answer in one line (`Answer.summary`), drawn after the marks where the row has room."""

    def events(self) -> str:
        """The event words of the row: mode switches, plan submissions, goal events, an error."""
        words = list(self.marks)
        if not self.ok:
            words.append("error")
        return ", ".join(words)

    def line(self, *, width: int = ROW_WIDTH, marked: bool = False, number_width: int = 4) -> Line:
        """The row as a display line of exactly `width` columns (so nothing is cut at the pane's
        edge): the fixed columns, the event words in the room left, then tokens, bar and duration
        at the right. `marked` shows the mark-and-diff marker."""
        duration = "-" if self.duration_ms is None else f"{self.duration_ms / 1000:.1f}s"
        flags = (
            ("w" if self.world_changed else " ")
            + ("c" if self.cache_break else " ")
            + (" " if self.ok else "!")
        )
        if self.side is not None:
            kind = Run(f"- {side_label(self.side):<8} ", "dim")
        else:
            kind = Run(
                f"{KIND_GLYPHS.get(self.kind, '?')} {KIND_WORDS.get(self.kind, self.kind):<8} ",
                f"kind-{self.kind}",
            )
        head = [
            Run("M" if marked else " ", "mark"),
            Run(f"{self.number:>{number_width}} ", "dim"),
            Run(f"{self.thread:<3}", "dim" if self.side is not None else "thread"),
            kind,
            Run(f"{flags} ", "error" if not self.ok else "world"),
        ]
        tail = [
            Run(f" {short_tokens(self.tokens):>6} ", "dim" if self.side is not None else ""),
            Run(bar(self.fill, 4), "bar"),
            Run(f" {duration:>5}", "dim"),
        ]
        fixed = sum(len(r.text) for r in (*head, *tail))
        room = max(0, width - fixed)
        model = f"{self.model[:MODEL_WIDTH]:<{MODEL_WIDTH}} "
        if room - len(model) >= MIN_EVENT_WIDTH:  # the model only where the events keep their room
            head.append(Run(model, "dim" if self.side is not None else ""))
            room -= len(model)
        events = clip(self.events(), room)
        style = "error" if not self.ok and not self.marks else "modemark"
        head.append(Run(events, style))
        room -= len(events)
        if self.answer and room > MIN_ANSWER_WIDTH:  # the answer in short, where the row has room
            gap = " " if events else ""
            answer = gap + clip(f"→ {self.answer}", room - len(gap))
            head.append(Run(answer, "dim"))
            room -= len(answer)
        head.append(Run(" " * room))
        return Line(tuple(head + tail), f"turn:{self.number}")


def timeline_row(result: TurnAnalysis, *, world_changed: bool) -> TimelineRow:
    """The row of one analysed turn; tokens are the reported input tokens, else the counted total."""
    turn = result.turn
    tokens, _ = result.tokens.shown  # the analysis's one timeline figure: reported input, else counted
    return TimelineRow(
        number=turn.number,
        thread=turn.thread,
        kind=result.change.kind,
        model=turn.model or "?",
        marks=_marks(result),
        tokens=tokens,
        fill=fill_ratio(tokens, turn.model),
        duration_ms=turn.exchange.duration_ms,
        ok=turn.status == "completed" and not (turn.error and "after completion" not in turn.error),
        world_changed=world_changed and turn.side is None,
        side=turn.side,
        answer=result.answer.summary(),
    )


def _marks(result: TurnAnalysis) -> tuple[str, ...]:
    """Plan-mode marks, then what happened to the goal (`goal continuation #7`, `goal paused`),
    which names the goal better than the bare mark of its fragment."""
    goal = [goal_event_sentence(e) for e in result.goal_events]
    plain = MODE_FRAGMENTS["goal"]
    return (*(m for m in mode_marks(result) if not (goal and m == plain)), *goal)


def other_requests_line(count: int) -> Line:
    """The folded row for requests that are not model turns (models lists and the like)."""
    noun = "request" if count == 1 else "requests"
    return Line.plain(f"  +{count} other {noun} (not model turns)", "dim", "others")


__all__ = ["KIND_GLYPHS", "KIND_WORDS", "ROW_WIDTH", "TimelineRow", "other_requests_line", "timeline_row"]

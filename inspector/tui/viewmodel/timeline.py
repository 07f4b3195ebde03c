"""The timeline's rows: one per turn (thread, change kind, flags, model, the event words in a column
of their own and the answer in short after them, tokens labelled reported or counted with a window
fill bar, the request's cost, duration), plus a folded row for requests that are not model turns.
A row is drawn to the pane's width, so the figures at its right are never cut."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ctxscope.inspector.analysis.analyse import TurnAnalysis
from ctxscope.inspector.analysis.answers import Answer
from ctxscope.inspector.analysis.changes import ChangeKind
from ctxscope.inspector.analysis.marks import MODE_FRAGMENTS, mode_marks
from ctxscope.inspector.analysis.window import fill_ratio
from ctxscope.inspector.reports.build import turn_cost_doc
from ctxscope.inspector.reports.models import CostDoc
from ctxscope.inspector.reports.world import goal_event_sentence
from ctxscope.inspector.tui.viewmodel.actions import OpenSummary, ShowTurn
from ctxscope.inspector.tui.viewmodel.lines import Line, Run, bar, clip, short_tokens, short_usd
from ctxscope.proxy.responses.vocabulary import side_label

ROW_WIDTH = 80
"""A row's width when the pane's is not known yet."""
MODEL_WIDTH = 12
"""The model column (a longer name is shortened with an ellipsis: `gpt-5.1-codex-m…`)."""
MIN_WORDS_WIDTH = 40
"""The room the words keep on a row's first line before the model column gives way to them."""
MIN_GIST = 6
"""The least room for an answer's gist (`{"cmd…`); with less, the row shows the answer's kind alone."""
WRAP_INDENT = 6
"""Where the words of a wrapped row start on its next lines (under the thread)."""
COST_WIDTH = 9
"""The cost column: a space and `short_usd`'s at most 8 columns (`$0.0123`, `unpriced`)."""
MIN_WORDS_BESIDE_COST = 16
"""The room the words keep on a row's first line with the cost beside the tokens; with less (the
timeline of the three-pane layout), the cost stands on the row's second line, under the duration."""
"""Where the words of a wrapped row start on its next lines (under the thread)."""

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
TOKEN_LABELS: dict[str, str] = {"reported": "rep", "counted": "cnt"}
"""Which figure a row's tokens are (`TokenAttribution.shown`), in short: the backend's reported
input tokens, or ctxscope's own count where the response reported none (the HTML report's
`reported`/`counted`)."""


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
    answer: ShortAnswer | None = None
    """The answer in short (`short_answer`), drawn after the event words."""
    tokens_as: Literal["reported", "counted"] = "counted"
    """Which figure `tokens` is (`TOKEN_LABELS`)."""
    cost: CostDoc | None = None
    """What the request cost: the turn document's `cost` (`turn_cost_doc`), never worked out here."""

    def event_words(self) -> list[str]:
        """The row's events: mode switches, plan submissions, goal events, an error."""
        return [*self.marks, *([] if self.ok else ["error"])]

    def events(self) -> str:
        """The event words of the row, as one text."""
        return ", ".join(self.event_words())

    def short_words(self) -> str:
        """The event words and the answer in short, with its gist, on one line (`mode default →
        plan → message "done."`)."""
        answer = self.answer
        words = _join(self.events(), f"→ {answer.short_head}" if answer else "")
        return f"{words} {answer.gist}" if answer and answer.gist else words

    def line(self, *, width: int = ROW_WIDTH, marked: bool = False, number_width: int = 4) -> Line:
        """The row as a display line every row of which is exactly `width` columns: the fixed
        columns, the words (event words, then the answer in short), and tokens, bar, cost and
        duration at the right. Words that do not fit beside the figures wrap onto more rows under
        the thread (never cut); the model column is shown only where the words keep
        `MIN_WORDS_WIDTH` beside it, and the cost stands under the duration, on the row's second
        line, where the first would keep fewer than `MIN_WORDS_BESIDE_COST` columns for the words.
        `marked` shows the mark-and-diff marker."""
        duration = "-" if self.duration_ms is None else f"{self.duration_ms / 1000:.1f}s"
        flags = ("w" if self.world_changed else " ") + ("c" if self.cache_break else " ") + (" " if self.ok else "!")
        side = self.side is not None
        if side:
            kind = Run(f"- {side_label(self.side or ''):<8} ", "dim")
        else:
            kind = Run(
                f"{KIND_GLYPHS.get(self.kind, '?')} {KIND_WORDS.get(self.kind, self.kind):<8} ",
                f"kind-{self.kind}",
            )
        head_runs = [
            Run("M" if marked else " ", "mark"),
            Run(f"{self.number:>{number_width}} ", "dim"),
            Run(f"{self.thread:<3}", "dim" if side else "thread"),
            kind,
            Run(f"{flags} ", "error" if not self.ok else "world"),
        ]
        # two spaces before the duration: a full bar never touches it, in any font
        figures = [
            Run(f" {short_tokens(self.tokens):>6} ", "dim" if side else ""),
            Run(f"{TOKEN_LABELS[self.tokens_as]} ", "dim"),
            Run(bar(self.fill, 4), "bar"),
        ]
        cost = self.cost_run()
        took = Run(f"  {duration:>5}", "dim")
        fixed = sum(len(r.text) for r in (*head_runs, *figures, took))
        beside = width - fixed - COST_WIDTH >= MIN_WORDS_BESIDE_COST
        tail = [*figures, cost, took] if beside else [*figures, took]
        room = max(0, width - sum(len(r.text) for r in (*head_runs, *tail)))
        if room - (MODEL_WIDTH + 1) >= MIN_WORDS_WIDTH:
            head_runs.append(Run(f"{short_model(self.model, MODEL_WIDTH):<{MODEL_WIDTH}} ", "dim"))
            room -= MODEL_WIDTH + 1
        events = self.events()
        style = "error" if not self.ok and not self.marks else "modemark"
        answer = self.answer
        # one row: the words (with the answer's full kind where it fits, else its short one) beside the figures
        heads = dict.fromkeys((answer.head, answer.short_head)) if answer else {"": None}
        for head in heads if beside else ():
            words = _join(events, f"→ {head}" if head else "")
            if len(words) <= room:
                gist = _gist(answer.gist if answer else "", room - len(words))
                runs = [*head_runs, *_styled(words, len(events), style), Run(gist, "dim")]
                runs.append(Run(" " * (room - len(words) - len(gist))))
                return Line(tuple([*runs, *tail]), ShowTurn(self.number))
        # the words wrap: the first row keeps the figures at its right, the next ones start under
        # the thread (the second keeps the cost at its right where the first had no room for it);
        # an event or the answer's kind is broken only where it is longer than a row
        words = _join(events, f"→ {answer.short_head}" if answer else "")
        protected = ", ".join(e.replace(" ", NBSP) for e in self.event_words()) + words[len(events) :].replace(
            " ", NBSP
        )
        indent = min(WRAP_INDENT, width - 1)
        under = 0 if beside else min(COST_WIDTH, max(0, width - indent - 1))
        rest_width = max(1, width - indent - under)
        rows = wrap_words(protected, room, rest_width)
        if not beside and len(rows) == 1:  # a second line for the cost alone
            rows.append((len(words), len(words)))
        runs = list(head_runs)
        for n, (start, end) in enumerate(rows):
            limit = room if n == 0 else rest_width
            if n:
                runs.append(Run("\n" + " " * indent))
            piece = _styled(words, len(events), style, start, end)
            gist = _gist(answer.gist if answer else "", limit - (end - start)) if n == len(rows) - 1 else ""
            runs += [*piece, Run(gist, "dim"), Run(" " * (limit - (end - start) - len(gist)))]
            if n == 0:
                runs += tail
            elif n == 1 and under:
                runs.append(Run(cost.text[-under:], cost.style))
            elif under:
                runs.append(Run(" " * under))
        return Line(tuple(runs), ShowTurn(self.number))

    def cost_run(self) -> Run:
        """The cost figure as the row shows it (`short_usd`), dimmed where there is no amount."""
        cost = self.cost
        if cost is None:
            return Run(f" {'-':>{COST_WIDTH - 1}}", "dim")
        text = short_usd(cost.usd, reported=cost.reported)
        return Run(f" {text:>{COST_WIDTH - 1}}", "cost" if cost.usd is not None and self.side is None else "dim")


NBSP = "\u00a0"
"""Joins the words of one event (and of the answer's kind) while wrapping, so a row never breaks
`mode default → plan` apart (it is only ever broken where it is longer than a row)."""


def _join(events: str, answer: str) -> str:
    return " ".join(w for w in (events, answer) if w)


def _gist(text: str, room: int) -> str:
    """The answer's gist (its arguments, its text) in what is left of a row: nothing where fewer
    than `MIN_GIST` columns are left, cut with an ellipsis where it is longer."""
    if not text or room < MIN_GIST + 1:
        return ""
    return " " + clip(text, room - 1)


def _styled(words: str, events: int, style: str, start: int = 0, end: int | None = None) -> list[Run]:
    """words[start:end] as runs: the event words (the first `events` characters) in `style`, the
    answer's kind dimmed."""
    end = len(words) if end is None else end
    cut = max(start, min(end, events))
    return [r for r in (Run(words[start:cut], style), Run(words[cut:end], "dim")) if r.text]


def wrap_words(text: str, first: int, rest: int) -> list[tuple[int, int]]:
    """`text` broken at spaces into rows, as (start, end) offsets: the first row at most `first`
    columns (empty when not even its first word fits there), the others at most `rest`; a word
    longer than a row is broken. The spaces at the breaks are left out."""
    rows: list[tuple[int, int]] = []
    start, limit = 0, first
    while len(text) - start > limit:
        end = text.rfind(" ", start, start + limit + 1)
        if end <= start:  # no space to break at: the first row may stay empty, a longer word is broken
            if not rows and limit < rest and text.find(" ", start) != start + limit:
                rows.append((start, start))
                limit = rest
                continue
            end = start + limit
            rows.append((start, end))
            start = end
        else:
            rows.append((start, end))
            start = end + 1
        limit = rest
    rows.append((start, len(text)))
    return rows


def short_model(model: str, width: int) -> str:
    """A model name in `width` columns, shortened with an ellipsis (`gpt-5.1-codex-m…`), so a cut
    name never reads as another real one."""
    return model if len(model) <= width else model[: width - 1] + "…"


def timeline_row(result: TurnAnalysis, *, world_changed: bool, cost: CostDoc | None = None) -> TimelineRow:
    """The row of one analysed turn; tokens are the reported input tokens, else the counted total
    (the analysis's one timeline figure, labelled as every view labels it). `cost`: the turn
    document's cost where the caller has it already (`turn_cost_doc` otherwise)."""
    turn = result.turn
    tokens, tokens_as = result.tokens.shown
    return TimelineRow(
        number=turn.number,
        thread=turn.thread,
        kind=result.change.kind,
        model=turn.model or "?",
        marks=_marks(result),
        tokens=tokens,
        tokens_as=tokens_as,
        fill=fill_ratio(tokens, turn.model),
        duration_ms=turn.exchange.duration_ms,
        ok=turn.status == "completed" and not (turn.error and "after completion" not in turn.error),
        world_changed=world_changed and turn.side is None,
        side=turn.side,
        answer=short_answer(result.answer),
        cost=cost or turn_cost_doc(result),
    )


@dataclass(frozen=True)
class ShortAnswer:
    """The answer as the timeline says it: its kind, whole (`function_call exec_command`, or the
    shorter `exec_command` where a row is narrow), then as much of its gist as the row has room for."""

    head: str
    short_head: str
    gist: str = ""


def short_answer(answer: Answer) -> ShortAnswer:
    """The tool call or the message the answer made (its first such item, `(+N more)` for the
    rest), not the reasoning that came before it; the status first when it did not complete."""
    items = [i for i in answer.items if i.type != "reasoning"] or [i for i in answer.items if i.text]
    status = "" if answer.status == "completed" else f"{answer.status}: "
    if not items:
        word = answer.status if answer.status != "completed" else "no output"
        return ShortAnswer(word, word)
    step = items[0].step
    more = f" (+{len(items) - 1} more)" if len(items) > 1 else ""
    short = items[0].name or step.kind
    return ShortAnswer(f"{status}{step.kind}{more}", f"{status}{short}{more}", step.gist)


def _marks(result: TurnAnalysis) -> tuple[str, ...]:
    """Plan-mode marks, then what happened to the goal (`goal continuation #7`, `goal paused`),
    which names the goal better than the bare mark of its fragment."""
    goal = [goal_event_sentence(e) for e in result.goal_events]
    plain = MODE_FRAGMENTS["goal"]
    return (*(m for m in mode_marks(result) if not (goal and m == plain)), *goal)


def other_requests_line(count: int) -> Line:
    """The folded row for requests that are not model turns (models lists and the like)."""
    noun = "request" if count == 1 else "requests"
    return Line.plain(f"  +{count} other {noun} (not model turns)", "dim", OpenSummary("others"))


__all__ = [
    "KIND_GLYPHS",
    "KIND_WORDS",
    "ROW_WIDTH",
    "TOKEN_LABELS",
    "ShortAnswer",
    "TimelineRow",
    "other_requests_line",
    "short_answer",
    "short_model",
    "timeline_row",
    "wrap_words",
]

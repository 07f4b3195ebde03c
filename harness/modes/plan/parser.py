"""The `<proposed_plan>` stream parser: splits assistant text into visible text and a plan block.

Codex's protocol: the plan is one block whose tags stand alone on their lines, at most one per turn.
The parser is line-oriented so a tag split across stream chunks is still found: a partial line that
could still become a tag line is held back; once it cannot, it is released (and the rest of that line
passes straight through). Only the first block of a turn is the plan; a later block stays in the
visible text as written and is counted in `extra_blocks` so the mode can say it was ignored. A block
still open when the text ends is not a plan (`unclosed`); its text is released as visible text.

Pure: no I/O, no events; `feed` returns `Segment`s, `finish` flushes what is held.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

__all__ = ["CLOSE_TAG", "OPEN_TAG", "ProposedPlanParser", "Segment", "SplitText", "split_proposed_plan"]

OPEN_TAG = "<proposed_plan>"
CLOSE_TAG = "</proposed_plan>"


@dataclass(frozen=True)
class Segment:
    """A piece of streamed text: shown to the person (`text`) or part of the plan block (`plan`)."""

    kind: Literal["text", "plan"]
    text: str


@dataclass
class ProposedPlanParser:
    """Feed deltas in order; read `plan` once `finish()` was called (None: no complete block)."""

    _line: str = ""
    """The current line while it could still be a tag line."""
    _midline: bool = False
    """Part of the current line was already released: the rest of it is plain content."""
    _inside: bool = False
    _block: list[str] = field(default_factory=list)
    """The open block's lines, kept so an unclosed block can be released as text at the end."""
    plan: str | None = None
    """The first complete block's inner Markdown (tag lines excluded)."""
    extra_blocks: int = 0
    """Blocks after the first one (left in the visible text)."""
    unclosed: bool = False

    def feed(self, delta: str) -> list[Segment]:
        out: list[Segment] = []
        self._line += delta
        while "\n" in self._line:
            line, self._line = self._line.split("\n", 1)
            self._complete(line + "\n", out)
        if self._line and (self._midline or not self._could_be_tag(self._line)):
            self._content(self._line, out)
            self._midline, self._line = True, ""
        return _merge(out)

    def finish(self) -> list[Segment]:
        """The end of the text: flush the held line; an open block becomes visible text."""
        out: list[Segment] = []
        if self._line:
            line, self._line = self._line, ""
            self._complete(line, out)
        if self._inside:
            self._inside, self.unclosed = False, True
            out.append(Segment("text", OPEN_TAG + "\n" + "".join(self._block)))
            self._block = []
        return _merge(out)

    def _target(self) -> str:
        return CLOSE_TAG if self._inside else OPEN_TAG

    def _could_be_tag(self, partial: str) -> bool:
        stripped = partial.strip()
        return self._target().startswith(stripped) or stripped == self._target()

    def _complete(self, line: str, out: list[Segment]) -> None:
        midline, self._midline = self._midline, False
        if not midline and line.strip() == self._target():
            if not self._inside and self.plan is not None:
                self.extra_blocks += 1  # only the first block is the plan: this one stays visible
                out.append(Segment("text", line))
            elif not self._inside:
                self._inside, self._block = True, []
            else:
                self._inside, self.plan = False, "".join(self._block)
                self._block = []
            return
        self._content(line, out)

    def _content(self, text: str, out: list[Segment]) -> None:
        if self._inside:
            self._block.append(text)
            out.append(Segment("plan", text))
        else:
            out.append(Segment("text", text))


def _merge(segments: list[Segment]) -> list[Segment]:
    merged: list[Segment] = []
    for seg in segments:
        if not seg.text:
            continue
        if merged and merged[-1].kind == seg.kind:
            merged[-1] = Segment(seg.kind, merged[-1].text + seg.text)
        else:
            merged.append(seg)
    return merged


@dataclass(frozen=True)
class SplitText:
    """A whole assistant text split the way the stream parser splits it."""

    visible: str
    plan: str | None
    extra_blocks: int
    unclosed: bool


def split_proposed_plan(text: str) -> SplitText:
    """Visible text and plan of a complete answer (the same rules as the streaming parser)."""
    parser = ProposedPlanParser()
    segments = parser.feed(text) + parser.finish()
    visible = "".join(s.text for s in segments if s.kind == "text")
    return SplitText(visible, parser.plan, parser.extra_blocks, parser.unclosed)

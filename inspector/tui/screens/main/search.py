"""Finding turns: search (`/`, `n`, `N`), filter (`f`), go to turn N (`g`), the world-state jumps
(`[`, `]`) and the palette's "diff turn A with B"."""

from __future__ import annotations

from ctxscope.inspector.tui.screens.main.base import MainBase
from ctxscope.inspector.tui.screens.main.layout import THREE_PANES
from ctxscope.inspector.tui.screens.prompt import PromptScreen
from ctxscope.inspector.tui.viewmodel.lines import count
from ctxscope.proxy.errors import CtxscopeError


class Finding(MainBase):
    """Moves the cursor to the turns asked for."""

    def action_search(self) -> None:
        self.app.push_screen(PromptScreen("search /", value=self.inspector.needle), self.search)

    def search(self, needle: str | None) -> None:
        """Search for `needle` and jump to the first hit at or after the current turn."""
        if needle is None:
            return
        hits = self.inspector.find(needle)
        self.hit_index = None
        if not hits:
            self.notify(f"{needle!r}: not found", severity="warning")
            return
        first = self.inspector.first_hit(self.current or 1)
        self._visit(first)
        self.notify(f"{count(len(hits), 'hit')}; turn {hits[first].turn}: {hits[first].label}")

    def _visit(self, index: int) -> None:
        """Move to hit `index`: its turn in the timeline, its item under the turn pane's cursor."""
        self.hit_index = index
        hit = self.inspector.hits[index]
        if self.size.width < THREE_PANES and self.pane == "world":
            self.show_pane("turn")
        self.go_to_turn(hit.turn)

    def action_next_hit(self, forward: bool) -> None:
        if self.current is None:
            return
        if not self.inspector.hits:
            self.notify("no search: press / first")
            return
        index = self.inspector.step_hit(self.hit_index, self.current, forward)
        self._visit(index)
        hit = self.inspector.hits[index]
        self.notify(f"hit {index + 1} of {len(self.inspector.hits)}: turn {hit.turn}: {hit.label}")

    def action_filter(self) -> None:
        self.app.push_screen(
            PromptScreen(
                "filter (empty: all turns)",
                value=self.inspector.filter,
                placeholder="kind:compaction changed:cwd",
            ),
            self.apply_filter,
        )

    def apply_filter(self, expression: str | None) -> None:
        """Show only the turns matching `expression`."""
        if expression is None:
            return
        try:
            self.inspector.set_filter(expression)
        except CtxscopeError as err:
            self.notify(str(err), severity="error")
            return
        if expression and not self.inspector.visible:
            self.notify(f"no turn matches {expression!r}", severity="warning")
        if self.inspector.visible and self.current not in self.inspector.visible:
            self.current = self.inspector.visible[0]  # the detail pane follows the filter to its first turn
        self.redraw()

    def action_go_to(self) -> None:
        self.app.push_screen(PromptScreen("go to turn"), self._go_to_text)

    def _go_to_text(self, text: str | None) -> None:
        if text is not None and text.strip().isdigit():
            self.go_to_turn(int(text))
        elif text:
            self.notify(f"{text!r} is not a turn number", severity="error")

    def action_world_jump(self, forward: bool) -> None:
        if self.current is None:
            return
        target = self.inspector.world_jump(self.current, forward)
        if target is None:
            self.notify("no further world-state change in that direction")
        else:
            self.go_to_turn(target)

    def diff_turns(self, a: int, b: int) -> None:
        """Show turn `b` diffed against turn `a` (marks `a`)."""
        try:
            self.inspector.check_turn(a)
        except CtxscopeError as err:
            self.notify(str(err), severity="error")
            return
        self.inspector.marked = a
        self.view = "turn"
        self.timeline_changed()
        self.go_to_turn(b)


__all__ = ["Finding"]

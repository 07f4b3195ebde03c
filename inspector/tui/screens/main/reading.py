"""What the reader does to the turn shown: mark it (`m`), open a fold or an item (Enter), copy an
item's JSON (`y`), export the turn (`e`), wrap long lines (`W`), sort the tokens (`s`), fold the
side requests (`h`)."""

from __future__ import annotations

from pathlib import Path

from ctxscope.inspector.tui.messages import FoldToggled, ItemOpened, RowOpened
from ctxscope.inspector.tui.screens.item import ItemScreen
from ctxscope.inspector.tui.screens.main.base import MainBase
from ctxscope.inspector.tui.viewmodel.actions import OpenItem
from ctxscope.inspector.tui.widgets.lines_view import LinesView
from ctxscope.proxy.errors import ConfigError
from ctxscope.proxy.files import write_private


class Reading(MainBase):
    """Acts on the turn under the cursor and the line under the turn pane's cursor."""

    def on_fold_toggled(self, event: FoldToggled) -> None:
        if self.current is not None:
            self.inspector.toggle_fold(event.fold_id)
            self.render_turn(self.current, self.view)

    def on_item_opened(self, event: ItemOpened) -> None:
        detail = self.inspector.item(event.ref)
        if detail is not None:
            full = self.inspector.item(event.ref, full=True) if detail.truncated else None
            self.app.push_screen(ItemScreen(detail, full))

    def on_row_opened(self, event: RowOpened) -> None:
        if event.row == "side":
            self.action_toggle_side()
        else:
            self.notify(f"{self.inspector.other_requests} requests are not model turns (ctxscope info lists them)")

    def action_mark(self) -> None:
        if self.current is None:
            return
        self.inspector.toggle_mark(self.current)
        self.redraw()

    def action_sort_tokens(self) -> None:
        self.inspector.cycle_token_sort()
        self.redraw()

    def action_toggle_side(self) -> None:
        self.inspector.toggle_side()
        self.redraw()

    def action_copy_item(self) -> None:
        action = self.query_one("#turn", LinesView).current_action
        if not isinstance(action, OpenItem):
            self.notify("move the cursor in the turn pane onto an item first")
            return
        detail = self.inspector.item(action, full=True)
        if detail is not None:
            self.app.copy_to_clipboard(detail.json)
            self.notify("item JSON copied to the clipboard")

    def action_export(self) -> None:
        if self.current is None:
            return
        target = Path.cwd() / f"{self.path.stem}-turn{self.current}.md"
        text = self.inspector.markdown(self.current)
        try:  # owner-only, like every file ctxscope writes: a turn holds the conversation
            write_private(target, lambda stream: stream.write(text), inputs=[self.path])
        except ConfigError as err:
            self.notify(str(err), severity="error")
            return
        self.notify(f"turn {self.current} written to {target.name}")

    def action_toggle_wrap(self) -> None:
        """Long lines of the turn view wrap in place (a prompt, AGENTS.md, a tool output), or are
        cut again with an ellipsis."""
        pane = self.query_one("#turn", LinesView)
        pane.toggle_wrap()
        self.notify("long lines wrap" if pane.wrap else "long lines are cut (W wraps them)")


__all__ = ["Reading"]

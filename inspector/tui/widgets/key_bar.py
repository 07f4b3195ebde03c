"""The key bar at the bottom of every screen: the screen's shown keys, each whole. Textual's
`Footer` gives every key an equal grid column and squeezes the labels when they do not all fit
(`^pale tte` at 100 columns); this bar shows the keys in binding order as long as each fits whole,
then the command palette's key at the right where there is room. A click presses the key."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.events import Click, Resize
from textual.widget import Widget


@dataclass(frozen=True)
class Shown:
    """One key on the bar: its key, label and the columns it takes."""

    key: str
    display: str
    label: str
    start: int = 0

    @property
    def width(self) -> int:
        return len(self.display) + len(self.label) + 3  # " KEY LABEL "


def fit_keys(keys: list[Shown], width: int, palette: Shown | None) -> list[Shown]:
    """The keys that fit whole in `width` columns, in order, with their start columns; the palette
    key last, at the right, where it fits after them."""
    shown: list[Shown] = []
    used = 0
    room = width - (palette.width + 1 if palette is not None else 0)
    for key in keys:
        if used + key.width > room:
            break
        shown.append(Shown(key.key, key.display, key.label, used))
        used += key.width
    if palette is not None and used + palette.width <= width:
        shown.append(Shown(palette.key, palette.display, palette.label, width - palette.width))
    return shown


class KeyBar(Widget):
    """The screen's keys, none cut."""

    DEFAULT_CSS = """
    KeyBar {
        dock: bottom;
        height: 1;
        background: $footer-background;
    }
    KeyBar > .key-bar--key {
        color: $footer-key-foreground;
        text-style: bold;
    }
    KeyBar > .key-bar--label {
        color: $footer-description-foreground;
    }
    """
    COMPONENT_CLASSES = {"key-bar--key", "key-bar--label"}

    def __init__(self) -> None:
        super().__init__()
        self._shown: list[Shown] = []

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _bindings_changed(self, _screen: object) -> None:
        self.refresh()

    def on_resize(self, event: Resize) -> None:
        self.refresh()

    def keys(self) -> tuple[list[Shown], Shown | None]:
        """The screen's shown bindings (one per action) and the palette's key."""
        keys: list[Shown] = []
        actions: set[str] = set()
        palette: Shown | None = None
        for _node, binding, enabled, _tooltip in self.screen.active_bindings.values():
            display = self.app.get_key_display(binding)
            if binding.key == self.app.COMMAND_PALETTE_BINDING and self.app.ENABLE_COMMAND_PALETTE:
                palette = Shown(binding.key, display, "palette")
            elif binding.show and enabled and binding.action not in actions:
                actions.add(binding.action)
                keys.append(Shown(binding.key, display, binding.description))
        return keys, palette

    def render(self) -> Text:
        keys, palette = self.keys()
        self._shown = fit_keys(keys, self.size.width, palette)
        key_style = self.get_component_rich_style("key-bar--key")
        label_style = self.get_component_rich_style("key-bar--label")
        text = Text(no_wrap=True, overflow="crop", end="")
        for key in self._shown:
            text.append(" " * (key.start - len(text.plain)))
            text.append(f" {key.display} ", key_style)
            text.append(f"{key.label} ", label_style)
        return text

    def on_click(self, event: Click) -> None:
        for key in self._shown:
            if key.start <= event.x < key.start + key.width:
                self.app.simulate_key(key.key)
                return


__all__ = ["KeyBar", "Shown", "fit_keys"]

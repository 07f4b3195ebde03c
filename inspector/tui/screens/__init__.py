"""The inspector's screens: main (one recording), compare (two), and dialogs (help, item, prompt)."""

from __future__ import annotations

from inspector.tui.screens.compare import CompareScreen
from inspector.tui.screens.help import KEYS, HelpScreen
from inspector.tui.screens.item import ItemScreen
from inspector.tui.screens.main import MainScreen
from inspector.tui.screens.prompt import PromptScreen

__all__ = ["KEYS", "CompareScreen", "HelpScreen", "ItemScreen", "MainScreen", "PromptScreen"]

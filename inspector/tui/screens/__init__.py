"""The inspector's screens: the main screen (one recording) and its dialogs (help, item, prompt)."""

from __future__ import annotations

from inspector.tui.screens.help import KEYS, HelpScreen
from inspector.tui.screens.item import ItemScreen
from inspector.tui.screens.main import MainScreen
from inspector.tui.screens.prompt import PromptScreen

__all__ = ["KEYS", "HelpScreen", "ItemScreen", "MainScreen", "PromptScreen"]

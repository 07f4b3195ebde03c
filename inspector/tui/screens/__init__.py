"""The inspector's screens: main (one recording), compare (two), and dialogs (help, item, prompt)."""

from __future__ import annotations

from ctxscope.inspector.tui.screens.compare import CompareScreen
from ctxscope.inspector.tui.screens.help import KEYS, HelpScreen
from ctxscope.inspector.tui.screens.item import ItemScreen
from ctxscope.inspector.tui.screens.main import MainScreen
from ctxscope.inspector.tui.screens.prompt import PromptScreen

__all__ = ["KEYS", "CompareScreen", "HelpScreen", "ItemScreen", "MainScreen", "PromptScreen"]

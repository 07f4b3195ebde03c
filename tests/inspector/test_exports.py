"""The inspector's public surface: every name in each `__all__` exists (and nothing else is promised)."""

from __future__ import annotations

import importlib

import pytest


@pytest.mark.parametrize(
    "module",
    [
        "ctxscope.inspector",
        "ctxscope.inspector.analysis",
        "ctxscope.inspector.reports",
        "ctxscope.inspector.tui",
        "ctxscope.inspector.tui.viewmodel",
        "ctxscope.inspector.tui.screens",
        "ctxscope.inspector.tui.widgets",
    ],
)
def test_all_names_exist(module: str) -> None:
    mod = importlib.import_module(module)
    assert mod.__all__, module
    missing = [name for name in mod.__all__ if not hasattr(mod, name)]
    assert missing == []


def test_cli_registers_the_inspector_commands() -> None:
    import typer

    from ctxscope.inspector.cli import register

    app = typer.Typer()
    register(app)
    assert sorted(c.name or "" for c in app.registered_commands) == ["compare", "diff", "inspect", "show"]

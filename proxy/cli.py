"""The proxy package's commands: `proxy` (capture), `replay`, `export` (`info` is the inspector's)."""

from __future__ import annotations

import importlib

import typer

__all__ = ["register"]

# Each module exposes register(app). Modules still being written are skipped until they exist.
_COMMAND_MODULES = ("proxy.capture_cli", "proxy.replay.cli", "proxy.store.cli")


def register(app: typer.Typer) -> None:
    for name in _COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as err:
            if err.name in (name, name.rsplit(".", 1)[0]):
                continue
            raise
        module.register(app)

"""The installed ctxscope's version, from its distribution metadata (never a copy kept in the code)."""

from __future__ import annotations

__all__ = ["installed_version"]


def installed_version() -> str:
    """`0.1.0` as installed; `0+unknown` when imported from a source tree that was never installed."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("ctxscope")
    except PackageNotFoundError:
        return "0+unknown"

"""The recording file: write (redacted, deduplicated, flushed per line) and read (typed, resolved)."""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from .codec import InputList
from .format import FORMAT_NAME, FORMAT_VERSION
from .reader import Recording, read_recording

if TYPE_CHECKING:
    from ..redact import Redactor  # re-exported: the writer redacts with it
    from .writer import RecordingWriter

_WRITING: dict[str, str] = {"Redactor": "ctxscope.proxy.redact", "RecordingWriter": "ctxscope.proxy.store.writer"}
"""The writer's names, imported on first use (PEP 562): a command that only reads a recording
(`info`, `diff`) does not load the redactor's patterns."""

__all__ = [
    "FORMAT_NAME",
    "FORMAT_VERSION",
    "InputList",
    "Recording",
    "RecordingWriter",
    "Redactor",
    "read_recording",
]


def __getattr__(name: str) -> Any:
    module = _WRITING.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value

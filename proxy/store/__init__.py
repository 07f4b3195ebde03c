"""The recording file: write (redacted, deduplicated, flushed per line) and read (typed, resolved)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ctxscope.proxy.lazy import lazy_attributes

from .codec import InputList, SharedInput
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
    "SharedInput",
    "read_recording",
]


__getattr__ = lazy_attributes(__name__, _WRITING, __all__, globals())[0]

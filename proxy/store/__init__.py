"""The recording file: write (redacted, deduplicated, flushed per line) and read (typed, resolved)."""

from __future__ import annotations

from ..redact import Redactor  # re-exported: the writer redacts with it
from .format import FORMAT_NAME, FORMAT_VERSION
from .reader import Recording, read_recording
from .writer import RecordingWriter

__all__ = ["FORMAT_NAME", "FORMAT_VERSION", "Recording", "RecordingWriter", "Redactor", "read_recording"]

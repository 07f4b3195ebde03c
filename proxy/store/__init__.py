"""The recording file: write (redacted, deduplicated, flushed per line) and read (typed, resolved)."""

from __future__ import annotations

from .format import FORMAT_NAME, FORMAT_VERSION
from .reader import Recording, read_recording
from .redact import Redactor
from .writer import RecordingWriter

__all__ = ["FORMAT_NAME", "FORMAT_VERSION", "Recording", "RecordingWriter", "Redactor", "read_recording"]

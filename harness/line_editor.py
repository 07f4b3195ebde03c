"""The chat's line editor: prompt_toolkit on a terminal, a plain line reader everywhere else.

On a terminal (stdin and stdout are ttys):
- the prompt has history (kept owner-only in the ctxscope home) and the usual editing keys;
- control keys never become text: Ctrl-L clears the screen, others are ignored (prompt_toolkit's
  bindings), so no form feed or escape sequence reaches the model;
- Shift+Tab runs the chat's `toggle` (plan mode on and off, as in Codex and Claude Code) without
  leaving the prompt; the prompt shows the mode;
- a picker's line (`answer`) takes Esc as "no choice" (`Escaped`), never as text;
- keys typed while a turn runs are not echoed into the streamed output; afterwards they are kept for
  the next prompt (`keep_type_ahead`, KnightCode keeps queued input) or dropped with a one-line
  notice. Either way they never answer a question or a picker: those read only keys typed after
  they were shown.
Elsewhere (a pipe, a test) lines are read as they come, the prompts going to stderr.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

__all__ = ["Escaped", "LineEditor", "active_editor", "on_terminal"]


class Escaped(Exception):
    """Esc was pressed at a picker: no choice was made."""


def on_terminal() -> bool:
    """Whether the chat talks to a person at a terminal (stdin and stdout are ttys)."""
    try:
        return os.isatty(sys.stdin.fileno()) and os.isatty(sys.stdout.fileno())
    except (AttributeError, ValueError, OSError):
        return False


_ACTIVE: list[LineEditor] = []


def active_editor() -> LineEditor | None:
    """The editor of the running chat, if any (questions asked mid-turn read through it)."""
    return _ACTIVE[-1] if _ACTIVE else None


class LineEditor:
    """One chat's prompt on a terminal (see the module docstring)."""

    def __init__(
        self,
        err: TextIO,
        *,
        history: Path | None = None,
        toggle: Callable[[], str | None] | None = None,
        mode_label: Callable[[], str] | None = None,
        keep_type_ahead: bool = False,
    ) -> None:
        from prompt_toolkit import PromptSession
        from prompt_toolkit.history import FileHistory, InMemoryHistory
        from prompt_toolkit.key_binding import KeyBindings

        self.err = err
        self.keep_type_ahead = keep_type_ahead
        self.queued: list[str] = []
        """Lines typed ahead and kept: each pre-fills one later prompt (sent only with Enter)."""
        self._toggle = toggle
        self._mode_label = mode_label or (lambda: "")
        keys = KeyBindings()

        @keys.add("s-tab")
        def _shift_tab(event: Any) -> None:
            if self._toggle is None:
                return
            said = self._toggle()
            if said:
                from prompt_toolkit.application import run_in_terminal

                run_in_terminal(lambda: self._say(said))

        store: Any = InMemoryHistory()
        if history is not None:
            history.parent.mkdir(parents=True, exist_ok=True)
            os.close(os.open(history, os.O_CREAT | os.O_APPEND | os.O_WRONLY, 0o600))
            store = FileHistory(str(history))
        self._session: Any = PromptSession(history=store, key_bindings=keys)
        picker_keys = KeyBindings()

        @picker_keys.add("escape", eager=True)
        def _escape(event: Any) -> None:
            event.app.exit(exception=Escaped())

        self._picker: Any = PromptSession(key_bindings=picker_keys)
        self._saved: Any = None
        _ACTIVE.append(self)

    def close(self) -> None:
        if self in _ACTIVE:
            _ACTIVE.remove(self)

    def _say(self, text: str) -> None:
        self.err.write(text + "\n")
        self.err.flush()

    # ---- reading ----------------------------------------------------------------------------

    def prompt(self, message: str) -> str:
        """The chat's line (Ctrl-C: KeyboardInterrupt, Ctrl-D: EOFError, as `input`)."""
        default = self.queued.pop(0) if self.queued else ""
        line: str = self._session.prompt(lambda: self._mode_label() + message, default=default)
        return line

    def answer(self, message: str) -> str:
        """A picker's or a question's line: only keys typed now; Esc raises `Escaped`."""
        self.set_aside()
        line: str = self._picker.prompt(message)
        return line

    # ---- keys typed while a turn runs ------------------------------------------------------

    @contextmanager
    def turn(self) -> Iterator[None]:
        """While a turn runs: typed keys are not echoed; afterwards they are kept or dropped."""
        self._hold()
        try:
            yield
        finally:
            self.set_aside()
            self._release()

    def _hold(self) -> None:
        import termios

        fd = sys.stdin.fileno()
        try:
            self._saved = termios.tcgetattr(fd)
            quiet = termios.tcgetattr(fd)
            quiet[3] &= ~(termios.ECHO | termios.ICANON)  # lflag; ISIG stays: Ctrl-C still interrupts
            termios.tcsetattr(fd, termios.TCSANOW, quiet)
        except termios.error:
            self._saved = None

    def _release(self) -> None:
        import termios

        if self._saved is not None:
            try:
                termios.tcsetattr(sys.stdin.fileno(), termios.TCSANOW, self._saved)
            except termios.error:
                pass
            self._saved = None

    def set_aside(self) -> None:
        """Take what was typed ahead off the terminal: kept for later prompts, or dropped (said)."""
        typed = _pending(sys.stdin.fileno())
        text = "".join(ch for ch in typed if ch in "\r\n" or ch.isprintable())
        lines = [line.strip() for line in text.replace("\r", "\n").split("\n")]
        lines = [line for line in lines if line]
        if not lines:
            return
        if self.keep_type_ahead:
            self.queued.extend(lines)
            self._say(f"note: kept {len(lines)} line(s) typed ahead for the prompt (Enter sends each)")
        else:
            shown = " / ".join(lines)
            shown = shown if len(shown) <= 60 else shown[:59] + "…"
            self._say(f"note: dropped what was typed while the agent worked: {shown!r}")


def _pending(fd: int) -> str:
    """Everything waiting in the terminal's input queue, without blocking."""
    import select

    chunks = []
    for _ in range(64):  # bounded: a terminal queue holds a few KiB at most
        ready, _w, _x = select.select([fd], [], [], 0)
        if not ready:
            break
        data = os.read(fd, 4096)
        if not data:
            break
        chunks.append(data)
    return b"".join(chunks).decode(errors="replace")

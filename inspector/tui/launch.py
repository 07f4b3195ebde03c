"""What `ctxscope inspect` does with its arguments: pick the recording(s), check the options, then
run the app in the terminal or render one screen to SVG. Every bad input is a one-line
`CtxscopeError` raised before the app starts.
"""

from __future__ import annotations

import stat
import sys
import time
from pathlib import Path

from ctxscope.inspector.tui.loader import newest_recording
from ctxscope.inspector.tui.snapshot import parse_size, view_args, write_snapshot
from ctxscope.proxy.errors import ConfigError, RecordingError
from ctxscope.proxy.files import input_stat

WAIT_POLL_S = 0.2


def _check_file(path: Path, *, follow: bool = False) -> Path:
    info = input_stat(path)
    if info is None and follow and path.parent.is_dir():
        return _wait_for(path)
    if info is None:
        raise RecordingError(f"{path}: no such file")
    if stat.S_ISDIR(info.st_mode):
        raise RecordingError(f"{path} is a folder: pass a recording file (.jsonl)")
    return path


def launch(
    files: list[Path],
    *,
    follow: bool = False,
    snapshot: Path | None = None,
    turn: int | None = None,
    view: str | None = None,
    size: str = "120x40",
) -> None:
    """Run `ctxscope inspect`. The app opens with the focus on the timeline whatever `view` is:
    the view only says what is shown beside it."""
    if len(files) > 2:
        raise ConfigError("inspect takes one recording, or two to compare them")
    if follow and len(files) > 1:
        raise ConfigError("--follow tails one recording")
    paths = [_check_file(p, follow=follow) for p in files] or [newest_recording()]
    if turn is not None and turn < 1:
        raise ConfigError(f"--turn {turn}: turns are numbered from 1")
    if snapshot is not None:
        parse_size(size)
        view_args(view)
        other = paths[1] if len(paths) == 2 else None
        if other is not None and view is not None:
            raise ConfigError("--view names a view of one recording; two are shown on the compare screen")
        write_snapshot(paths[0], snapshot, turn=turn, view=view, size=size, other=other)
        return
    from ctxscope.inspector.tui.app import InspectorApp

    main_view, right = view_args(view)
    other = paths[1] if len(paths) == 2 else None
    InspectorApp(paths[0], other, turn=turn, view=main_view, right=right, follow=follow).run()


def _wait_for(path: Path) -> Path:
    """`--follow` on a recording not written yet (a capture about to start): wait until it has its
    header line, saying so once on stderr (Ctrl-C stops)."""
    print(f"waiting for {path} to be written (Ctrl-C to stop)", file=sys.stderr, flush=True)
    while True:
        try:
            with path.open("rb") as stream:
                if b"\n" in stream.read(1 << 16):
                    return path
        except FileNotFoundError:
            pass
        time.sleep(WAIT_POLL_S)


__all__ = ["launch"]

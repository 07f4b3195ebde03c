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
SNAPSHOT_SIZE = "120x40"
"""`--snapshot`'s screen when `--size` is not given."""


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
    size: str = SNAPSHOT_SIZE,
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


_VALUES = {"--turn": "turn", "-t": "turn", "--view": "view", "--snapshot": "snapshot", "--size": "size"}
"""`inspect`'s options that take a value, by every name the typer command gives them."""


def run_fast(args: list[str]) -> bool:
    """Run `ctxscope inspect ARGS` without the typer app when every argument is one it takes (up to
    two recordings, `--follow`, `--turn`/`-t N`, `--view V`, `--snapshot FILE`, `--size CxR`, as
    `--name value` or `--name=value`): True. Anything else (`--help`, a mistake, a value that is not
    one) does nothing (False) and typer runs the command with its own words. The typer route imports
    click, typer's adapters and every `ctxscope.inspector.cli` command's renderers before the app starts."""
    files: list[Path] = []
    given: dict[str, str] = {}
    follow = False
    rest = iter(args)
    for arg in rest:
        name, eq, inline = arg.partition("=") if arg.startswith("--") else (arg, "", "")
        if arg == "--":
            files += map(Path, rest)
        elif name == "--follow" and not eq:
            follow = True
        elif name in _VALUES:
            value = inline if eq else next(rest, None)
            if value is None or (not eq and value.startswith("-")):
                return False
            given[_VALUES[name]] = value
        elif arg.startswith("-"):
            return False
        else:
            files.append(Path(arg))
    try:
        turn = int(given["turn"]) if "turn" in given else None
    except ValueError:
        return False
    snapshot = Path(given["snapshot"]) if "snapshot" in given else None
    launch(
        files,
        follow=follow,
        snapshot=snapshot,
        turn=turn,
        view=given.get("view"),
        size=given.get("size", SNAPSHOT_SIZE),
    )
    return True


__all__ = ["launch", "run_fast"]

"""read_file, list_dir, grep_files: output shape, limits, and workspace confinement."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from tools_support import call, make_router

from ctxscope.harness.tools.grep_files import GrepFiles
from ctxscope.harness.tools.router import default_tools


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "src" / "pkg" / "a.py").write_text("import os\n\ndef alpha():\n    return 'needle'\n")
    (root / "src" / "b.txt").write_text("needle in text\nno match\nNEEDLE upper\n")
    (root / ".hidden").mkdir()
    (root / ".hidden" / "h.txt").write_text("needle hidden\n")
    (root / ".git").mkdir()
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (root / "bin.dat").write_bytes(b"needle\0\1\2")
    (root / "README.md").write_text("# readme\n")
    (tmp_path / "outside.txt").write_text("needle outside\n")
    return root


def python_grep_router(ws: Path, **ctx: object) -> object:
    tools = [t for t in default_tools() if t.name != "grep_files"] + [GrepFiles(use_rg=False)]
    return make_router(ws, tools=tools, **ctx)


def test_read_file_numbers_lines(ws: Path) -> None:
    out = call(make_router(ws), "read_file", {"path": "src/pkg/a.py"})
    assert out == "L1: import os\nL2: \nL3: def alpha():\nL4:     return 'needle'"


def test_read_file_window_and_continuation(ws: Path) -> None:
    (ws / "long.txt").write_text("".join(f"line {i}\n" for i in range(1, 101)))
    out = call(make_router(ws), "read_file", {"path": "long.txt", "offset": 10, "limit": 3})
    assert out == "L10: line 10\nL11: line 11\nL12: line 12\n[... 88 more lines; continue with offset=13 ...]"
    out = call(make_router(ws), "read_file", {"path": "long.txt", "offset": 99})
    assert out == "L99: line 99\nL100: line 100"
    out = call(make_router(ws), "read_file", {"path": "long.txt", "offset": 500})
    assert out == "read_file: offset 500 is past the end of long.txt (100 lines)"


def test_read_file_caps_limit_and_line_length(ws: Path) -> None:
    (ws / "big.txt").write_text("x" * 2000 + "\n" + "".join(f"{i}\n" for i in range(9000)))
    out = call(make_router(ws), "read_file", {"path": "big.txt", "limit": 100000})
    lines = out.split("\n")
    assert lines[0] == "L1: " + "x" * 500 + " [... 1500 more characters]"
    assert len(lines) == 5001 and lines[-1] == "[... 4001 more lines; continue with offset=5001 ...]"


def test_read_file_refusals(ws: Path) -> None:
    router = make_router(ws)
    assert (
        call(router, "read_file", {"path": "bin.dat"})
        == "read_file: bin.dat looks like a binary file; it was not read"
    )
    assert "is a directory; use list_dir" in call(router, "read_file", {"path": "src"})
    assert call(router, "read_file", {"path": "nope"}) == "read_file: nope does not exist"
    out = call(router, "read_file", {"path": "../outside.txt"})
    assert out.startswith("../outside.txt is outside the workspace") and "cannot be read" in out
    (ws / "empty.txt").write_text("")
    assert call(router, "read_file", {"path": "empty.txt"}) == "empty.txt is empty"
    assert call(router, "read_file", {"path": "README.md", "offset": 0}).startswith(
        "invalid arguments for read_file: offset"
    )


def test_danger_full_access_reads_outside(ws: Path) -> None:
    router = make_router(ws, sandbox_mode="danger-full-access")
    assert call(router, "read_file", {"path": "../outside.txt"}) == "L1: needle outside"


def test_read_only_sandbox_still_reads_inside(ws: Path) -> None:
    assert (
        call(make_router(ws, sandbox_mode="read-only"), "read_file", {"path": "README.md"}) == "L1: # readme"
    )


def test_list_dir_tree_depth_and_marks(ws: Path) -> None:
    (ws / "link").symlink_to(ws / "src")
    out = call(make_router(ws), "list_dir", {"path": ".", "depth": 2})
    assert out.split("\n") == [
        f"Absolute path: {ws}",
        ".git/",
        ".hidden/",
        "  h.txt",
        "README.md",
        "bin.dat",
        "link@",
        "src/",
        "  b.txt",
        "  pkg/",
    ]
    deep = call(make_router(ws), "list_dir", {"path": "src", "depth": 5})
    assert deep.split("\n")[1:] == ["b.txt", "pkg/", "  a.py"]


def test_list_dir_limit_and_errors(ws: Path) -> None:
    for i in range(30):
        (ws / f"f{i:02}.txt").write_text("")
    out = call(make_router(ws), "list_dir", {"depth": 1, "limit": 5})
    lines = out.split("\n")
    assert (
        len(lines) == 7 and lines[-1] == "[... more than 5 entries; list a subdirectory or lower depth ...]"
    )
    router = make_router(ws)
    assert call(router, "list_dir", {"path": "README.md"}).startswith(
        "list_dir: README.md is not a directory"
    )
    assert call(router, "list_dir", {"path": "missing"}) == "list_dir: missing does not exist"
    assert "is outside the workspace" in call(router, "list_dir", {"path": ".."})
    (ws / "empty").mkdir()
    assert call(router, "list_dir", {"path": "empty"}).endswith("\n(empty directory)")


def test_grep_python_scan(ws: Path) -> None:
    router = python_grep_router(ws)
    out = call(router, "grep_files", {"pattern": "needle"})
    # Hidden directories, .git and binary files are skipped; paths are relative; path order.
    assert out.split("\n") == ["src/b.txt:1: needle in text", "src/pkg/a.py:4:     return 'needle'"]
    out = call(router, "grep_files", {"pattern": "(?i)needle", "path": "src", "include": "*.txt"})
    assert out.split("\n") == ["b.txt:1: needle in text", "b.txt:3: NEEDLE upper"]
    assert call(router, "grep_files", {"pattern": "needle", "path": "src/b.txt"}) == "b.txt:1: needle in text"


def test_grep_limits_and_errors(ws: Path) -> None:
    (ws / "many.txt").write_text("hit\n" * 50 + "y" * 1000 + " hit\n")
    router = python_grep_router(ws)
    out = call(router, "grep_files", {"pattern": "hit", "include": "many.txt", "limit": 3})
    assert out.split("\n") == [
        "many.txt:1: hit",
        "many.txt:2: hit",
        "many.txt:3: hit",
        "[... stopped after 3 matches; narrow the pattern or path ...]",
    ]
    long_line = call(router, "grep_files", {"pattern": "y+ hit"})
    assert long_line == "many.txt:51: " + "y" * 300 + " [...]"
    assert call(router, "grep_files", {"pattern": "zzz"}) == "No matches for 'zzz' in ."
    assert call(router, "grep_files", {"pattern": "("}).startswith(
        "grep_files: pattern is not a valid regular expression"
    )
    assert "is outside the workspace" in call(
        router, "grep_files", {"pattern": "x", "path": "../outside.txt"}
    )
    assert call(router, "grep_files", {"pattern": "x", "path": "nope"}) == "grep_files: nope does not exist"


def test_symlink_escape_is_refused_for_reads(ws: Path) -> None:
    (ws / "peek").symlink_to(ws.parent)
    router = make_router(ws)
    assert "resolves to" in call(router, "read_file", {"path": "peek/outside.txt"})
    assert "resolves to" in call(router, "list_dir", {"path": "peek"})


def test_pipes_are_never_opened(ws: Path) -> None:
    os.mkfifo(ws / "src" / "pipe")
    out = call(make_router(ws), "read_file", {"path": "src/pipe"})
    assert out == "read_file: src/pipe is not a regular file (device, socket or pipe); it was not read"
    assert call(python_grep_router(ws), "grep_files", {"pattern": "needle", "path": "src"}).startswith(
        "b.txt:1:"
    )

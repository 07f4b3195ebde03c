"""The patch language itself: parsing leniency, line seeking, and hunk application (pure functions)."""

from __future__ import annotations

import re

import pytest

from ctxscope.harness.tools.patch_parser import (
    PATCH_GRAMMAR,
    AddFile,
    DeleteFile,
    Hunk,
    HunkMismatch,
    PatchSyntaxError,
    UpdateFile,
    apply_hunks,
    parse_patch,
    seek,
)


def test_parses_every_operation() -> None:
    text = (
        "*** Begin Patch\n"
        "*** Add File: a.txt\n+one\n+\n+three\n"
        "*** Delete File: d.txt\n"
        "*** Update File: u.py\n*** Move to: v.py\n@@ def f():\n-    pass\n+    return 1\n"
        "@@\n keep\n+more\n*** End of File\n"
        "*** End Patch"
    )
    ops = parse_patch(text)
    assert ops[0] == AddFile("a.txt", "one\n\nthree\n")
    assert ops[1] == DeleteFile("d.txt")
    assert isinstance(ops[2], UpdateFile)
    assert ops[2].path == "u.py" and ops[2].move_to == "v.py"
    first, second = ops[2].hunks
    assert first.context == "def f():" and first.old == ["    pass"] and first.new == ["    return 1"]
    assert (
        second.context is None and second.old == ["keep"] and second.new == ["keep", "more"] and second.at_eof
    )


def test_lenient_markers_blank_lines_and_headerless_first_hunk() -> None:
    text = (
        "  *** Begin Patch  \n\n*** Update File: x\n a\n-b\n+c\n\n   *** Add File: y  \n+z\n *** End Patch \n"
    )
    ops = parse_patch(text)
    assert isinstance(ops[0], UpdateFile) and ops[0].hunks[0].old[:2] == ["a", "b"]
    assert ops[1] == AddFile("y", "z\n")


def test_heredoc_wrapper_is_unwrapped() -> None:
    assert parse_patch("<<'EOF'\n*** Begin Patch\n*** Delete File: q\n*** End Patch\nEOF") == [
        DeleteFile("q")
    ]


def test_empty_add_file_is_an_empty_file() -> None:
    assert parse_patch("*** Begin Patch\n*** Add File: e\n*** End Patch") == [AddFile("e", "")]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("*** Begin Patch\n*** Update File: x\n@@\n*** End Patch", "line 3: the hunk has no lines"),
        (
            "*** Begin Patch\n*** Update File: x\n@@\n a\nbad line\n*** End Patch",
            "line 5: expected a '@@' hunk header",
        ),
        ("*** Begin Patch\n*** Add File:  \n*** End Patch", "line 2: '*** Add File:' needs a path"),
    ],
)
def test_syntax_errors_name_the_line(text: str, message: str) -> None:
    with pytest.raises(PatchSyntaxError, match=re.escape(message)):
        parse_patch(text)


def test_seek_levels() -> None:
    lines = ["  foo  ", "bar\t", "x \u2013 y", "end"]
    assert seek(lines, ["bar\t"], 0, False) == 1  # exact
    assert seek(lines, ["bar"], 0, False) == 1  # trailing whitespace
    assert seek(lines, ["foo", "bar"], 0, False) == 0  # surrounding whitespace
    assert seek(lines, ["x - y"], 0, False) == 2  # typographic dash
    assert seek(lines, ["foo"], 1, False) is None  # only at or after start
    assert seek(lines, ["a", "b", "c", "d", "e"], 0, False) is None
    assert seek(["a", "b", "a"], ["a"], 0, True) == 2  # end of file first
    assert seek(lines, [], 3, False) == 3


def test_apply_hunks_keeps_file_context_and_reports_misses() -> None:
    hunk = Hunk(None, ((" ", "foo"), ("-", "bar"), ("+", "BAR")))
    assert apply_hunks("    foo   \nbar\n", [hunk], "f") == "    foo   \nBAR\n"
    with pytest.raises(HunkMismatch, match=r"f: could not find the lines to change \(first line 'foo'"):
        apply_hunks("nothing\n", [hunk], "f")


def test_trailing_blank_context_may_stand_for_end_of_file() -> None:
    hunk = Hunk(None, (("-", "last"), ("+", "LAST"), (" ", "")))
    assert apply_hunks("first\nlast\n", [hunk], "f") == "first\nLAST\n"


def test_pure_addition_without_context_appends() -> None:
    assert apply_hunks("a\n", [Hunk(None, (("+", "b"),))], "f") == "a\nb\n"
    assert apply_hunks("", [Hunk(None, (("+", "b"),))], "f") == "b\n"


def test_grammar_accepts_patches_when_lark_is_available() -> None:
    lark = pytest.importorskip("lark")
    parser = lark.Lark(PATCH_GRAMMAR, parser="earley")
    parser.parse(
        "*** Begin Patch\n*** Update File: m.py\n*** Move to: n.py\n@@ def f():\n-x\n+y\n*** End Patch\n"
    )
    with pytest.raises(lark.exceptions.LarkError):
        parser.parse("*** Begin Patch\n*** End Patch\n")

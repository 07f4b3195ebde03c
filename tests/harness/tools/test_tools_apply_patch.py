"""apply_patch on real files: add/update/delete/move, atomicity, workspace confinement, sandbox rules."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

import pytest
from tools_support import Approver, call, custom_call, make_router


def patch(*body: str) -> str:
    return "\n".join(["*** Begin Patch", *body, "*** End Patch"]) + "\n"


HEAD = re.compile(r"^Exit code: 0\nWall time: \d+\.\d{4} seconds\nOutput:\n")


def success(out: str) -> str:
    """The report after Codex's command-style header (exit code, wall time), which must be there."""
    assert HEAD.match(out), out
    return HEAD.sub("", out)


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_add_creates_parent_directories(tmp_path: Path) -> None:
    out = custom_call(
        make_router(tmp_path), "apply_patch", patch("*** Add File: pkg/sub/new.py", "+x = 1", "+", "+y = 2")
    )
    assert success(out) == "Success. Updated the following files:\nA pkg/sub/new.py\n"
    new = tmp_path / "pkg/sub/new.py"
    assert new.read_text() == "x = 1\n\ny = 2\n"
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(new.stat().st_mode) == 0o666 & ~umask


def test_update_with_context_header_and_two_hunks(tmp_path: Path) -> None:
    src = tmp_path / "m.py"
    src.write_text("def a():\n    return 1\n\n\ndef b():\n    return 1\n\n\ndef c():\n    return 1\n")
    p = patch(
        "*** Update File: m.py",
        "@@ def b():",
        "-    return 1",
        "+    return 2",
        "@@ def c():",
        "-    return 1",
        "+    return 3",
    )
    out = custom_call(make_router(tmp_path), "apply_patch", p)
    assert success(out) == "Success. Updated the following files:\nM m.py\n"
    assert (
        src.read_text() == "def a():\n    return 1\n\n\ndef b():\n    return 2\n\n\ndef c():\n    return 3\n"
    )


def test_update_with_context_lines_and_no_header(tmp_path: Path) -> None:
    f = tmp_path / "t.txt"
    f.write_text("one\ntwo\nthree\nfour\n")
    custom_call(
        make_router(tmp_path),
        "apply_patch",
        patch("*** Update File: t.txt", " two", "-three", "+THREE", " four"),
    )
    assert f.read_text() == "one\ntwo\nTHREE\nfour\n"


def test_fuzzy_whitespace_and_punctuation_matching(tmp_path: Path) -> None:
    f = tmp_path / "f.txt"
    f.write_text("  alpha   \n\tbeta\nsay \u201chi\u201d \u2014 ok\n")
    p = patch("*** Update File: f.txt", "@@", " alpha", "-beta", "+BETA", '-say "hi" - ok', '+say "bye"')
    custom_call(make_router(tmp_path), "apply_patch", p)
    assert f.read_text() == '  alpha   \nBETA\nsay "bye"\n'


def test_end_of_file_marker_and_missing_final_newline(tmp_path: Path) -> None:
    f = tmp_path / "e.txt"
    f.write_text("x\ny\nx\ny")
    custom_call(
        make_router(tmp_path),
        "apply_patch",
        patch("*** Update File: e.txt", "@@", " x", "-y", "+z", "*** End of File"),
    )
    assert f.read_text() == "x\ny\nx\nz\n"


def test_pure_addition_after_context_line(tmp_path: Path) -> None:
    f = tmp_path / "c.py"
    f.write_text("class A:\n    a = 1\nclass B:\n    b = 1\n")
    custom_call(
        make_router(tmp_path), "apply_patch", patch("*** Update File: c.py", "@@ class A:", "+    z = 0")
    )
    assert f.read_text() == "class A:\n    z = 0\n    a = 1\nclass B:\n    b = 1\n"


def test_crlf_file_keeps_crlf(tmp_path: Path) -> None:
    f = tmp_path / "w.txt"
    f.write_bytes(b"a\r\nb\r\nc\r\n")
    custom_call(make_router(tmp_path), "apply_patch", patch("*** Update File: w.txt", "@@", " a", "-b", "+B"))
    assert f.read_bytes() == b"a\r\nB\r\nc\r\n"


def test_delete_and_add_over_existing(tmp_path: Path) -> None:
    (tmp_path / "gone.txt").write_text("bye\n")
    (tmp_path / "dup.txt").write_text("old\n")
    out = custom_call(
        make_router(tmp_path),
        "apply_patch",
        patch("*** Delete File: gone.txt", "*** Add File: dup.txt", "+new"),
    )
    assert out.endswith("D gone.txt\nA dup.txt\n")
    assert not (tmp_path / "gone.txt").exists()
    assert (tmp_path / "dup.txt").read_text() == "new\n"


def test_move_to_new_directory_keeps_mode(tmp_path: Path) -> None:
    src = tmp_path / "old" / "run.sh"
    src.parent.mkdir()
    src.write_text("echo 1\n")
    src.chmod(0o755)
    p = patch("*** Update File: old/run.sh", "*** Move to: new/dir/run.sh", "@@", "-echo 1", "+echo 2")
    out = custom_call(make_router(tmp_path), "apply_patch", p)
    assert out.endswith("M new/dir/run.sh (moved from old/run.sh)\n")
    dest = tmp_path / "new/dir/run.sh"
    assert not src.exists()
    assert dest.read_text() == "echo 2\n"
    assert stat.S_IMODE(dest.stat().st_mode) == 0o755


def test_update_keeps_executable_bit(tmp_path: Path) -> None:
    f = tmp_path / "x.sh"
    f.write_text("echo 1\n")
    f.chmod(0o755)
    custom_call(
        make_router(tmp_path), "apply_patch", patch("*** Update File: x.sh", "@@", "-echo 1", "+echo 2")
    )
    assert stat.S_IMODE(f.stat().st_mode) == 0o755


def test_one_bad_hunk_writes_nothing(tmp_path: Path) -> None:
    (tmp_path / "b.txt").write_text("keep\nme\n")
    (tmp_path / "c.txt").write_text("one\ntwo\n")
    (tmp_path / "d.txt").write_text("delete me\n")
    before = snapshot(tmp_path)
    p = patch(
        "*** Add File: a.txt",
        "+new",
        "*** Update File: b.txt",
        "@@",
        "-keep",
        "+kept",
        "*** Delete File: d.txt",
        "*** Update File: c.txt",
        "@@",
        "-three",
        "+THREE",
    )
    out = custom_call(make_router(tmp_path), "apply_patch", p)
    assert out.startswith(
        "apply_patch failed, nothing was changed: c.txt: could not find the lines to change"
    )
    assert "'three'" in out
    assert snapshot(tmp_path) == before


def test_missing_context_header_names_file_and_line(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("def a():\n    pass\n")
    out = custom_call(
        make_router(tmp_path),
        "apply_patch",
        patch("*** Update File: m.py", "@@ def zzz():", "-    pass", "+    return"),
    )
    assert out == "apply_patch failed, nothing was changed: m.py: context line not found: 'def zzz():'"


def test_write_failure_midway_leaves_everything(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        # Root ignores directory permissions; use a path whose parent is a file instead.
        (tmp_path / "blocker").write_text("")
        bad = "blocker/child.txt"
    else:
        locked = tmp_path / "locked"
        locked.mkdir()
        locked.chmod(0o555)
        bad = "locked/child.txt"
    (tmp_path / "a.txt").write_text("a\n")
    before = snapshot(tmp_path)
    p = patch("*** Update File: a.txt", "@@", "-a", "+A", f"*** Add File: {bad}", "+x")
    out = custom_call(make_router(tmp_path), "apply_patch", p)
    assert "all changes were rolled back" in out
    assert snapshot(tmp_path) == before
    assert [p.name for p in tmp_path.iterdir() if "ctxscope-tmp" in p.name] == []


@pytest.mark.parametrize("target", ["../outside.txt", "sub/../../outside.txt", "link/evil.txt", "ABS"])
def test_paths_outside_the_workspace_are_refused(tmp_path: Path, target: str) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (ws / "link").symlink_to(outside)
    if target == "ABS":
        target = str(tmp_path / "outside.txt")
    out = custom_call(
        make_router(ws),
        "apply_patch",
        patch("*** Add File: ok.txt", "+fine", f"*** Add File: {target}", "+x"),
    )
    assert "is outside the workspace" in out and "cannot be written in sandbox `workspace-write`" in out
    assert not (ws / "ok.txt").exists()
    assert list(outside.iterdir()) == [] and not (tmp_path / "outside.txt").exists()


@pytest.mark.parametrize(
    "target", [".git/hooks/pre-commit", ".git/config", "sub/.git/config", "gitlink/config", "sub/../.git/x"]
)
@pytest.mark.parametrize("mode", ["workspace-write", "read-only"])
def test_git_directories_are_read_only(tmp_path: Path, target: str, mode: str) -> None:
    """As in Codex, `.git` is read-only: its hooks and config are programs git runs (issue 20).
    An approval does not open it either."""
    ws = tmp_path / "ws"
    (ws / ".git" / "hooks").mkdir(parents=True)
    (ws / "sub" / ".git").mkdir(parents=True)
    (ws / ".git" / "config").write_text("[core]\n")
    (ws / "gitlink").symlink_to(ws / ".git")
    before = snapshot(ws)
    router = make_router(ws, sandbox_mode=mode, approver=Approver(True))
    out = custom_call(
        router, "apply_patch", patch("*** Add File: ok.txt", "+fine", f"*** Add File: {target}", "+x")
    )
    assert "is inside a `.git` directory" in out and f"read-only in sandbox `{mode}`" in out, out
    assert snapshot(ws) == before
    # Updating and deleting are refused the same way.
    out = custom_call(router, "apply_patch", patch("*** Delete File: .git/config"))
    assert "is inside a `.git` directory" in out and (ws / ".git" / "config").exists()
    # A file merely named like it is fine.
    out = custom_call(router, "apply_patch", patch("*** Add File: docs/.gitignore", "+x"))
    assert success(out).startswith("Success.") and (ws / "docs" / ".gitignore").exists()


def test_danger_full_access_may_write_git(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    out = custom_call(
        make_router(tmp_path, sandbox_mode="danger-full-access"),
        "apply_patch",
        patch("*** Add File: .git/x", "+y"),
    )
    assert success(out).startswith("Success.") and (tmp_path / ".git" / "x").exists()


def test_symlinked_file_escaping_is_refused_for_update(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    secret = tmp_path / "secret.txt"
    secret.write_text("s\n")
    (ws / "innocent.txt").symlink_to(secret)
    out = custom_call(
        make_router(ws), "apply_patch", patch("*** Update File: innocent.txt", "@@", "-s", "+t")
    )
    assert "outside the workspace (it resolves to" in out
    assert secret.read_text() == "s\n"


def test_extra_workspace_root_is_writable(tmp_path: Path) -> None:
    ws, extra = tmp_path / "ws", tmp_path / "extra"
    ws.mkdir()
    extra.mkdir()
    router = make_router(ws, workspace_roots=[ws, extra])
    custom_call(router, "apply_patch", patch(f"*** Add File: {extra / 'n.txt'}", "+ok"))
    assert (extra / "n.txt").read_text() == "ok\n"


def test_danger_full_access_may_write_outside(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    out = custom_call(
        make_router(ws, sandbox_mode="danger-full-access"),
        "apply_patch",
        patch("*** Add File: ../o.txt", "+x"),
    )
    assert success(out).startswith("Success.")
    assert (tmp_path / "o.txt").read_text() == "x\n"


def test_read_only_refuses_headless_and_asks_interactively(tmp_path: Path) -> None:
    p = patch("*** Add File: n.txt", "+x")
    out = custom_call(make_router(tmp_path, sandbox_mode="read-only"), "apply_patch", p)
    assert out.startswith("apply_patch was not run: sandbox `read-only`: file changes need approval.")
    assert "headless" in out
    assert not (tmp_path / "n.txt").exists()

    out = custom_call(
        make_router(tmp_path, sandbox_mode="read-only", approval_policy="never"), "apply_patch", p
    )
    assert "`never`" in out and not (tmp_path / "n.txt").exists()

    no = Approver(False)
    out = custom_call(make_router(tmp_path, sandbox_mode="read-only", approver=no), "apply_patch", p)
    assert "declined" in out and not (tmp_path / "n.txt").exists()
    assert no.asked[0].summary == "A n.txt"

    yes = Approver(True)
    out = custom_call(make_router(tmp_path, sandbox_mode="read-only", approver=yes), "apply_patch", p)
    assert success(out).startswith("Success.") and "Approval: approved by the user" in out
    assert (tmp_path / "n.txt").read_text() == "x\n"


def test_untrusted_policy_asks_for_file_changes(tmp_path: Path) -> None:
    out = custom_call(
        make_router(tmp_path, approval_policy="untrusted"), "apply_patch", patch("*** Add File: n.txt", "+x")
    )
    assert "approval policy `untrusted`: every file change needs approval" in out
    assert not (tmp_path / "n.txt").exists()


def test_broken_patch_is_not_asked_about(tmp_path: Path) -> None:
    yes = Approver(True)
    router = make_router(tmp_path, sandbox_mode="read-only", approver=yes)
    out = custom_call(router, "apply_patch", patch("*** Update File: missing.txt", "@@", "-a", "+b"))
    assert "missing.txt does not exist; use '*** Add File: missing.txt'" in out
    assert yes.asked == []


def test_function_call_form_and_heredoc_wrapper(tmp_path: Path) -> None:
    router = make_router(tmp_path)
    assert call(router, "apply_patch", {"input": patch("*** Add File: f.txt", "+1")}).startswith(
        "Exit code: 0\n"
    )
    wrapped = "<<'EOF'\n" + patch("*** Update File: f.txt", "@@", "-1", "+2") + "EOF\n"
    assert call(router, "apply_patch", {"input": wrapped}).startswith("Exit code: 0\n")
    raw = patch("*** Delete File: f.txt")  # a freeform body sent as function arguments
    assert call(router, "apply_patch", raw=raw).startswith("Exit code: 0\n")
    assert not (tmp_path / "f.txt").exists()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("hello", "invalid patch: the first line of the patch must be '*** Begin Patch'"),
        ("*** Begin Patch\n*** Add File: a\n+x\n", "the last line of the patch must be '*** End Patch'"),
        ("*** Begin Patch\n*** End Patch\n", "the patch contains no file operations"),
        (
            "*** Begin Patch\n*** Frobnicate: a\n*** End Patch",
            "line 2: '*** Frobnicate: a' is not a file operation",
        ),
        ("*** Begin Patch\n*** Update File: a\n*** End Patch", "'*** Update File: a' has no hunks"),
        ("", "apply_patch needs the patch text"),
    ],
)
def test_invalid_patches(tmp_path: Path, text: str, message: str) -> None:
    out = (
        custom_call(make_router(tmp_path), "apply_patch", text)
        if text
        else call(make_router(tmp_path), "apply_patch", {})
    )
    assert message in out


def test_delete_errors(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    router = make_router(tmp_path)
    assert "cannot delete nope.txt: it does not exist" in custom_call(
        router, "apply_patch", patch("*** Delete File: nope.txt")
    )
    assert "cannot delete d: it is a directory" in custom_call(
        router, "apply_patch", patch("*** Delete File: d")
    )

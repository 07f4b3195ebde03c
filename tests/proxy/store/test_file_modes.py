"""Recordings, sessions, reports and exports are owner-only wherever they go; outputs never clobber inputs."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from ctxscope.harness.session.store import SessionStore
from ctxscope.proxy.errors import ConfigError
from ctxscope.proxy.files import write_private
from ctxscope.proxy.store import RecordingWriter, read_recording
from tests.cli_support import run_cli
from tests.proxy.store.test_writer_secrets import _exchange


@pytest.fixture(autouse=True)
def _permissive_umask() -> Iterator[None]:
    old = os.umask(0o022)
    yield
    os.umask(old)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _recording(path: Path) -> Path:
    with RecordingWriter(path) as writer:
        writer.write(_exchange({}, "hello"))
    return path


def test_a_recording_is_created_owner_only(tmp_path: Path) -> None:
    assert _mode(_recording(tmp_path / "r.jsonl")) == 0o600


def test_appending_makes_an_older_world_readable_recording_owner_only(tmp_path: Path) -> None:
    path = _recording(tmp_path / "r.jsonl")
    path.chmod(0o644)
    _recording(path)
    assert _mode(path) == 0o600 and len(read_recording(path).exchanges) == 2


def test_a_session_file_is_owner_only(tmp_path: Path) -> None:
    store = SessionStore.create({"cwd": "/x"}, directory=tmp_path)
    assert _mode(store.path) == 0o600


def test_outputs_are_owner_only_and_replace_the_target_whole(tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    out.write_text("old")
    out.chmod(0o644)
    write_private(out, lambda stream: stream.write("new"))
    assert out.read_text() == "new" and _mode(out) == 0o600
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]  # no temp file left

    def fail(stream: object) -> None:
        raise OSError(28, "No space left on device")

    with pytest.raises(ConfigError, match="No space left"):
        write_private(out, fail)
    assert out.read_text() == "new"  # the old output survives a failed write


def test_export_writes_owner_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    rec = _recording(tmp_path / "r.jsonl")
    out = tmp_path / "out.jsonl"
    result = run_cli("export", str(rec), "-o", str(out))
    assert result.returncode == 0 and _mode(out) == 0o600 and '"model"' in out.read_text()


def test_export_onto_its_own_input_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    rec = _recording(tmp_path / "r.jsonl")
    before = rec.read_bytes()
    link = tmp_path / "same.jsonl"
    link.hardlink_to(rec)
    for target in (rec, link, tmp_path / "." / "r.jsonl"):
        result = run_cli("export", str(rec), "-o", str(target))
        assert result.returncode == 2 and "it is the input" in result.stderr
        assert len(result.stderr.splitlines()) == 1
    assert rec.read_bytes() == before


def test_export_to_a_full_device_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full here")
    rec = _recording(tmp_path / "r.jsonl")
    result = run_cli("export", str(rec), "-o", "/dev/full")
    assert result.returncode == 2 and "/dev/full" in result.stderr and len(result.stderr.splitlines()) == 1

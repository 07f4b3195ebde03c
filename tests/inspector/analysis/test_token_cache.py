"""Token counts are kept per text hash in the per-user cache: a second run counts nothing again and
never loads the encoding; a cache that cannot be written changes no count."""

from __future__ import annotations

from pathlib import Path

import pytest

from inspector.analysis import tokens
from inspector.analysis.tokens import _CachedCounter, _encode_count, _load_encoding

TEXTS = ["hello world", "def greet(name: str) -> str:\n    return f'hi {name}'\n", "x" * 3000, "ünïcode ✓"]


def test_counts_come_back_from_the_cache_without_the_encoding(tmp_path: Path) -> None:
    pytest.importorskip("bpe_openai")
    path = tmp_path / "cache" / "counts.sqlite3"
    first = _CachedCounter(lambda: path)
    counted = [first(t) for t in TEXTS]
    first.close()
    encoding = _load_encoding()
    assert counted == [_encode_count(encoding, t) for t in TEXTS] and first.encoded == len(TEXTS)

    second = _CachedCounter(lambda: path)  # another run: a fresh process would start like this
    assert [second(t) for t in TEXTS] == counted
    assert second.encoded == 0 and second._encoding is None  # the encoding was never loaded
    second.close()


def test_an_unwritable_cache_changes_no_count(tmp_path: Path) -> None:
    pytest.importorskip("bpe_openai")
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    counter = _CachedCounter(lambda: blocker / "counts.sqlite3")
    encoding = _load_encoding()
    assert [counter(t) for t in TEXTS] == [_encode_count(encoding, t) for t in TEXTS]
    counter.close()


def test_the_cache_lives_in_ctxscope_home(ctxscope_home: Path) -> None:
    path = tokens.cache_path()
    assert path is not None and path.parent == ctxscope_home / "cache"

"""Token counts are kept per text hash in the per-user cache: a second run counts nothing again and
never loads the encoding; a cache that cannot be written changes no count."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ctxscope.inspector.analysis import tokens
from ctxscope.inspector.analysis.tokens import _CachedCounter, _encode_count, _load_encoding

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


def test_the_compiled_tokenizer_counts_as_the_package_does_without_loading_it() -> None:
    """The fast path loads only bpe_openai's compiled tokenizer; its counts equal `encode_ordinary`'s."""
    pytest.importorskip("bpe_openai")
    code = (
        "import json, sys\n"
        "from ctxscope.inspector.analysis.tokens import _rust_counter\n"
        "count = _rust_counter()\n"
        "loaded = sorted(m for m in sys.modules if m.startswith('bpe_openai'))\n"
        "print(json.dumps([loaded, count('hi there')]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    modules, hello = json.loads(done.stdout)
    assert modules == ["bpe_openai._bindings"], "the package's __init__ (three vocabularies) never ran"
    readme = (Path(__file__).resolve().parents[3] / "README.md").read_text()
    texts = [*TEXTS, "<|endoftext|> and <|fim_prefix|> are text in a prompt", "déjà 🙂 中文\n\t", readme, ""]
    fast, package = tokens._rust_counter(), tokens._package_counter()
    assert [fast(t) for t in texts] == [package(t) for t in texts]
    assert hello == package("hi there")
    long = "word " * 80_000  # over CHUNK_CHARS: counted in pieces, the same way on both paths
    assert _encode_count(fast, long) == _encode_count(package, long) == 80_001  # the last space alone

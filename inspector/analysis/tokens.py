"""Token counts: o200k_base offline through `bpe_openai`, or a labelled estimate when it is missing.

Counting is per text and cached, because the same items recur in every later request of a thread:
in memory, and across runs in the per-user cache (`$CTXSCOPE_HOME/cache/token-counts.sqlite3`, keyed
by a hash of the text, as the recording's parts are). The encoding itself (0.5 s and ~100 MB to load)
is loaded only when a text is not in the cache, so a report on a recording seen before never loads it.
When it loads, only the o200k Rust tokenizer is built (about 0.15 s and 65 MB): importing the
`bpe_openai` package would first build three vocabularies as Python dicts (0.5 s, 65 MB more) that
counting never uses.
Attribution sums item counts per fragment kind and reconciles them with the reported usage; the
predicted cache hit is the token length of the prefix shared with the previous request of the thread.
"""

from __future__ import annotations

import atexit
import functools
import hashlib
import importlib.util
import json
import os
import sqlite3
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ENCODING = "o200k_base"
# OpenAI caches prompt prefixes of at least 1024 tokens, in steps of 128.
CACHE_MIN_TOKENS = 1024
CACHE_STEP_TOKENS = 128


@dataclass(frozen=True)
class Tokenizer:
    """Counts tokens; `estimated` says the numbers come from a character heuristic, not the encoding."""

    name: str
    estimated: bool
    count: Callable[[str], int]


CHUNK_CHARS = 256_000


def _pieces(text: str) -> list[str]:
    pieces = []
    start = 0
    while start < len(text):
        end = min(start + CHUNK_CHARS, len(text))
        if end < len(text):
            cut = max(text.rfind("\n", start, end), text.rfind(" ", start, end))
            end = cut if cut > start + CHUNK_CHARS // 2 else end
        pieces.append(text[start:end])
        start = end
    return pieces


def _estimate(text: str) -> int:
    # About four characters per token for English prose and code; only used without the encoding.
    return (len(text) + 3) // 4


def _rust_counter() -> Callable[[str], int]:
    """`bpe_openai`'s compiled tokenizer, loaded without running the package's `__init__`.

    The module is registered under its own name, so a later `import bpe_openai` reuses it (a PyO3
    module cannot be initialised twice). The Rust tokenizer has no special tokens: `<|endoftext|>` in
    a prompt counts as text, as `encode_ordinary` counts it and as the model's API treats it.
    """
    import importlib.machinery
    import sys

    name = "bpe_openai._bindings"
    module = sys.modules.get(name)
    if module is None:
        package = importlib.util.find_spec("bpe_openai")  # locates the package; runs none of it
        if package is None or not package.submodule_search_locations:
            raise ImportError("bpe_openai is not installed")
        suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
        found = [
            path
            for location in package.submodule_search_locations
            for path in Path(location).iterdir()
            if path.name.startswith("_bindings.") and path.name.endswith(suffixes)
        ]
        if not found:
            raise ImportError("bpe_openai has no compiled tokenizer")
        loader = importlib.machinery.ExtensionFileLoader(name, str(found[0]))
        spec = importlib.util.spec_from_file_location(name, found[0], loader=loader)
        assert spec is not None
        module = importlib.util.module_from_spec(spec)
        loader.exec_module(module)
        sys.modules[name] = module
    tokenizer = module.tokenizer_for_encoding(ENCODING)
    count: Callable[[str], int] = tokenizer.count
    return count


def _package_counter() -> Callable[[str], int]:
    """The same counts through the package's public API (slower to load)."""
    import bpe_openai

    encoding = bpe_openai.get_encoding(ENCODING)
    # encode_ordinary: special-token text inside a prompt is plain text to the model's API.
    return lambda text: len(encoding.encode_ordinary(text))


def _load_encoding() -> Callable[[str], int] | bool:
    """A counting function, or False when no tokenizer loads (counts are then estimates)."""
    for loader in (_rust_counter, _package_counter):
        try:
            return loader()
        except Exception:  # noqa: BLE001, PERF203 - a layout we do not know: try the public API
            continue
    return False


def _encode_count(count: Callable[[str], int], text: str) -> int:
    if len(text) <= CHUNK_CHARS:
        return count(text)
    # The encoder refuses inputs near 1 MB ("Input too long"): long strings are counted in pieces
    # cut at whitespace, where o200k's pre-tokenizer splits anyway (exact but for a rare token
    # that would have spanned a cut).
    return sum(count(piece) for piece in _pieces(text))


class _CachedCounter:
    """Counts with the encoding, remembering counts in memory and in a per-user SQLite file.

    The file is looked up again on each use (`where()`), so a changed `CTXSCOPE_HOME` gets its own
    cache; a cache that cannot be opened or written only costs time, never a wrong count."""

    def __init__(self, where: Callable[[], Path | None]) -> None:
        self.where = where
        self.encoded = 0
        """Texts that had to be encoded (found in neither cache)."""
        self._encoding: Any = None
        self._path: Path | None = None
        self._db: sqlite3.Connection | None = None
        self._pending: list[tuple[bytes, int]] = []
        self._memory: dict[str, int] = {}
        self._lock = threading.Lock()

    def __call__(self, text: str) -> int:
        known = self._memory.get(text)
        if known is not None:
            return known
        key = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()
        with self._lock:
            count = self._lookup(key)
            if count is None:
                if self._encoding is None:
                    self._encoding = _load_encoding()
                count = _encode_count(self._encoding, text) if self._encoding else _estimate(text)
                self.encoded += 1
                self._pending.append((key, count))
                if len(self._pending) >= 512:
                    self._flush()
            if len(self._memory) >= 65536:
                self._memory.clear()
            self._memory[text] = count
            return count

    def _connect(self) -> sqlite3.Connection | None:
        path = self.where()
        if path != self._path:
            self._close()
            self._path = path
            if path is not None:
                try:
                    path.parent.mkdir(parents=True, exist_ok=True)
                    db = sqlite3.connect(path, timeout=2.0, check_same_thread=False)
                    db.execute("CREATE TABLE IF NOT EXISTS counts (hash BLOB PRIMARY KEY, n INTEGER)")
                    self._db = db
                except (OSError, sqlite3.Error):
                    self._db = None
        return self._db

    def _lookup(self, key: bytes) -> int | None:
        db = self._connect()
        if db is None:
            return None
        try:
            row = db.execute("SELECT n FROM counts WHERE hash = ?", (key,)).fetchone()
        except sqlite3.Error:
            return None
        return int(row[0]) if row else None

    def _flush(self) -> None:
        pending, self._pending = self._pending, []
        if self._db is None or not pending:
            return
        try:
            with self._db:
                self._db.executemany("INSERT OR IGNORE INTO counts (hash, n) VALUES (?, ?)", pending)
        except sqlite3.Error:
            pass  # the counts are still right; only the next run pays for them again

    def _close(self) -> None:
        self._flush()
        if self._db is not None:
            self._db.close()
            self._db = None

    def close(self) -> None:
        """Write what was learned and close the file (at exit; the counter stays usable)."""
        with self._lock:
            self._close()
            self._path = None


_CACHE_PATHS: dict[str | None, Path] = {}
"""`$CTXSCOPE_HOME` → its token-count file: asked for each text not counted in memory yet, so the
home is found once per value, not once per text."""


def cache_path() -> Path | None:
    """Where token counts are kept across runs (None when ctxscope's home cannot be made)."""
    override = os.environ.get("CTXSCOPE_HOME")
    known = _CACHE_PATHS.get(override)
    if known is not None:
        return known
    try:
        from ctxscope.proxy.home import ctxscope_home

        path = ctxscope_home() / "cache" / f"token-counts-{ENCODING}.sqlite3"
    except OSError:
        return None
    _CACHE_PATHS[override] = path
    return path


@functools.lru_cache(maxsize=1)
def get_tokenizer() -> Tokenizer:
    """The o200k_base tokenizer if `bpe_openai` is installed, else the estimate.

    Cheap: the encoding loads on the first text the caches do not know (see the module docstring)."""
    if importlib.util.find_spec("bpe_openai") is None:
        return Tokenizer(name="estimate (chars/4)", estimated=True, count=_estimate)
    counter = _CachedCounter(cache_path)
    atexit.register(counter.close)
    return Tokenizer(name=ENCODING, estimated=False, count=counter)


def save_token_counts() -> None:
    """Write the counts learnt so far to the per-user cache, as exit does (a worker process, which
    ends without running `atexit`, calls it itself); the counter stays usable."""
    if get_tokenizer.cache_info().currsize:  # never made: nothing learnt, and nothing to load
        count = get_tokenizer().count
        if isinstance(count, _CachedCounter):
            count.close()


def count_text(text: str) -> int:
    """Tokens in one text with the current tokenizer."""
    return get_tokenizer().count(text) if text else 0


_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
"""`json.dumps(value, ensure_ascii=False, separators=(",", ":"))` without a new encoder per call (about
2 µs each: the composition measures every tool of every recording's tools list)."""


def count_json(value: Any) -> int:
    """Tokens of a JSON value as compact text (tools, parameters): an approximation of how it is sent."""
    if value is None:
        return 0
    return count_text(_COMPACT.encode(value))


def predicted_cached(shared_prefix_tokens: int) -> int:
    """Tokens the backend can serve from its prompt cache, given the shared prefix length."""
    if shared_prefix_tokens < CACHE_MIN_TOKENS:
        return 0
    return shared_prefix_tokens - shared_prefix_tokens % CACHE_STEP_TOKENS

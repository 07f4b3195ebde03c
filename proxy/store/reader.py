"""Reading a recording: typed exchanges with every stored part resolved.

A reader must never lose what a file holds: a torn last line (a writer killed mid-write) is skipped
with a warning, a damaged line elsewhere likewise, and everything complete still loads.
"""

from __future__ import annotations

import io
import re
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..errors import RecordingError
from ..files import input_stat
from ..model import Exchange, RecordingHeader
from .codec import Decoder, MissingBlob
from .embedded import is_html, recording_bytes
from .format import FORMAT_NAME, KIND_BLOB, KIND_EXCHANGE, KIND_HEADER, MAJOR_VERSION, loads

__all__ = ["Recording", "read_recording", "iter_lines"]


@dataclass
class Recording:
    """One loaded recording. `exchanges` are sorted by id; bodies are shared read-only objects."""

    path: Path
    header: RecordingHeader
    exchanges: list[Exchange]
    warnings: list[str] = field(default_factory=list)
    blob_hashes: set[str] = field(default_factory=set)
    input_hashes: dict[int, list[str]] = field(default_factory=dict)
    """Each model request's input as stored hashes (equal hash = equal item)."""

    def model_requests(self) -> list[Exchange]:
        """Exchanges that carry a Responses request body (HTTP or WebSocket)."""
        return [e for e in self.exchanges if e.is_model_request]


def iter_lines(path: Path) -> Iterator[tuple[int, bytes, bool]]:
    """(line number, raw line, is_last) for every non-empty line (of the embedded recording, for an
    HTML report)."""
    with path.open("rb") as fh:
        if is_html(fh.read(64)):
            lines: Iterable[bytes] = io.BytesIO(recording_bytes(path))
        else:
            fh.seek(0)
            lines = fh
        previous: tuple[int, bytes] | None = None
        for number, raw in enumerate(lines, start=1):
            if not raw.strip():
                continue
            if previous is not None:
                yield previous[0], previous[1], False
            previous = (number, raw)
        if previous is not None:
            yield previous[0], previous[1], True


def _check_header(path: Path, obj: Any) -> RecordingHeader:
    if not isinstance(obj, dict) or obj.get("kind") != KIND_HEADER or obj.get("format") != FORMAT_NAME:
        raise RecordingError(f"{path} is not a ctxscope recording (its first line is not a ctxscope header)")
    version = str(obj.get("version", ""))
    try:
        major = int(version.split(".")[0])
    except ValueError:
        raise RecordingError(f"{path} has an unreadable format version {version!r}") from None
    if major > MAJOR_VERSION:
        raise RecordingError(
            f"{path} was written by a newer ctxscope (format {version}; this one reads {MAJOR_VERSION}.x): "
            "upgrade ctxscope to read it"
        )
    try:
        return RecordingHeader.model_validate({k: v for k, v in obj.items() if k != "kind"})
    except ValidationError as err:
        raise RecordingError(f"{path} has a malformed header: {err.errors()[0]['msg']}") from None


# `\ud800`-`\udfff` escapes: JSON allows them alone, Unicode does not (such text cannot be encoded,
# hashed or printed), so a reader replaces what does not pair up before anything else sees it.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


def _without_lone_surrogates(value: Any) -> tuple[Any, bool]:
    """`value` with every unpaired surrogate replaced by U+FFFD, and whether there was one."""
    if isinstance(value, str):
        fixed = value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
        return fixed, fixed != value
    if isinstance(value, list):
        pairs = [_without_lone_surrogates(v) for v in value]
        return [v for v, _ in pairs], any(c for _, c in pairs)
    if isinstance(value, dict):
        out, changed = {}, False
        for key, item in value.items():
            new_key, key_changed = _without_lone_surrogates(key)
            new_item, item_changed = _without_lone_surrogates(item)
            out[new_key] = new_item
            changed = changed or key_changed or item_changed
        return out, changed
    return value, False


def read_recording(path: Path | str) -> Recording:
    """Load a recording; raises `RecordingError` with a one-line message if it is not one."""
    path = Path(path)
    info = input_stat(path)
    if info is None:
        raise RecordingError(f"{path} does not exist")
    mode = info.st_mode
    if stat.S_ISDIR(mode):
        raise RecordingError(f"{path} is a directory, not a recording file")
    if not stat.S_ISREG(mode):  # /dev/zero, a FIFO: a read that may never end
        raise RecordingError(f"{path} is not a regular file; give a recording file")
    decoder = Decoder()
    header: RecordingHeader | None = None
    exchanges: list[Exchange] = []
    warnings: list[str] = []
    for number, raw, is_last in iter_lines(path):
        try:
            obj = loads(raw)
            if _SURROGATE_ESCAPE.search(raw) is not None:
                obj, replaced = _without_lone_surrogates(obj)
                if replaced:
                    warnings.append(f"line {number}: a lone surrogate (not Unicode) shown as U+FFFD")
        except (ValueError, UnicodeDecodeError):
            if header is None:
                raise RecordingError(
                    f"{path} is not a ctxscope recording (line {number} is not JSON)"
                ) from None
            if is_last:
                warnings.append(f"line {number} is incomplete (the writer stopped mid-line); skipped")
            else:
                warnings.append(f"line {number} is damaged (not JSON); skipped")
            continue
        if header is None:
            header = _check_header(path, obj)
            continue
        kind = obj.get("kind") if isinstance(obj, dict) else None
        if kind == KIND_BLOB:
            if isinstance(obj.get("h"), str):
                decoder.blobs[obj["h"]] = obj.get("v")
            else:
                warnings.append(f"line {number}: stored part without a hash; skipped")
        elif kind == KIND_EXCHANGE:
            exchange = _decode_exchange(decoder, obj, number, warnings)
            if exchange is not None:
                exchanges.append(exchange)
        else:
            warnings.append(f"line {number} has unknown kind {kind!r}; skipped")
    if header is None:
        raise RecordingError(f"{path} is empty: not a ctxscope recording")
    exchanges.sort(key=lambda e: e.id)
    return Recording(
        path=path,
        header=header,
        exchanges=exchanges,
        warnings=warnings,
        blob_hashes=set(decoder.blobs),
        input_hashes=decoder.input_hashes,
    )


def _decode_exchange(
    decoder: Decoder, obj: dict[str, Any], number: int, warnings: list[str]
) -> Exchange | None:
    data = {k: v for k, v in obj.items() if k != "kind"}
    try:
        exchange_id = int(data.get("id", -1))
        data["request_headers"] = decoder.headers(data.get("request_headers"))
        data["response_headers"] = decoder.headers(data.get("response_headers"))
        if "request_body" in data:
            data["request_body"] = decoder.body(exchange_id, data["request_body"])
        if "response" in data:
            data["response"] = decoder.response(data["response"])
        if "sse" in data:
            data["sse"] = decoder.sse_events(data["sse"], data.get("response"))
        return Exchange.model_validate(data)
    except MissingBlob as missing:
        warnings.append(f"line {number}: exchange references missing data ({missing}); skipped")
    except (ValidationError, TypeError, ValueError, AttributeError, KeyError, IndexError) as err:
        # hand-edited references (`"$items": "oops"`) and wrong types land here, not in a traceback
        first = (str(err).splitlines() or [type(err).__name__])[0]
        warnings.append(f"line {number}: malformed exchange ({first}); skipped")
    except RecursionError:
        warnings.append(f"line {number}: exchange nested too deeply; skipped")
    return None

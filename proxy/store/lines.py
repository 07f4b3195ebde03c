"""The one decoder of a recording's lines, shared by `read_recording` and `RecordingFollower`.

Each line goes through the same steps whoever reads it: parsed as JSON, its lone surrogates repaired,
the first line checked as the header, blobs kept, exchanges resolved against them. A loaded file and a
followed file therefore give the same exchanges and the same warnings, line for line.

A lone surrogate (half of a UTF-16 pair, not Unicode) reaches a file in two forms: JSON-escaped
(`"\\ud800"`, valid JSON that `json` accepts) or as raw bytes (`ED A0 80`, what `surrogatepass` writes;
not UTF-8). Text holding one cannot be encoded, hashed or printed, so it is replaced by U+FFFD here,
with a warning, before anything else sees it: no command traces back, and the line is not lost.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..errors import RecordingError
from ..model import Exchange, RecordingHeader
from .codec import Decoder, MissingBlob
from .format import FORMAT_NAME, FORMAT_VERSION, KIND_BLOB, KIND_EXCHANGE, KIND_HEADER, MAJOR_VERSION, loads

__all__ = ["LineDecoder", "parse_line"]

# A surrogate JSON-escaped (`\ud800`-`\udfff`) or as raw bytes (`ED A0 80`-`ED BF BF`, which `json`
# reads with `surrogatepass`): JSON allows either alone, Unicode does not.
_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F]|\xed[\xa0-\xbf]")
_REPAIRED = "a lone surrogate (not Unicode) shown as U+FFFD"
_NOT_UTF8 = "bytes that are not UTF-8 shown as U+FFFD"


def _without_lone_surrogates(value: Any) -> tuple[Any, bool]:
    """`value` with every unpaired surrogate replaced by U+FFFD (a split pair joined), and whether
    anything changed."""
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


def parse_line(raw: bytes) -> tuple[Any, str | None]:
    """One line as JSON, and what was repaired in it (None: nothing). ValueError: not JSON."""
    try:
        obj = loads(raw)
    except UnicodeDecodeError:  # bytes that are not UTF-8 (other than surrogates): replaced, kept
        try:
            obj = json.loads(raw.decode("utf-8", "replace"))
        except RecursionError:
            raise ValueError("JSON nested too deeply") from None
        obj, _ = _without_lone_surrogates(obj)
        return obj, _NOT_UTF8
    if _SURROGATE.search(raw) is None:
        return obj, None
    obj, changed = _without_lone_surrogates(obj)
    return obj, _REPAIRED if changed else None


def check_header(path: Path, obj: Any) -> RecordingHeader:
    """The header a recording's first line holds; `RecordingError` (one line) if it is not one."""
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


def _newer_minor(version: str) -> bool:
    major, _, minor = version.partition(".")
    known = FORMAT_VERSION.split(".")
    try:
        return int(major) == int(known[0]) and int(minor) > int(known[1])
    except ValueError:
        return False


class LineDecoder:
    """Decodes one recording's lines in file order (see the module docstring)."""

    def __init__(self, path: Path, *, shared_inputs: bool = False) -> None:
        self.path = path
        self.header: RecordingHeader | None = None
        self.warnings: list[str] = []
        self.decoder = Decoder(shared_inputs=shared_inputs)

    def take(self, number: int, raw: bytes, *, is_last: bool = False) -> Exchange | None:
        """Decode line `number`; the exchange it completes, if any. `is_last`: the file ends here, so a
        line that is not JSON is a writer stopped mid-line rather than damage."""
        try:
            obj, repaired = parse_line(raw)
        except (ValueError, UnicodeDecodeError):
            if self.header is None:
                raise RecordingError(
                    f"{self.path} is not a ctxscope recording (line {number} is not JSON)"
                ) from None
            if is_last:
                self.warnings.append(f"line {number} is incomplete (the writer stopped mid-line); skipped")
            else:
                self.warnings.append(f"line {number} is damaged (not JSON); skipped")
            return None
        if repaired is not None:
            self.warnings.append(f"line {number}: {repaired}")
        if self.header is None:
            self.header = check_header(self.path, obj)
            if _newer_minor(self.header.version):  # said once, before any exchange it may not resolve
                self.warnings.append(
                    f"format {self.header.version} is newer than this ctxscope reads ({FORMAT_VERSION}): "
                    "exchanges in forms it does not know are skipped; upgrade ctxscope to read them all"
                )
            return None
        kind = obj.get("kind") if isinstance(obj, dict) else None
        if kind == KIND_BLOB:
            if isinstance(obj.get("h"), str):
                self.decoder.blobs[obj["h"]] = obj.get("v")
            else:
                self.warnings.append(f"line {number}: stored part without a hash; skipped")
        elif kind == KIND_EXCHANGE:
            return self._exchange(obj, number)
        else:
            self.warnings.append(f"line {number} has unknown kind {kind!r}; skipped")
        return None

    def _exchange(self, obj: dict[str, Any], number: int) -> Exchange | None:
        decoder, data = self.decoder, {k: v for k, v in obj.items() if k != "kind"}
        try:
            exchange_id = int(data.get("id", -1))
            data["request_headers"] = decoder.headers(data.get("request_headers"))
            data["response_headers"] = decoder.headers(data.get("response_headers"))
            if "request_body" in data:
                data["request_body"] = decoder.body(exchange_id, data["request_body"])
            if "response" in data:
                data["response"] = decoder.response(data["response"], exchange_id)
            if "sse" in data:
                data["sse"] = decoder.sse_events(data["sse"], data.get("response"))
            return Exchange.model_validate(data)
        except MissingBlob as missing:
            self.warnings.append(f"line {number}: exchange references missing data ({missing}); skipped")
        except (ValidationError, TypeError, ValueError, AttributeError, KeyError, IndexError) as err:
            # hand-edited references (`"$items": "oops"`) and wrong types land here, not in a traceback
            first = (str(err).splitlines() or [type(err).__name__])[0]
            self.warnings.append(f"line {number}: malformed exchange ({first}); skipped")
        except RecursionError:
            self.warnings.append(f"line {number}: exchange nested too deeply; skipped")
        return None

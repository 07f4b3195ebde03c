"""The self-contained HTML page: the template, the report's data, and the recording, in one file.

Styles and script are inline and no URL is referenced, so the page works opened from disk, from a
CI artifact or a mail attachment, with the network off. The turn documents and the table of texts
travel gzip-compressed (the page inflates them with the browser's own `DecompressionStream`); the
recording travels the same way, byte for byte, for the readers (`ctxscope.proxy.store.embedded`).
"""

from __future__ import annotations

import base64
import gzip
import html
import json
from importlib import resources
from pathlib import Path
from typing import Any

from ctxscope.inspector.html.build import ReportData
from ctxscope.proxy.store.embedded import embed_block
from ctxscope.proxy.version import installed_version

__all__ = ["render_page"]


def _json_block(block_id: str, value: Any) -> str:
    packed = base64.b64encode(
        gzip.compress(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode(), 6, mtime=0)
    ).decode("ascii")
    lines = "\n".join(packed[i : i + 120] for i in range(0, len(packed), 120))
    return f'<script type="application/x-ctxscope-json+gzip" id="{block_id}">\n{lines}\n</script>'


def _inline_json(value: Any) -> str:
    """JSON safe inside a `<script>` element (no `</script>` or `<!--` can end it early)."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def render_page(data: ReportData, recording: Path) -> str:
    """The whole HTML file for `data`, carrying `recording`'s bytes."""
    template = resources.files("ctxscope.inspector.html").joinpath("assets/report.html").read_text(encoding="utf-8")
    fills = {
        "{{VERSION}}": html.escape(installed_version()),
        "{{TITLE}}": html.escape(recording.name),
        "{{HEAD_JSON}}": _inline_json({**data.head, "recording": recording.name}),
        "{{TURNS_BLOCK}}": _json_block("ctxscope-turns", data.turns),
        "{{TEXTS_BLOCK}}": _json_block("ctxscope-texts", data.texts),
        "{{RECORDING_BLOCK}}": embed_block(recording.read_bytes()),
    }
    for key, value in fills.items():
        template = template.replace(key, value)
    return template

"""`view_image`: let the model look at an image file in the workspace.

The file is read (inside the workspace roots, as for any read) and sent back as the call's output:
one `input_image` content part with the image as a data URL, which is how Codex 0.169's tool of the
same name hands an image to the model. Only the common web image formats are accepted, and the
size is bounded so one call cannot blow the context.
"""

from __future__ import annotations

import base64
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ctxscope.harness.tools.base import ToolError, ToolKind, ToolResult, function_spec, parse_args
from ctxscope.harness.tools.call_context import ToolContext
from ctxscope.harness.tools.sandbox import resolve_path

__all__ = ["MAX_IMAGE_BYTES", "ViewImage"]

MAX_IMAGE_BYTES = 20 * 1024 * 1024
# Recognised by content, not by name: a mislabelled file is still shown (or refused) for what it is.
_SIGNATURES = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)


def image_type(data: bytes) -> str | None:
    """The MIME type of PNG, JPEG, GIF or WebP data, else None."""
    for signature, mime in _SIGNATURES:
        if data.startswith(signature):
            return mime
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


class _Args(BaseModel):
    model_config = ConfigDict(extra="ignore")
    path: str = Field(min_length=1)


class ViewImage:
    """The `view_image` tool."""

    name = "view_image"
    kind: ToolKind = "function"

    def spec(self) -> dict[str, Any]:
        """Wire spec (Codex 0.169's parameters; the description is ctxscope's)."""
        return function_spec(
            self.name,
            "Shows you a local image file (PNG, JPEG, GIF or WebP) so you can look at it.",
            {
                "path": {
                    "type": "string",
                    "description": "Path of the image, relative to the cwd or absolute.",
                }
            },
            ["path"],
        )

    def handle(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        a = parse_args(self.name, _Args, args)
        path = resolve_path(ctx, a.path, write=False)
        if not path.is_file():
            raise ToolError(f"{a.path} is not a file: give the path of an image file")
        size = path.stat().st_size
        if size > MAX_IMAGE_BYTES:
            raise ToolError(
                f"{a.path} is {size:,} bytes; view_image takes images up to {MAX_IMAGE_BYTES:,} bytes"
            )
        try:
            data = path.read_bytes()
        except OSError as e:
            raise ToolError(f"cannot read {a.path}: {e}") from e
        mime = image_type(data)
        if mime is None:
            raise ToolError(f"{a.path} is not a PNG, JPEG, GIF or WebP image")
        url = f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"
        return ToolResult(
            f"image {a.path} ({mime}, {size:,} bytes)", content=({"type": "input_image", "image_url": url},)
        )

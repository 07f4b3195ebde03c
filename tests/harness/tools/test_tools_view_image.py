"""view_image: an image file in the workspace comes back as an `input_image` content part."""

from __future__ import annotations

import base64
import json
from pathlib import Path

from tools_support import call, make_router

# The 8-byte PNG signature and a header chunk: enough for a file that is recognisably a PNG.
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + b"\x00" * 17


def _call(router: object, args: dict[str, str]) -> dict[str, object]:
    item = {"type": "function_call", "name": "view_image", "call_id": "v1", "arguments": json.dumps(args)}
    return router.handle(item)  # type: ignore[attr-defined,no-any-return]


def test_image_is_sent_as_input_image(tmp_path: Path) -> None:
    (tmp_path / "shot.png").write_bytes(PNG)
    out = _call(make_router(tmp_path), {"path": "shot.png"})
    assert out["type"] == "function_call_output" and out["call_id"] == "v1"
    (part,) = out["output"]  # type: ignore[misc]
    assert part["type"] == "input_image"
    prefix = "data:image/png;base64,"
    assert part["image_url"].startswith(prefix)
    assert base64.b64decode(part["image_url"][len(prefix) :]) == PNG


def test_not_an_image_and_outside_the_workspace_are_refused(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "notes.png").write_text("just text")
    (tmp_path / "notes.png").write_text("just text")  # outside the workspace
    router = make_router(workspace)
    assert (
        call(router, "view_image", {"path": "notes.png"}) == "notes.png is not a PNG, JPEG, GIF or WebP image"
    )
    out = call(router, "view_image", {"path": str(tmp_path / "notes.png")})
    assert "outside" in out or "workspace" in out
    assert call(router, "view_image", {"path": "missing.png"}).startswith("missing.png is not a file")


def test_spec_matches_codex(tmp_path: Path) -> None:
    (spec,) = [s for s in make_router(tmp_path).specs() if s["name"] == "view_image"]
    assert spec["type"] == "function" and list(spec["parameters"]["properties"]) == ["path"]
    assert spec["parameters"]["required"] == ["path"]

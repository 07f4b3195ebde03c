"""Small text helpers shared by the fragment families: wrapping, tag extraction, XML escaping.

Fragments are plain text with marker tags, not real XML (Codex writes bodies that are not
well-formed XML, e.g. markdown with `<` in it), so recognisers use anchored regexes on the
marker lines and tolerate surrounding whitespace.
"""

from __future__ import annotations

import html
import re

__all__ = ["child", "children", "escape", "inner", "unescape", "wrap"]


def wrap(open_tag: str, body: str, close_tag: str) -> str:
    """Return `open_tag` + newline + body + newline + `close_tag` (the Codex marker layout)."""
    return f"{open_tag}\n{body.strip(chr(10))}\n{close_tag}"


def inner(text: str, open_tag: str, close_tag: str) -> str | None:
    """Body between `open_tag` at the start and `close_tag` at the end of `text`, else None.

    Only leading/trailing whitespace of the whole text is ignored: a marker that is not at the
    edges means the text is a prompt that merely mentions the tag, not a fragment.
    """
    stripped = text.strip()
    if not stripped.startswith(open_tag) or not stripped.endswith(close_tag):
        return None
    if len(stripped) < len(open_tag) + len(close_tag):
        return None
    return stripped[len(open_tag) : len(stripped) - len(close_tag)]


def child(body: str, tag: str) -> str | None:
    """Text of the first `<tag ...>text</tag>` in `body` (unescaped, stripped), else None."""
    match = re.search(rf"<{tag}(?:\s[^>]*)?>(.*?)</{tag}>", body, re.DOTALL)
    return unescape(match.group(1).strip()) if match else None


def children(body: str, tag: str) -> list[str]:
    """Texts of every `<tag>text</tag>` in `body`, in order (unescaped, stripped)."""
    return [unescape(m.strip()) for m in re.findall(rf"<{tag}(?:\s[^>]*)?>(.*?)</{tag}>", body, re.DOTALL)]


def escape(value: str) -> str:
    """Escape a value for an XML-ish child element (paths may contain `&` or `<`)."""
    return html.escape(value, quote=True)


def unescape(value: str) -> str:
    """Inverse of `escape`, also accepting Codex's `&apos;`."""
    return html.unescape(value)

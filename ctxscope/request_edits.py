"""Edits to a recorded request body before it is sent again: `--set PATH=JSON`, `--delete PATH`.

Paths are the replay's JSON paths (`reasoning.effort`, `input[3]`, `input[*].id`,
`client_metadata["x-codex-turn-metadata"]`); `*` matches every key or index. A path that matches
nothing is an error, so a typo never sends the request unchanged while the user thinks it was edited.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from typing import Any

from ctxscope.proxy.errors import ConfigError
from ctxscope.proxy.replay.normalise import parse_json_path

__all__ = ["apply_edits", "parse_assignment"]


def parse_assignment(text: str) -> tuple[list[str | int], Any]:
    """`PATH=JSON` → (path segments, value); a value that is not JSON is taken as a string."""
    path, sep, raw = text.partition("=")
    if not sep or not path.strip():
        raise ConfigError(f"--set {text!r}: write PATH=VALUE, e.g. --set 'reasoning.effort=\"high\"'")
    try:
        value = json.loads(raw)
    except ValueError:
        value = raw  # `--set model=gpt-5` means the string, as a person would expect
    return _segments(path), value


def _segments(path: str) -> list[str | int]:
    try:
        return parse_json_path(path)
    except ValueError as err:
        raise ConfigError(f"{err}: write paths like reasoning.effort, input[3] or input[*].id") from None


def _parents(node: Any, segments: list[str | int]) -> list[tuple[Any, str | int]]:
    """Every (container, key) the path's last segment names, following `*` through all children."""
    if not segments:
        return []
    head, rest = segments[0], segments[1:]
    if head == "*":
        keys: list[str | int] = (
            list(node) if isinstance(node, dict) else list(range(len(node))) if isinstance(node, list) else []
        )
    else:
        keys = [head]
    found: list[tuple[Any, str | int]] = []
    for key in keys:
        if not rest:
            found.append((node, key))
            continue
        child = _child(node, key)
        if child is not None:
            found += _parents(child, rest)
    return found


def _child(node: Any, key: str | int) -> Any:
    if isinstance(node, dict) and isinstance(key, str):
        return node.get(key)
    if isinstance(node, list) and isinstance(key, int) and -len(node) <= key < len(node):
        return node[key]
    return None


def _present(container: Any, key: str | int) -> bool:
    return _child(container, key) is not None or (isinstance(container, dict) and key in container)


def apply_edits(
    body: dict[str, Any],
    *,
    sets: Sequence[str] = (),
    deletes: Sequence[str] = (),
    model: str | None = None,
) -> dict[str, Any]:
    """A copy of `body` with the edits applied in order: `model`, then each set, then each delete."""
    edited = copy.deepcopy(body)
    if model:
        edited["model"] = model
    for text in sets:
        segments, value = parse_assignment(text)
        targets = _parents(edited, segments)
        if not targets:
            raise ConfigError(f"--set {text!r}: no such place in the request (its parent is missing)")
        for container, key in targets:
            if isinstance(container, dict) and isinstance(key, str):
                container[key] = copy.deepcopy(value)
            elif (
                isinstance(container, list)
                and isinstance(key, int)
                and -len(container) <= key < len(container)
            ):
                container[key] = copy.deepcopy(value)
            else:
                raise ConfigError(f"--set {text!r}: cannot set {key!r} there")
    for text in deletes:
        segments = _segments(text)
        targets = [(c, k) for c, k in _parents(edited, segments) if _present(c, k)]
        if not targets:
            raise ConfigError(f"--delete {text!r}: nothing in the request at that path")
        # Delete list entries from the end, so earlier indexes stay valid while `*` removes several.
        for container, key in sorted(
            targets, key=lambda t: t[1] if isinstance(t[1], int) else 0, reverse=True
        ):
            if isinstance(container, dict):
                container.pop(key, None)
            else:
                del container[key]
    return edited

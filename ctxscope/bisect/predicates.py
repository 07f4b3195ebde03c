"""What `ctxscope bisect --until` asks of an answer: a predicate over what the model returned.

`tool:NAME` (the answer calls NAME), `text~REGEX` (the answer's message text matches),
`status:STATUS` (`failed`, `incomplete`, `completed`), `same-as-recorded` / `differs-from-recorded`
(by the calls made, with their names, and the message text), or `--until-python EXPR`, a Python
expression over the answer (names: `output` the raw output items, `text` the message text,
`calls` the names called, `status`, `usage`). A predicate that cannot be parsed is a one-line error.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ctxscope.proxy.errors import ConfigError

__all__ = ["Predicate", "Reply", "parse_predicate", "python_predicate"]

_CALL_TYPES = ("function_call", "custom_tool_call", "local_shell_call", "shell_call", "apply_patch_call")


@dataclass(frozen=True)
class Reply:
    """One answer as the predicates read it."""

    output: list[Any] = field(default_factory=list)
    status: str = "completed"
    usage: dict[str, Any] | None = None

    @property
    def text(self) -> str:
        texts = []
        for item in self.output:
            if isinstance(item, dict) and item.get("type") == "message":
                for part in item.get("content") or []:
                    if isinstance(part, dict):
                        texts.append(str(part.get("text") or part.get("refusal") or ""))
        return "".join(texts)

    @property
    def calls(self) -> list[str]:
        names = []
        for item in self.output:
            if isinstance(item, dict) and item.get("type") in _CALL_TYPES:
                name = item.get("name") or item.get("type")
                if item.get("namespace"):
                    name = f"{item['namespace']}.{name}"
                names.append(str(name))
        return names

    def gist(self) -> str:
        """One line: the calls made, else the start of the text."""
        if self.calls:
            return "calls " + ", ".join(self.calls)
        text = " ".join(self.text.split())
        return json.dumps(text[:60] + ("…" if len(text) > 60 else ""), ensure_ascii=False)


@dataclass(frozen=True)
class Predicate:
    """A named yes/no question about an answer."""

    name: str
    test: Callable[[Reply], bool]

    def __call__(self, reply: Reply) -> bool:
        return bool(self.test(reply))


def _same(recorded: Reply) -> Callable[[Reply], bool]:
    def same(reply: Reply) -> bool:
        return reply.calls == recorded.calls and " ".join(reply.text.split()) == " ".join(
            recorded.text.split()
        )

    return same


def parse_predicate(spec: str, recorded: Reply) -> Predicate:
    """`--until SPEC` as a predicate; `recorded` is what the recorded turn got back."""
    spec = spec.strip()
    if spec.startswith("tool:") and spec[5:].strip():
        name = spec[5:].strip()
        return Predicate(spec, lambda r: name in r.calls)
    if spec.startswith("text~"):
        try:
            pattern = re.compile(spec[5:])
        except re.error as err:
            raise ConfigError(f"--until {spec!r}: not a regular expression ({err})") from None
        return Predicate(spec, lambda r: pattern.search(r.text) is not None)
    if spec.startswith("status:") and spec[7:].strip():
        status = spec[7:].strip()
        return Predicate(spec, lambda r: r.status == status)
    if spec == "same-as-recorded":
        return Predicate(spec, _same(recorded))
    if spec == "differs-from-recorded":
        same = _same(recorded)
        return Predicate(spec, lambda r: not same(r))
    raise ConfigError(
        f"--until {spec!r}: write tool:NAME, text~REGEX, status:failed, same-as-recorded, "
        "differs-from-recorded, or use --until-python EXPR"
    )


def python_predicate(expression: str) -> Predicate:
    """`--until-python EXPR`: the user's own expression over the answer (it runs as their code)."""
    try:
        code = compile(expression, "--until-python", "eval")
    except SyntaxError as err:
        raise ConfigError(f"--until-python {expression!r}: not a Python expression ({err.msg})") from None

    def test(reply: Reply) -> bool:
        names = {
            "output": reply.output,
            "text": reply.text,
            "calls": reply.calls,
            "status": reply.status,
            "usage": reply.usage or {},
            "re": re,
        }
        try:
            return bool(eval(code, {"__builtins__": __builtins__}, names))  # noqa: S307 - the user's own
        except Exception as err:  # noqa: BLE001 - a broken expression is the user's to fix, said in one line
            raise ConfigError(f"--until-python {expression!r} failed: {type(err).__name__}: {err}") from None

    return Predicate(f"python: {expression}", test)

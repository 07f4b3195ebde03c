"""What `ctxscope bisect --until` asks of an answer: a predicate over what the model returned.

`tool:NAME` (the answer calls NAME), `text~REGEX` (the answer's message text matches),
`status:STATUS` (`failed`, `incomplete`, `completed`), `same-as-recorded` / `differs-from-recorded`
(by the calls made, with their names, and the message text), or `--until-python EXPR`, a Python
expression over the answer (names: `output` the output items as the analysis reads them, dicts with
`type`, `name`, `text`, `arguments`, `plan`, `call_id`; `text` the message text, `plans` its
`<proposed_plan>` blocks, `calls` the tools called, `status`, `usage`). Predicates read the one answer
form every view reads (`ctxscope.inspector.analysis.answers.Answer`). A predicate that cannot be parsed
is a one-line error.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import asdict, dataclass

from ctxscope.inspector.analysis.answers import Answer
from ctxscope.proxy.errors import ConfigError

__all__ = ["Predicate", "answer_calls", "answer_gist", "parse_predicate", "python_predicate"]

def answer_calls(answer: Answer) -> list[str]:
    """The tools an answer called, in order (`ns.tool` for a namespace's; a built-in tool by its name:
    `apply_patch`, `shell`)."""
    return [str(item.name) for item in answer.tool_calls]


def answer_gist(answer: Answer) -> str:
    """One line: the calls made, else the start of the text (what the search shows per attempt)."""
    calls = answer_calls(answer)
    if calls:
        return "calls " + ", ".join(calls)
    text = " ".join(answer.text.split())
    return json.dumps(text[:60] + ("…" if len(text) > 60 else ""), ensure_ascii=False)


@dataclass(frozen=True)
class Predicate:
    """A named yes/no question about an answer."""

    name: str
    test: Callable[[Answer], bool]

    def __call__(self, answer: Answer) -> bool:
        return bool(self.test(answer))


def _same(recorded: Answer) -> Callable[[Answer], bool]:
    def same(answer: Answer) -> bool:
        return answer_calls(answer) == answer_calls(recorded) and " ".join(answer.text.split()) == " ".join(
            recorded.text.split()
        )

    return same


def parse_predicate(spec: str, recorded: Answer) -> Predicate:
    """`--until SPEC` as a predicate; `recorded` is what the recorded turn got back."""
    spec = spec.strip()
    if spec.startswith("tool:") and spec[5:].strip():
        name = spec[5:].strip()
        return Predicate(spec, lambda r: name in answer_calls(r))
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

    def test(answer: Answer) -> bool:
        names = {
            "output": [asdict(item) for item in answer.items],
            "text": answer.text,
            "plans": answer.plans,
            "calls": answer_calls(answer),
            "status": answer.status,
            "usage": answer.usage or {},
            "re": re,
        }
        try:
            return bool(eval(code, {"__builtins__": __builtins__}, names))  # noqa: S307 - the user's own
        except Exception as err:  # noqa: BLE001 - a broken expression is the user's to fix, said in one line
            raise ConfigError(f"--until-python {expression!r} failed: {type(err).__name__}: {err}") from None

    return Predicate(f"python: {expression}", test)

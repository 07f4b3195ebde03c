"""The shape every tool has: a name, a wire spec, and a handler that returns a `ToolResult`.

A tool never talks to the wire itself: the router turns its `ToolResult` into the one output item
the model sees. Expected failures (bad arguments, a refused approval, a patch that does not apply)
raise `ToolError`; its message becomes the output text verbatim, so it is written for the model:
what went wrong and what to do instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel, ValidationError

from ctxscope.harness.tools.call_context import ToolContext

ToolKind = Literal["function", "custom"]
M = TypeVar("M", bound=BaseModel)


@dataclass(frozen=True)
class ToolResult:
    """What a tool answers: the text the model reads, and whether the call did what was asked."""

    output: str
    success: bool = True
    content: tuple[dict[str, Any], ...] = ()
    """Content parts (e.g. an `input_image`) sent as the output instead of `output`, when given."""


class ToolError(Exception):
    """An expected failure; `str(err)` is the whole output text the model gets."""


@runtime_checkable
class Tool(Protocol):
    """One tool. `kind` says which call item carries it (`function_call` or `custom_tool_call`)."""

    name: str
    kind: ToolKind

    def spec(self) -> dict[str, Any]:
        """The Responses API tool definition sent in `tools[]`."""
        ...

    def handle(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """Run one call. `args` is the parsed JSON object (custom tools get `{"input": text}`)."""
        ...


def function_spec(
    name: str, description: str, properties: dict[str, Any], required: list[str]
) -> dict[str, Any]:
    """A `{"type": "function", ...}` tool spec with a closed object schema."""
    return {
        "type": "function",
        "name": name,
        "description": description,
        "strict": False,
        "parameters": {
            "type": "object",
            "properties": properties,
            "required": required,
            "additionalProperties": False,
        },
    }


def parse_args(tool: str, model: type[M], args: dict[str, Any]) -> M:
    """Validate `args` against a pydantic model; a failure becomes a `ToolError` listing each problem."""
    try:
        return model.model_validate(args)
    except ValidationError as e:
        problems = []
        for err in e.errors():
            where = ".".join(str(p) for p in err["loc"]) or "arguments"
            problems.append(f"{where}: {err['msg']}")
        raise ToolError(f"invalid arguments for {tool}: " + "; ".join(problems)) from e

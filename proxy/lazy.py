"""Package attributes imported on first use (PEP 562), so importing a package stays cheap.

Each package keeps its own table of public names and the module each lives in, and ends with
`__getattr__, __dir__ = lazy_attributes(__name__, _WHERE, __all__)`. The `ctxscope` command relies on
it: `ctxscope diff` imports `ctxscope.harness.context` for the fragment specs without starting mitmproxy or
the agent's HTTP client.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, MutableMapping, Sequence
from typing import Any

__all__ = ["lazy_attributes"]


def lazy_attributes(
    package: str,
    where: Mapping[str, str],
    public: Sequence[str],
    namespace: MutableMapping[str, Any] | None = None,
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """A module `__getattr__` loading `where[name]` (a module path; `.x` is relative to `package`) on
    first access, and a `__dir__` listing `public`. Given the package's `globals()` as `namespace`, a
    loaded name is kept there, so later accesses are plain attribute reads (hot paths read them)."""

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module, package), name)
        if namespace is not None:
            namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(public)

    return __getattr__, __dir__

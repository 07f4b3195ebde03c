"""The `ctxscope` command: argument parsing and wiring only; each package registers its commands.

Errors meant for a person (`CtxscopeError`) print one line and exit with status 2, never a traceback.
"""

from __future__ import annotations

import importlib
import sys

import typer

from proxy.errors import CtxscopeError

__all__ = ["app", "main"]

app = typer.Typer(
    name="ctxscope",
    help="See exactly what a coding agent sends to the model, turn by turn, and why it changed.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)

_COMMAND_MODULES = (
    "proxy.cli",
    "harness.cli",
    "inspector.cli",
    "inspector.otel.cli",
    "ctxscope.resend",
    "ctxscope.demo",
)

for _module in _COMMAND_MODULES:
    try:
        importlib.import_module(_module).register(app)
    except ModuleNotFoundError as _err:  # a package still without commands
        if _err.name != _module:
            raise


def main() -> None:
    try:
        app()
    except CtxscopeError as err:
        print(f"error: {err}", file=sys.stderr)
        sys.exit(2)
    except KeyboardInterrupt:  # Ctrl-C before a command installed its own handling
        print("interrupted", file=sys.stderr)
        sys.exit(130)
    except BrokenPipeError:  # `ctxscope export ... | head`
        sys.stderr.close()
        sys.exit(0)


if __name__ == "__main__":
    main()

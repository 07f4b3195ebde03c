"""`python -m ctxscope`: the `ctxscope` command, for a venv whose scripts are not on PATH."""

from __future__ import annotations

from ctxscope.cli import main

if __name__ == "__main__":
    main()

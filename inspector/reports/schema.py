"""The JSON schema of `ctxscope-report/1`, generated from the report models.

`python -m ctxscope.inspector.reports.schema` writes it to `docs/report-schema.json` (`--check` only
compares, exit 1 when the committed file is stale); a test keeps the committed file equal to
what the models generate. `docs/report-schema.md` explains the fields in prose.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter

from ctxscope.inspector.reports.models import SCHEMA, ReportDoc

__all__ = ["DEFAULT_PATH", "report_schema", "schema_text"]

DEFAULT_PATH = Path(__file__).resolve().parents[2] / "docs" / "report-schema.json"


def report_schema() -> dict[str, Any]:
    """The schema of every report document (told apart by `report`), published key names.

    The models refuse unknown keys (a typo in the builder fails at once), but version 1 may gain
    keys, so the published schema leaves objects open: a consumer validating with it keeps working
    when a newer ctxscope adds a field.
    """
    schema = TypeAdapter(ReportDoc).json_schema(mode="serialization", by_alias=True)
    for definition in schema.get("$defs", {}).values():
        if definition.get("additionalProperties") is False:
            del definition["additionalProperties"]
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": SCHEMA,
        "description": "ctxscope report documents (`ctxscope diff|show|compare --format json`). "
        "Generated from inspector/reports/models.py by `python -m ctxscope.inspector.reports.schema`.",
        **schema,
    }


def schema_text() -> str:
    """The schema as the committed file holds it (stable key order, trailing newline)."""
    return json.dumps(report_schema(), indent=2, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Write (or with --check, compare) the schema file; returns the exit status."""
    parser = argparse.ArgumentParser(prog="python -m ctxscope.inspector.reports.schema", description=__doc__)
    parser.add_argument("path", nargs="?", type=Path, default=DEFAULT_PATH, help="default: %(default)s")
    parser.add_argument("--check", action="store_true", help="exit 1 when the file differs; write nothing")
    args = parser.parse_args(argv)
    text = schema_text()
    if args.check:
        try:
            current = args.path.read_text(encoding="utf-8")
        except OSError as err:
            print(
                f"cannot read {args.path}: {err.strerror}; run without --check to write it", file=sys.stderr
            )
            return 1
        if current != text:
            print(
                f"{args.path} is stale; run `python -m ctxscope.inspector.reports.schema` to regenerate it",
                file=sys.stderr,
            )
            return 1
        return 0
    args.path.write_text(text, encoding="utf-8")
    print(f"wrote {args.path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

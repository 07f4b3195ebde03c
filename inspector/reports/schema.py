"""The JSON schema of `ctxscope-report/1`, generated from the report models.

`python -m ctxscope.inspector.reports.schema` writes it to `docs/report-schema.json` (`--check` only
compares, exit 1 when the committed file is stale); a test keeps the committed file equal to
what the models generate. `docs/report-schema.md` explains the fields in prose.
"""

from __future__ import annotations

import argparse
import ast
import functools
import inspect
import json
import sys
from pathlib import Path
from typing import Any

from pydantic import BaseModel, TypeAdapter
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue
from pydantic_core import core_schema

from ctxscope.inspector.reports import models
from ctxscope.inspector.reports.models import SCHEMA, Doc, ReportDoc

__all__ = ["DEFAULT_PATH", "report_schema", "schema_text"]

DEFAULT_PATH = Path(__file__).resolve().parents[2] / "docs" / "report-schema.json"


@functools.cache
def _attribute_docstrings() -> dict[str, dict[str, str]]:
    """Class name → field → the string right after the field's annotation in `models`, cleaned as pydantic's
    `use_attribute_docstrings` cleans it (read here, once, rather than at every import of the models)."""
    out: dict[str, dict[str, str]] = {}
    for node in ast.parse(inspect.getsource(models)).body:
        if not isinstance(node, ast.ClassDef):
            continue
        docs = out.setdefault(node.name, {})
        for field, after in zip(node.body, node.body[1:], strict=False):
            if (
                isinstance(field, ast.AnnAssign)
                and isinstance(field.target, ast.Name)
                and isinstance(after, ast.Expr)
                and isinstance(after.value, ast.Constant)
                and isinstance(after.value.value, str)
            ):
                docs[field.target.id] = inspect.cleandoc(after.value.value)
    return out


def _field_docstring(cls: type[BaseModel], name: str) -> str | None:
    """The docstring of field `name` where it is declared: the class itself, else the base it inherits it from."""
    for owner in cls.__mro__:
        if name in vars(owner).get("__annotations__", {}):
            return _attribute_docstrings().get(owner.__name__, {}).get(name)
    return None


class _Documented(GenerateJsonSchema):
    """Pydantic's schema, each report field described by its docstring (an explicit description wins)."""

    def model_schema(self, schema: core_schema.ModelSchema) -> JsonSchemaValue:
        json_schema = super().model_schema(schema)
        cls = schema["cls"]
        properties = json_schema.get("properties", {})
        if issubclass(cls, Doc):
            for name, info in cls.model_fields.items():
                key = info.serialization_alias or info.alias or name
                doc = _field_docstring(cls, name) if info.description is None else None
                if doc is not None and key in properties:
                    properties[key]["description"] = doc
        return json_schema


def report_schema() -> dict[str, Any]:
    """The schema of every report document (told apart by `report`), published key names.

    The models refuse unknown keys (a typo in the builder fails at once), but version 1 may gain
    keys, so the published schema leaves objects open: a consumer validating with it keeps working
    when a newer ctxscope adds a field.
    """
    schema = TypeAdapter(ReportDoc).json_schema(mode="serialization", by_alias=True, schema_generator=_Documented)
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

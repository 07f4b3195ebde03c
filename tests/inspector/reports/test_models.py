"""Report documents as models: what they write is `ctxscope-report/1` under its published key names,
the written JSON reads back into the same models, and the committed JSON schema is the generated one."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pydantic import TypeAdapter

from ctxscope.inspector.analysis import Analysis
from ctxscope.inspector.analysis.compare import compare_analyses
from ctxscope.inspector.reports import SCHEMA, ReportDoc, compare_report, diff_report, show_report
from ctxscope.inspector.reports.schema import DEFAULT_PATH, main, report_schema, schema_text
from tests.inspector.edge_support import EDGES

READER: TypeAdapter[Any] = TypeAdapter(ReportDoc)


@pytest.mark.parametrize("name", sorted(EDGES))
def test_every_document_reads_back_into_the_same_model(
    name: str, analysed: Callable[[str], Analysis]
) -> None:
    a = analysed(name)
    docs = [diff_report(a)]
    docs += [diff_report(a, turn=n) for n in range(1, len(a.turns) + 1)]
    docs += [show_report(a, n) for n in range(1, len(a.turns) + 1)]
    for doc in docs:
        wire = doc.wire()
        assert json.loads(json.dumps(wire)) == wire  # plain JSON already
        assert READER.validate_python(wire).wire() == wire


def test_published_key_names_and_optional_keys(analysed: Callable[[str], Analysis]) -> None:
    a = analysed("world")
    doc = diff_report(a, turn=2).wire()
    assert list(doc) == [
        "schema",
        "report",
        "tokenizer",
        "source",
        "warnings",
        "threads",
        "turns",
        "detail",
        "root",
        "side_requests",
        "agents",
    ]
    assert doc["agents"] == []  # no spawned agent: no tree
    assert doc["schema"] == SCHEMA and doc["report"] == "diff"
    detail = doc["detail"]
    assert list(detail)[-5:] == [
        "added_items",
        "removed_items",
        "instructions_diff",
        "world_state",
        "fragments_replaced",
    ]
    assert {"date", "sandbox", "approval", "network"} <= set(detail["world_state"])
    assert not {"current_date", "sandbox_mode"} & set(detail["world_state"])
    # `values` only on fragment parts, `text` only where full text is shown.
    parts = [p for item in detail["added_items"] for p in item.get("parts", [])]
    assert all(("values" in p) == (p["kind"] not in ("text", "image")) for p in parts)
    assert all("text" in p for p in parts)
    assert all(isinstance(t["items"], int) for t in doc["turns"])  # timeline rows count items


def test_compaction_item_lists_only_in_the_detail(analysed: Callable[[str], Analysis]) -> None:
    a = analysed("compaction")
    number = next(t.turn.number for t in a.turns if t.compaction)
    doc = diff_report(a, turn=number).wire()
    row = next(t for t in doc["turns"] if t["turn"] == number)
    assert "kept_items" not in row["compaction"]
    kept = doc["detail"]["compaction"]["kept_items"]
    assert kept and all("text" not in i for i in kept)  # compaction item lists carry no text


def test_compare_document_round_trips(analysed: Callable[[str], Analysis]) -> None:
    doc = compare_report(compare_analyses(analysed("backend_apikey"), analysed("backend_chatgpt")))
    wire = doc.wire()
    assert wire["report"] == "compare" and wire["turns"]
    assert READER.validate_python(wire).wire() == wire


def test_the_committed_schema_is_the_generated_one() -> None:
    assert DEFAULT_PATH.read_text(encoding="utf-8") == schema_text(), (
        "docs/report-schema.json is stale: run `python -m ctxscope.inspector.reports.schema`"
    )


def test_the_schema_names_the_published_world_state_keys() -> None:
    world = report_schema()["$defs"]["WorldStateDoc"]["properties"]
    assert {"date", "sandbox", "approval", "network", "agents_md", "selected_skills"} <= set(world)
    assert not {"current_date", "sandbox_mode", "approval_policy", "network_enabled"} & set(world)
    assert world["skills"]["items"] == {"type": "string"}  # skills are published by name


def test_schema_check_reports_a_stale_file_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stale = tmp_path / "schema.json"
    stale.write_text("{}\n", encoding="utf-8")
    assert main([str(stale), "--check"]) == 1
    assert capsys.readouterr().err.count("\n") == 1
    assert stale.read_text(encoding="utf-8") == "{}\n"  # --check never writes
    assert main([str(tmp_path / "missing.json"), "--check"]) == 1
    assert main([str(stale)]) == 0 and main([str(stale), "--check"]) == 0

"""Every view numbers a turn's items the same way: the TUI's turn view counts what `diff` counts
(`kept K +A -R`, the analysis's one change), labels old and new positions where both appear, and
shows the same answer; on every fixture recording."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxscope.inspector.analysis import analyse_recording
from ctxscope.inspector.analysis.changes import change_words
from ctxscope.inspector.reports import diff_report
from ctxscope.inspector.tui.viewmodel.turn import turn_view

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "inspector"
RECORDINGS = sorted(FIXTURES.glob("*.jsonl")) + sorted((FIXTURES / "tui").glob("*.jsonl"))


@pytest.mark.parametrize("path", RECORDINGS, ids=lambda p: p.stem)
def test_the_tui_turn_view_counts_what_the_report_counts(path: Path) -> None:
    analysis = analyse_recording(path)
    report = diff_report(analysis)
    by_number = {r.turn.number: r for r in analysis.turns}
    for doc in report.turns:
        result = by_number[doc.turn]
        target = by_number.get(doc.change.previous) if doc.change.previous is not None else None
        lines = [line.text for line in turn_view(result, target, reason="previous", expanded=set()).lines]
        (head,) = [line for line in lines if line.startswith("input[]")]
        words = change_words(doc.change.kept, doc.change.added, doc.change.removed)
        assert head.startswith(f"input[]  {doc.items} item") and f": {words}" in head, (doc.turn, head)
        items = [line for line in lines if line[:4] in ("  + ", "  - ", "  ~ ", "  = ")]
        if doc.change.removed and target is not None:
            # old and new positions side by side: each line says whose it is
            assert "old #: turn" in head
            assert all(" old #" in line for line in items if line.startswith("  - ")), (doc.turn, items)
            assert all(" new #" in line for line in items if line[:4] in ("  + ", "  ~ ")), (doc.turn, items)
        (answer,) = [line for line in lines if line.startswith("answer")]
        assert answer.startswith(f"answer  {doc.answer.status}")


COST_PRICES = """
[models."gpt-5-codex"]
input = 1.25
cached_input = 0.125
output = 10.0

[models."gpt-4o"]
input = 2.5
cached_input = 1.25
output = 10.0
"""


def _otel_costs(path: Path) -> dict[int, float]:
    """`ctxscope.cost.usd` of each turn's span in an OTLP/JSON export."""
    import json

    doc = json.loads(path.read_text(encoding="utf-8"))
    out: dict[int, float] = {}
    for resource in doc["resourceSpans"]:
        for scope in resource["scopeSpans"]:
            for span in scope["spans"]:
                attrs = {a["key"]: a["value"] for a in span.get("attributes", [])}
                if "ctxscope.cost.usd" in attrs:
                    out[int(attrs["ctxscope.turn"]["intValue"])] = attrs["ctxscope.cost.usd"]["doubleValue"]
    return out


@pytest.mark.parametrize("path", [FIXTURES / "compaction.jsonl", FIXTURES / "odd_input.jsonl"], ids=lambda p: p.stem)
def test_every_view_says_the_same_cost(path: Path, tmp_path: Path) -> None:
    """`cost`, `diff --format json`, `info --json` and the OTel export read the turn document's one
    cost figure, at the price table `$CTXSCOPE_PRICES` names."""
    import json
    import os
    import subprocess
    import sys

    prices = tmp_path / "prices.toml"
    prices.write_text(COST_PRICES)
    env = {**os.environ, "CTXSCOPE_PRICES": str(prices)}

    def run(*args: str) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "ctxscope", *args], capture_output=True, text=True, env=env, timeout=120
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    cost = json.loads(run("cost", str(path), "--format", "json"))
    diff = json.loads(run("diff", str(path), "--format", "json"))
    info = json.loads(run("info", str(path), "--json"))
    run("otel", str(path), "-o", str(tmp_path / "spans.json"))
    by_cost = {t["turn"]: t["usd"] for t in cost["turns"]}
    by_diff = {t["turn"]: t["cost"]["usd"] for t in diff["turns"]}
    assert by_cost == by_diff and all(v is not None for v in by_cost.values())
    assert info["cost"]["usd"] == pytest.approx(cost["total"]["usd"], rel=1e-12)
    assert _otel_costs(tmp_path / "spans.json") == pytest.approx(by_cost, rel=1e-12)

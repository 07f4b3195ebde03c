"""The index's `agents` table: the analysis's agent tree of a real Codex 0.171 session that spawned a
subagent (tests/fixtures/inspector/subagent.jsonl), its figures those of its requests' turn rows, the
same in the Parquet export, asked by `ctxscope query --agents`."""

from __future__ import annotations

import json
from pathlib import Path

from ctxscope.inspector.analysis import analyse_recording
from ctxscope.inspector.analysis.agents import agent_tree
from ctxscope.inspector.index import open_index
from ctxscope.inspector.reports.agents import agent_docs
from tests.cli_support import run_cli

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "inspector"
CAPTURE = FIXTURES / "subagent.jsonl"


def test_the_agents_table_is_the_tree_of_a_real_codex_session_with_a_subagent(tmp_path: Path) -> None:
    db, export = tmp_path / "index.duckdb", tmp_path / "pq"
    built = run_cli("index", str(CAPTURE), str(FIXTURES / "chain.jsonl"), "-o", str(db), "--parquet", str(export))
    assert built.returncode == 0, built.stderr
    analysis = analyse_recording(CAPTURE)
    tree = agent_tree(analysis)
    assert [a.path for a in tree] == ["main", "main/Bacon"]  # the capture's one spawned agent
    # the parent's spawn_agent call, as Codex sent it in the parent's next request
    spawn_calls = {
        item["call_id"]
        for result in analysis.turns
        for item in result.turn.raw_input
        if isinstance(item, dict) and item.get("type") == "function_call" and item.get("name") == "spawn_agent"
    }
    with open_index(db) as con:
        rec = con.execute("SELECT recording FROM recordings WHERE name = 'subagent.jsonl'").fetchone()[0]
        rows = con.execute(
            "SELECT agent, nickname, agent_id, parent, spawn_call, spawned_in, result_in, returned_in, threads, "
            "requests FROM agents WHERE recording = ? ORDER BY agent",
            [rec],
        ).fetchall()
        assert rows == [
            (
                a.path,
                a.name,
                a.thread_id,
                None if a.parent is None else "main",
                a.spawn_call,
                a.spawned_in,
                a.result_in,
                a.returned_in,
                a.threads,
                len(a.turns),
            )
            for a in tree
        ]
        assert rows[1][4] in spawn_calls and rows[1][2] == json.loads(
            next(
                i["output"]
                for r in analysis.turns
                for i in r.turn.raw_input
                if isinstance(i, dict) and i.get("type") == "function_call_output" and i.get("call_id") == rows[1][4]
            )
        )["agent_id"]
        # an agent's figures are its requests' turn rows summed
        sums = """SELECT agent, count(*), sum(input_tokens), sum(cached_tokens), sum(output_tokens), sum(cost_usd),
                         count(*) FILTER (WHERE cost_usd IS NULL AND input_tokens IS NOT NULL)
                  FROM turns WHERE recording = ? GROUP BY agent ORDER BY agent"""
        figures = """SELECT agent, requests, input_tokens, cached_tokens, output_tokens, cost_usd, unpriced
                     FROM agents WHERE recording = ? ORDER BY agent"""
        assert con.execute(sums, [rec]).fetchall() == con.execute(figures, [rec]).fetchall()
        # ... and what every report says of the agent (one account: `info`, `show`, the HTML report)
        docs = {d.path: d for d in agent_docs(analysis)}
        assert {r[0]: (r[1], r[5]) for r in con.execute(figures, [rec]).fetchall()} == {
            path: (d.requests, d.usd) for path, d in docs.items()
        }
        # a recording without spawned agents is one agent, `main`, with all its requests
        assert con.execute(
            "SELECT agent, parent, requests FROM agents a JOIN recordings r USING (recording) "
            "WHERE r.name = 'chain.jsonl'"
        ).fetchall() == [("main", None, len(analyse_recording(FIXTURES / "chain.jsonl").turns))]
    asked = {
        source: json.loads(run_cli("query", source, "--agents", "--format", "json").stdout)
        for source in (str(db), str(export))
    }
    assert [(r["agent"], r["parent"], r["requests"]) for r in asked[str(db)]] == [
        ("main", None, 2),
        ("main/Bacon", "main", 1),
    ]
    assert asked[str(export)] == [{**r, "recording": "subagent.jsonl"} for r in asked[str(db)]]
    shown = run_cli("query", str(db), "--agents")
    assert shown.returncode == 0 and "main/Bacon" in shown.stdout

"""The index over a recording the real proxy is still writing: each re-index adds only the turns
the recorder appended since (openai-python through mitmproxy on loopback, a local upstream)."""

from __future__ import annotations

from pathlib import Path

from openai import OpenAI

from ctxscope.inspector.analysis import analyse_recording
from ctxscope.inspector.index import build_index
from ctxscope.inspector.index._duckdb import connect
from ctxscope.proxy.testing import CaptureSession


def test_reindexing_a_growing_capture_adds_only_the_appended_turns(
    capture: CaptureSession, tmp_path: Path
) -> None:
    client = OpenAI(base_url=f"{capture.url}/v1", api_key="sk-test-index-0123456789", max_retries=0)

    def ask(text: str, previous: str | None = None) -> str:
        with client.responses.stream(
            model="gpt-test", input=[{"role": "user", "content": text}], previous_response_id=previous
        ) as stream:
            return stream.get_final_response().id

    db = tmp_path / "index.duckdb"
    first = ask("hello")
    ask("and again", first)
    capture.wait_for(2)
    built = build_index(db, [capture.path])
    assert (built.added, built.turns_added) == (1, 2)

    ask("a new conversation")
    capture.wait_for(3)
    again = build_index(db, [capture.path])
    assert (again.updated, again.turns_added, again.turns_deleted) == (1, 1, 0)
    assert again.rows_inserted["turns"] == 1

    client.close()  # its pooled connection is not left to the collector
    capture.server.stop()
    capture.writer.close()
    analysis = analyse_recording(capture.path)
    with connect(db) as con:
        rows = con.execute(
            "SELECT turn, thread, change_kind, client FROM turns "
            "JOIN recordings USING (recording, day) ORDER BY turn"
        ).fetchall()
        text = con.execute("SELECT string_agg(coalesce(label, ''), ' ') FROM items").fetchone()[0]
    assert [r[:3] for r in rows] == [(t.turn.number, t.turn.thread, t.change.kind) for t in analysis.turns]
    assert rows[0][3] and rows[0][3].lower().startswith("openai")  # the client that made the requests
    assert "sk-test-index" not in text  # built from the redacted recording

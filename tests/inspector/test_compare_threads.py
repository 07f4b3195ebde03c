"""`ctxscope compare --thread A[:B]` and the "identical apart from" summary, on recordings made by the
real proxy: openai-python runs the same two conversations against an API-key style path (`/v1`) and
a ChatGPT-backend style path (`/backend-api/codex`), in a different order, so only the endpoint
differs and the threads carry different names in the two recordings.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from openai import OpenAI

from ctxscope.proxy.testing import FakeUpstream, capture_proxy
from tests.cli_support import run_cli


def _conversation(client: OpenAI) -> None:
    with client.responses.stream(
        model="gpt-test", instructions="Be brief.", input=[{"role": "user", "content": "hello"}]
    ) as stream:
        first = stream.get_final_response()
    with client.responses.stream(
        model="gpt-test", previous_response_id=first.id, input=[{"role": "user", "content": "and again"}]
    ) as stream:
        stream.get_final_response()


def _other_task(client: OpenAI) -> None:
    with client.responses.stream(model="gpt-test", input="another task entirely") as stream:
        stream.get_final_response()


def _record(upstream: FakeUpstream, path: Path, base_path: str, *, other_first: bool) -> Path:
    with capture_proxy(upstream.url, path) as capture:
        steps = [_other_task, _conversation] if other_first else [_conversation, _other_task]
        with OpenAI(
            base_url=f"{capture.url}{base_path}", api_key="sk-test-compare-0123456789", max_retries=0
        ) as client:
            for step in steps:
                step(client)
        capture.wait_for(3)
    return path


def _path(url: str) -> str:
    return "/" + url.split("/", 3)[3]


@pytest.fixture
def recordings(upstream: FakeUpstream, tmp_path: Path) -> tuple[str, str]:
    """A: the conversation (T1, turns 1-2) then the other task (T2, turn 3), through `/v1`.
    B: the other task (T1, turn 1) then the conversation (T2, turns 2-3), through `/backend-api/codex`."""
    a = _record(upstream, tmp_path / "apikey.jsonl", "/v1", other_first=False)
    b = _record(upstream, tmp_path / "chatgpt.jsonl", "/backend-api/codex", other_first=True)
    return str(a), str(b)


def test_a_thread_of_each_recording_is_identical_apart_from_the_endpoint(recordings: tuple[str, str]) -> None:
    a, b = recordings
    diff_a = json.loads(run_cli("diff", a, "-f", "json").stdout)
    assert [(t["name"], t["turns"]) for t in diff_a["threads"]] == [("T1", [1, 2]), ("T2", [3])]

    result = run_cli("compare", a, b, "--thread", "T1:T2", "-f", "json")
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["threads"] == {"a": "T1", "b": "T2"}
    summary = doc["summary"]
    assert summary.pop("raw") is False and "ids (resp)" in summary.pop("normalised")
    assert summary == {
        "turns_a": 2,
        "turns_b": 2,
        "same_turns": 0,
        "repeated_differences": ["endpoint"],
        "identical_apart_from": ["endpoint"],
        "verdicts": {"same_apart": 2},  # one verdict, as the TUI counts it too
    }
    assert [(p["a_turn"], p["b_turn"]) for p in doc["turns"]] == [(1, 2), (2, 3)]
    for pair in doc["turns"]:  # the pair documents still carry the difference in full
        assert [_path(u) for u in pair["endpoint"]] == [
            "/v1/responses",
            "/backend-api/codex/responses",
        ]
        assert pair["items_diff"] == [] and pair["headers"] == {"only_a": [], "only_b": [], "changed": {}}

    text = run_cli("compare", a, b, "--thread", "T1:T2", "--no-color", env={"COLUMNS": "200"}).stdout
    lines = text.splitlines()
    assert lines[:2] == [f"A {a}  thread T1  (2 turns)", f"B {b}  thread T2  (2 turns)"]
    assert lines[2].startswith("normalised as strict replay does: ids (resp)")
    assert lines[3] == "identical apart from: endpoint  (all 2 aligned turns)"
    assert text.count("· endpoint: ") == 1 and "/v1/responses ≠ " in lines[4]
    assert "/backend-api/codex/responses" in lines[4]
    verdicts = [line for line in lines if line.startswith("  turn ")]
    assert verdicts == [
        "  turn 1  same apart from the above  (A's turn 1, B's turn 2)",
        "  turn 2  same apart from the above  (A's turn 2, B's turn 3)",
    ]

    md = run_cli("compare", a, b, "--thread", "T1:T2", "-f", "markdown").stdout
    assert "**Identical apart from:** endpoint" in md and md.count("- endpoint ") == 1
    assert "| 1 | apart from the above |  |" in md and "(thread T2)" in md


def test_whole_recordings_align_by_conversation_and_name_the_endpoint_once(
    recordings: tuple[str, str],
) -> None:
    a, b = recordings
    doc = json.loads(run_cli("compare", a, b, "-f", "json").stdout)
    assert "threads" not in doc
    aligned = [(p["a_turn"], p["b_turn"]) for p in doc["turns"]]
    # The conversation lines up with the conversation; the other task is a gap on each side, because
    # it comes first in B and last in A.
    assert aligned == [(None, 1), (1, 2), (2, 3), (3, None)]
    assert doc["summary"]["identical_apart_from"] == ["endpoint"]


def test_one_name_compares_the_same_thread_of_both(recordings: tuple[str, str]) -> None:
    a, b = recordings
    doc = json.loads(run_cli("compare", a, b, "--thread", "T2", "-f", "json").stdout)
    # A's T2 is the one-turn other task; B's T2 is the two-turn conversation: one pair differs in its
    # items and endpoint, the conversation's second turn has no counterpart, nothing repeats.
    assert doc["threads"] == {"a": "T2", "b": "T2"}
    assert (doc["summary"]["turns_a"], doc["summary"]["turns_b"]) == (1, 2)
    assert doc["summary"]["repeated_differences"] == [] and doc["summary"]["identical_apart_from"] is None
    assert any(p["items_diff"] for p in doc["turns"] if p["a_turn"] and p["b_turn"])
    text = run_cli("compare", a, b, "--thread", "T2", "--no-color").stdout
    assert "identical apart from" not in text and "· endpoint: " in text


@pytest.mark.parametrize(
    "spec, side, name",
    [("T3", "A", "T3"), ("T1:T9", "B", "T9"), ("nope:T1", "A", "nope")],
)
def test_an_unknown_thread_is_a_one_line_error_listing_the_known_ones(
    recordings: tuple[str, str], spec: str, side: str, name: str
) -> None:
    a, b = recordings
    result = run_cli("compare", a, b, "--thread", spec)
    path = a if side == "A" else b
    assert result.returncode == 2 and result.stdout == ""
    assert (
        result.stderr == f"error: recording {side} ({path}): there is no thread {name!r} (threads: T1, T2)\n"
    )

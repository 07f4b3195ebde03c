"""What fills the context (`ctxscope context`) and why the cache missed (`ctxscope cache`), on the
fixture recordings, the shipped Codex CLI capture and real harness sessions through the proxy."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from ctxscope.inspector.analysis import analyse_exchanges, analyse_recording
from ctxscope.inspector.analysis.cache import cache_report
from ctxscope.inspector.analysis.composition import compose, composition_report
from ctxscope.inspector.analysis.tokens import count_json
from ctxscope.proxy.store import read_recording
from tests.cli_support import run_cli
from tests.harness.harness_support import PINNED_CONTEXT, make_repo, run_agent, write_config, write_script

FIXTURES = Path(__file__).parents[2] / "fixtures" / "inspector"
REAL = FIXTURES / "real"
RECORDINGS = sorted(FIXTURES.glob("*.jsonl")) + [FIXTURES / "tui" / "codex.jsonl", *sorted(REAL.glob("*.jsonl"))]


@pytest.mark.parametrize("path", RECORDINGS, ids=lambda p: p.name)
def test_each_turn_sums_to_its_counted_total_and_names_its_largest_item(path: Path) -> None:
    analysis = analyse_recording(path)
    report = composition_report(analysis)
    for comp in report.turns:
        turn = analysis.turn(comp.turn)
        assert sum(comp.by_kind.values()) == comp.total == turn.tokens.total, comp.turn
        sizes = [item.tokens for item in turn.turn.items]
        tools = turn.turn.body.get("tools") or []
        sizes += [count_json(t) for t in tools if isinstance(t, dict)]
        if sizes and max(sizes):
            assert comp.largest[0].tokens == max(sizes)
        assert [i.tokens for i in comp.largest] == sorted((i.tokens for i in comp.largest), reverse=True)


def test_the_codex_capture_counts_every_fragment_kind() -> None:
    analysis = analyse_recording(FIXTURES / "tui" / "codex.jsonl")
    first, _ = compose(analysis.turn(1))
    assert {"base_prompt", "tools", "permissions", "agents_md", "environment_context", "user"} <= set(
        first.by_kind
    )
    assert first.threshold == int(first.window * 0.9)
    outputs = {
        k for c in composition_report(analysis).turns for k in c.by_kind if k.startswith("tool_output:")
    }
    assert outputs and all(k != "tool_output:" for k in outputs), "each output is counted under its tool"


def test_the_predicted_cache_is_one_number_in_every_view() -> None:
    for path in RECORDINGS:
        analysis = analyse_recording(path)
        entries = cache_report(analysis)
        assert [e.turn for e in entries] == [t.turn.number for t in analysis.turns]
        for entry in entries:
            turn = analysis.turn(entry.turn)
            assert entry.predicted_cached == turn.tokens.predicted_cached, (path.name, entry.turn)
            assert entry.best_prefix == turn.tokens.shared_prefix, (path.name, entry.turn)
            assert entry.brk is None or entry.brk.tokens > 0, (path.name, entry.turn)


def test_a_prewarm_warms_the_cache_of_the_turn_after_it() -> None:
    """Codex over WebSocket: each process opens with a prewarm (a side request of the same cache
    key); the turn after it is predicted from it, in `diff` and `cache` alike."""
    analysis = analyse_recording(REAL / "codex_ws.jsonl")
    diff = json.loads(run_cli("diff", str(REAL / "codex_ws.jsonl"), "--format", "json").stdout)
    cache = json.loads(run_cli("cache", str(REAL / "codex_ws.jsonl"), "--format", "json").stdout)
    assert [t["tokens"]["predicted_cached"] for t in diff["turns"]] == [
        t["predicted_cached"] for t in cache["turns"]
    ]
    first_real = next(t for t in analysis.turns if t.turn.side is None)
    assert first_real.cache is not None
    assert analysis.turn(first_real.cache.best_turn or 0).turn.side == "prewarm"
    assert first_real.tokens.predicted_cached > 0


def test_tools_reordered_and_a_model_switch_are_named() -> None:
    # Under the cache's 1,024-token minimum nothing was cached to lose: the change is named, not a break.
    reordered = cache_report(analyse_recording(FIXTURES / "tools_reordered.jsonl"))
    assert reordered[1].brk is None
    assert reordered[1].notes == ["the prefix changed at tools (tools reordered); no cached token lost"]
    switched = cache_report(analyse_recording(FIXTURES / "world.jsonl"))
    assert switched[1].brk is None and "(model switch gpt-5-codex → " in switched[1].notes[0]
    # The tour's model switch costs what had been cached.
    tour = cache_report(analyse_recording(REAL / "tour.jsonl"))
    brk = tour[6].brk
    assert brk is not None and brk.at == "model" and brk.cause == "model switch gpt-5-codex → gpt-5-mini"
    assert brk.tokens > 0 and tour[6].predicted_cached == 0


def _session(root: Path, *, second_day: bool, effort: str | None) -> Path:
    """Two harness turns through the proxy: the second resumed a day later, or with another effort."""
    repo = make_repo(root)
    script = write_script(root / "script.json", [{"output": [{"text": "ok"}]}] * 2)
    capture = root / "capture.jsonl"
    first = run_agent(repo, script, ["first"], capture, config_path=write_config(root, root / "skills"))
    later = dict(PINNED_CONTEXT)
    if second_day:
        later["now"] = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
    extra = f'reasoning_effort = "{effort}"' if effort else ""
    home = root / "second"
    home.mkdir()
    import tests.harness.harness_support as support

    saved = support.PINNED_CONTEXT
    support.PINNED_CONTEXT = later
    try:
        run_agent(
            repo, script, ["second"], capture, session=first.session_id,
            config_path=write_config(home, root / "skills", extra),
        )  # fmt: skip
    finally:
        support.PINNED_CONTEXT = saved
    return capture


def test_a_date_change_is_named_and_shown_not_to_break_the_prefix(tmp_path: Path) -> None:
    capture = _session(tmp_path, second_day=True, effort=None)
    result = run_cli("cache", str(capture), "--format", "json")
    assert result.returncode == 0, result.stderr
    second = json.loads(result.stdout)["turns"][1]
    assert second["break"] is None  # the harness appends the new date, as Codex does
    assert any("current_date 2026-11-29 → 2026-11-30 was appended" in n for n in second["notes"])
    text = run_cli("cache", str(capture)).stdout
    assert "turn 2" in text and "current_date 2026-11-29 → 2026-11-30" in text


def test_a_reasoning_effort_change_is_the_break_with_its_cost(tmp_path: Path) -> None:
    capture = _session(tmp_path, second_day=False, effort="high")
    doc = json.loads(run_cli("cache", str(capture), "--format", "json").stdout)
    second = doc["turns"][1]
    assert second["break"]["at"] == "reasoning.effort"
    assert second["break"]["cause"].endswith("→ high")
    assert second["break"]["tokens"] > 0 and second["predicted_cached"] == 0
    text = run_cli("cache", str(capture)).stdout
    assert "prefix broke at reasoning.effort: reasoning.effort" in text


def test_context_json_keeps_its_names_and_markdown_renders() -> None:
    path = FIXTURES / "tui" / "codex.jsonl"
    doc = json.loads(run_cli("context", str(path), "--format", "json").stdout)
    turn = doc["turns"][0]
    assert {"turn", "thread", "total", "window", "by_kind", "largest"} <= set(turn)
    assert {"label", "tokens"} <= set(turn["largest"][0])
    one = json.loads(run_cli("context", str(path), "--turn", "3", "--format", "json").stdout)
    assert [t["turn"] for t in one["turns"]] == [3]
    markdown = run_cli("context", str(path), "--format", "markdown").stdout
    assert "| kind | tokens | share | change |" in markdown
    # (the Codex capture ends on a compaction: nothing grew since; the WebSocket capture's findings)
    findings = run_cli("context", str(REAL / "codex_ws.jsonl"), "--format", "markdown").stdout
    assert "## Findings" in findings and "never called" in findings
    cache = json.loads(run_cli("cache", str(path), "--format", "json").stdout)
    entry = cache["turns"][1]
    assert {"turn", "thread", "predicted_cached", "reported_cached", "break", "flag"} <= set(entry)
    assert {"at", "label", "cause", "tokens"} <= set(entry["break"])


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["context", "{rec}", "--format", "xml"], "--format 'xml': use text, json or markdown"),
        (["cache", "{rec}", "--format", "markdown"], "--format 'markdown': use text or json"),
        (["context", "{rec}", "--turn", "99"], "there is no turn 99"),
        (["cache", "/nonexistent/x.jsonl"], "does not exist"),
    ],
)
def test_bad_input_is_one_line(args: list[str], message: str) -> None:
    path = FIXTURES / "world.jsonl"
    result = run_cli(*[a.replace("{rec}", str(path)) for a in args])
    assert result.returncode == 2
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1, result.stderr


def test_the_fastest_growing_kind_is_measured_since_the_last_compaction() -> None:
    # The tour, cut after the compaction at turn 16 plus one more request: growth is measured over
    # those two turns only, and the kinds the compaction shrank are not said to grow.
    recording = read_recording(REAL / "tour.jsonl")
    whole = analyse_exchanges(recording.exchanges)
    compacted = next(t for t in whole.turns if t.change.kind == "compaction")
    report = composition_report(whole)
    assert not [f for f in report.findings if f.kind == "fastest_growing"]  # one turn since: nothing to say
    before = analyse_exchanges(recording.exchanges[: compacted.turn.exchange.id - 1])
    [grown] = [f for f in composition_report(before).findings if f.kind == "fastest_growing"]
    assert f"over {len(before.turns)} turns since the thread began" in grown.text

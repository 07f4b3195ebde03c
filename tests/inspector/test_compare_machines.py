"""`compare` normalises what strict replay normalises: the same real Codex task (0.169.0) captured in two
checkouts with other paths and CODEX_HOMEs compares as the same context on every turn, its summary says
what was normalised, `--raw` shows the differences as sent, and a changed sandbox mode names the
permissions fragment and nothing strict replay normalises. Fixtures: `tests/fixtures/codex/`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.cli_support import run_cli

CODEX = Path(__file__).parents[1] / "fixtures" / "codex"


def _compare(a: str, b: str, *args: str) -> dict[str, Any]:
    result = run_cli("compare", str(CODEX / a), str(CODEX / b), "--format", "json", *args)
    assert result.returncode == 0, result.stderr
    doc: dict[str, Any] = json.loads(result.stdout)
    return doc


def _differences(pair: dict[str, Any]) -> set[str]:
    keys = ("headers", "params", "body_keys", "tools", "instructions_diff", "items_diff", "fragments_diff")
    found = {k for k in keys if pair[k] and any(v for v in (pair[k].values() if isinstance(pair[k], dict) else [1]))}
    return found | {k for k in ("endpoint", "transport", "status") if pair.get(k)}


def test_two_checkouts_compare_as_the_same_context_on_every_turn() -> None:
    doc = _compare("alice.jsonl", "ci-7.jsonl")
    assert len(doc["turns"]) == 3
    for pair in doc["turns"]:
        assert _differences(pair) == set(), pair
        assert pair["verdict"] == "same"
    said = doc["summary"]["normalised"]
    assert any(p.startswith("paths under A ") and "/alice ↔ B " in p and "/ci-7 (<root>)" in p for p in said)
    assert any(p.startswith("ids (") and "call" in p for p in said), said
    assert any(p.startswith("volatile metadata (") and "prompt_cache_key" in p for p in said), said


def test_the_summary_says_what_was_normalised_and_raw_shows_it_all() -> None:
    text = run_cli("compare", str(CODEX / "alice.jsonl"), str(CODEX / "ci-7.jsonl")).stdout
    assert "normalised as strict replay does: paths under A " in text
    assert [line for line in text.splitlines() if line.startswith("  turn ")] == [
        "  turn 1  same",
        "  turn 2  same",
        "  turn 3  same",
    ]
    markdown = run_cli("compare", str(CODEX / "alice.jsonl"), str(CODEX / "ci-7.jsonl"), "-f", "markdown").stdout
    assert "**Normalised as strict replay does:** paths under A " in markdown
    raw = _compare("alice.jsonl", "ci-7.jsonl", "--raw")
    assert raw["summary"]["raw"] is True and raw["summary"]["normalised"] == []
    first = raw["turns"][0]
    names = {f["fragment"] for f in first["fragments_diff"]}
    assert {"skills_catalog", "permissions"} <= names, names  # the CODEX_HOME skill roots, the checkout
    shown = "\n".join(line for f in first["fragments_diff"] for line in f["diff"])
    assert "/alice/codex_home/skills" in shown and "/ci-7/codex_home/skills" in shown
    raw_text = run_cli("compare", str(CODEX / "alice.jsonl"), str(CODEX / "ci-7.jsonl"), "--raw").stdout
    assert "compared as sent" in raw_text


def test_a_changed_sandbox_mode_names_the_permissions_fragment() -> None:
    doc = _compare("ci-7.jsonl", "ci-7-read-only.jsonl")
    first = doc["turns"][0]
    names = [f["fragment"] for f in first["fragments_diff"]]
    assert names[0] == "permissions", names
    changed = "\n".join(first["fragments_diff"][0]["diff"])
    assert "`sandbox_mode` is `workspace-write`" in changed and "`sandbox_mode` is `read-only`" in changed
    # nothing strict replay normalises is left: no temp dir, checkout, CODEX_HOME, id or date
    everything = json.dumps(first)
    for volatile in ("/tmp/tmp", "codex_home", "call_0", "resp_", "2026-"):
        assert volatile not in everything, volatile
    assert _differences(first) == {"fragments_diff"}

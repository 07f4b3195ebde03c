"""The analysis gives the same account however it is computed: `diff --format json` (every turn
document, the threads) and every turn's detail (`diff --turn N`) equal the output recorded with the
code before the incremental, delta-based reading and analysis (issue 36), on every committed
recording fixture and on generated sessions that grow, fork, rewrite and restart.

The golden files were made from main's code path (before the change) with
`python -m tests.inspector.test_growth_golden` (run it again only when a change of the account is
intended, and say so in the commit).
"""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from benchmarks.bench_analysis import build, write
from ctxscope.inspector.analysis import analyse_recording
from ctxscope.inspector.reports import diff_report

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "fixtures" / "inspector" / "golden"
FIXTURES = sorted(p.relative_to(ROOT) for p in (ROOT / "tests" / "fixtures").rglob("*.jsonl"))
DETAIL_ALL_UP_TO = 200
"""Recordings with at most this many turns have every turn's detail compared (else a sample)."""


def _branching(turns: int) -> list[dict[str, Any]]:
    """A growing session with a fork (a request continuing an earlier turn's input), a rewritten item
    in the middle of the history, a repeated request and a restart from a short context."""
    bodies = build(turns)
    out = list(bodies)
    fork = dict(bodies[turns // 4])
    fork["input"] = [*bodies[turns // 4]["input"], {"type": "message", "role": "user", "content": "branch"}]
    out.insert(turns // 2, fork)
    rewritten = dict(bodies[2 * turns // 3])
    items = list(rewritten["input"])
    items[len(items) // 2] = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "edited"}]}
    rewritten["input"] = items
    out.insert(2 * turns // 3 + 1, rewritten)
    out.insert(3 * turns // 4, dict(out[3 * turns // 4 - 1]))  # the same request again (a retry)
    restart = dict(bodies[0])
    restart["input"] = [*bodies[0]["input"][:2], {"type": "message", "role": "user", "content": "start over"}]
    out.append(restart)
    return out


GENERATED = {"growing-120": lambda: build(120), "branching-90": lambda: _branching(90)}


def _account(path: Path, source: str) -> dict[str, Any]:
    """The diff document and the turn details, as the CLI prints them (JSON), with `source` fixed."""
    analysis = analyse_recording(path)
    analysis.source = source
    numbers = [r.turn.number for r in analysis.turns]
    if len(numbers) > DETAIL_ALL_UP_TO:
        numbers = sorted({*numbers[:5], *numbers[len(numbers) // 2 : len(numbers) // 2 + 3], *numbers[-5:]})
    doc: dict[str, Any] = {"diff": diff_report(analysis).wire()}
    doc["details"] = {str(n): diff_report(analysis, turn=n).wire()["detail"] for n in numbers}
    return json.loads(json.dumps(doc, ensure_ascii=False, default=str))


def _golden(name: str) -> Path:
    return GOLDEN / f"{name.replace('/', '__')}.json.gz"


def _generated(name: str, tmp: Path) -> Path:
    path = tmp / f"{name}.jsonl"
    write(GENERATED[name](), path)
    return path


@pytest.mark.parametrize("fixture", FIXTURES, ids=str)
def test_fixture_account_unchanged(fixture: Path) -> None:
    expected = json.loads(gzip.decompress(_golden(str(fixture)).read_bytes()))
    assert _account(ROOT / fixture, str(fixture)) == expected


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(GENERATED))
def test_generated_account_unchanged(name: str, tmp_path: Path) -> None:
    expected = json.loads(gzip.decompress(_golden(name).read_bytes()))
    got = _account(_generated(name, tmp_path), name)
    assert len(got["diff"]["turns"]) == len(expected["diff"]["turns"]) > 90
    assert got == expected


def main() -> None:
    """Record the golden files with the code of this checkout."""
    import tempfile

    GOLDEN.mkdir(parents=True, exist_ok=True)
    for fixture in FIXTURES:
        _golden(str(fixture)).write_bytes(
            gzip.compress(json.dumps(_account(ROOT / fixture, str(fixture))).encode(), mtime=0)
        )
    with tempfile.TemporaryDirectory() as tmp:
        for name in GENERATED:
            _golden(name).write_bytes(
                gzip.compress(json.dumps(_account(_generated(name, Path(tmp)), name)).encode(), mtime=0)
            )
    print(f"wrote {len(FIXTURES) + len(GENERATED)} golden files to {GOLDEN}", file=sys.stderr)


if __name__ == "__main__":
    main()

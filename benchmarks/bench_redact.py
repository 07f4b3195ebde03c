"""Benchmark: redaction cost on what a capture writes (no secrets in it, and one secret per item).

Times, as medians of several runs:

  body, first     Redactor.body on a 600 KB Codex-like request body never seen before (300 tool
                  outputs of ~2 KB: prose, `KEY=value` lines, JSON)
  body, again     the same body again (the per-string cache; the writer also skips items already
                  stored, by content hash)
  body, planted   a fresh body whose every item holds one secret (each replaced)
  stream          redact_events on 2,000 output_text deltas without a secret (stored byte for byte)
  stream, key     the same stream with a key split across deltas

Run: .venv/bin/python -m benchmarks.bench_redact [--repeat 7]
A benchmark, not a test: it prints numbers and asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

from ctxscope.proxy.redact import Redactor, redact_events

WORDS = "the file def return import class self value path error config test branch sk-button".split()


def _body(rng: random.Random, planted: bool) -> dict[str, Any]:
    items = []
    for i in range(300):
        prose = " ".join(rng.choice(WORDS) for _ in range(300))
        secret = f"sk-proj-{rng.getrandbits(256):064x}Ab" if planted else "example"
        output = (
            f"{prose}\nPATH=/usr/bin\nHOME=/root\nOPENAI_API_KEY={secret}\n{json.dumps({'n': i, 'ok': True})}"
        )
        items.append({"type": "function_call_output", "call_id": f"call_{i}", "output": output})
    return {"model": "gpt-5-codex", "input": items}


def _deltas(rng: random.Random, key: str | None) -> list[str]:
    text = " ".join(rng.choice(WORDS) for _ in range(2000))
    if key:
        text = text[:5000] + f" {key} " + text[5000:]
    pieces = [text[i : i + 6] for i in range(0, len(text), 6)][:2000]
    event = {"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 0, "content_index": 0}
    return [json.dumps({**event, "delta": p}, separators=(",", ":")) for p in pieces]


def _median_ms(run: Callable[[], object], repeat: int, setup: Callable[[], None] | None = None) -> float:
    times = []
    for _ in range(repeat):
        if setup is not None:
            setup()
        start = time.perf_counter()
        run()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    rng = random.Random(14)
    plain, planted = _body(rng, False), _body(rng, True)
    size_kb = len(json.dumps(plain)) // 1024
    state: dict[str, Redactor] = {}

    def fresh() -> None:
        state["r"] = Redactor()

    warm = Redactor()
    warm.body(plain)
    quiet, keyed = _deltas(rng, None), _deltas(rng, f"sk-proj-{rng.getrandbits(256):064x}Ab")
    rows = [
        (f"body, first ({size_kb} KB)", _median_ms(lambda: state["r"].body(plain), args.repeat, fresh)),
        ("body, again (cached)", _median_ms(lambda: warm.body(plain), args.repeat)),
        ("body, planted (300 secrets)", _median_ms(lambda: state["r"].body(planted), args.repeat, fresh)),
        ("stream, 2,000 deltas", _median_ms(lambda: redact_events(state["r"], quiet), args.repeat, fresh)),
        (
            "stream, key across deltas",
            _median_ms(lambda: redact_events(state["r"], keyed), args.repeat, fresh),
        ),
    ]
    for label, ms in rows:
        print(f"{label:32} {ms:8.1f} ms (median of {args.repeat})")


if __name__ == "__main__":
    main()

"""`ctxscope cost`: each request's reported usage at per-model prices, summed; checked by hand.

The recording is written with the proxy's real writer; the command runs as a real subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ctxscope.inspector.analysis import analyse_recording
from ctxscope.inspector.analysis.cost import PriceTable, load_price_file, lost_cache_usd, turn_cost
from ctxscope.inspector.reports import diff_report
from ctxscope.proxy.errors import CtxscopeError
from tests.inspector.exchange_support import Script, body, initial_context, message

PRICES = """
[models."gpt-5-codex"]
input = 1.25
cached_input = 0.125
output = 10.0
cache_write = 2.5

[models."gpt-5-mini"]
input = 0.25
cached_input = 0.025
output = 2.0
"""

# (model, input, cached, cache_write or None, output, reasoning)
USAGES: list[tuple[str, int, int, int | None, int, int]] = [
    ("gpt-5-codex", 12_000, 0, 4_000, 300, 120),
    ("gpt-5-codex", 12_900, 11_800, None, 450, 0),
    ("gpt-5-mini", 8_000, 2_000, 500, 90, 40),
    ("nobody-prices-this", 5_000, 0, None, 10, 0),
]


def _usage(inp: int, cached: int, write: int | None, out: int, reasoning: int) -> dict[str, Any]:
    details: dict[str, int] = {"cached_tokens": cached}
    if write is not None:
        details["cache_write_tokens"] = write
    return {
        "input_tokens": inp,
        "input_tokens_details": details,
        "output_tokens": out,
        "output_tokens_details": {"reasoning_tokens": reasoning},
        "total_tokens": inp + out,
    }


def _recording(
    path: Path,
    url: str = "http://127.0.0.1:9/v1/responses",
    usages: list[tuple[str, int, int, int | None, int, int]] = USAGES,
) -> Path:
    script = Script()
    history = initial_context()
    for n, (model, inp, cached, write, out, reasoning) in enumerate(usages):
        history = history + [message("user", f"step {n}")]
        answer = message("assistant", f"done {n}.")
        script.request(
            body(list(history), model=model, prompt_cache_key="thread-1"),
            url=url,
            response={
                "id": f"r{n}",
                "model": model,
                "status": "completed",
                "output": [answer],
                "error": None,
                "usage": _usage(inp, cached, write, out, reasoning),
            },
        )
        history = history + [answer]
    return script.write(path)


def _hand_total() -> float:
    table = {"gpt-5-codex": (1.25, 0.125, 10.0, 2.5), "gpt-5-mini": (0.25, 0.025, 2.0, 0.25)}
    total = 0.0
    for model, inp, cached, write, out, _ in USAGES:
        if model not in table:
            continue
        p_in, p_cached, p_out, p_write = table[model]
        w = write or 0
        total += ((inp - cached - w) * p_in + cached * p_cached + w * p_write + out * p_out) / 1e6
    return total


def _cost(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ctxscope", "cost", *args], capture_output=True, text=True, timeout=120
    )


def test_the_total_is_the_formula_over_the_requests_and_the_turns_add_up(tmp_path: Path) -> None:
    rec = _recording(tmp_path / "rec.jsonl")
    prices = tmp_path / "prices.toml"
    prices.write_text(PRICES)
    done = _cost(str(rec), "--prices", str(prices), "--format", "json")
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert doc["total"]["usd"] == pytest.approx(_hand_total(), rel=1e-12)
    priced = [t["usd"] for t in doc["turns"] if t["usd"] is not None]
    assert sum(priced) == pytest.approx(doc["total"]["usd"], rel=1e-12)
    # the unpriced model is listed, never guessed, and its tokens still counted
    assert doc["unpriced"] == {"nobody-prices-this": 1}
    assert doc["total"]["unpriced_requests"] == 1
    assert doc["turns"][3]["usd"] is None
    assert doc["total"]["input_tokens"] == sum(u[1] for u in USAGES)
    # reasoning is shown apart and is part of output, not added to it
    assert doc["total"]["output_tokens"] == sum(u[4] for u in USAGES)
    assert doc["total"]["reasoning_tokens"] == sum(u[5] for u in USAGES)
    assert doc["total"]["cache_write_tokens"] == 4_500
    assert {m["model"]: m["requests"] for m in doc["models"]} == {
        "gpt-5-codex": 2,
        "gpt-5-mini": 1,
        "nobody-prices-this": 1,
    }
    assert doc["label"] == "API"
    # the per-turn figure is the turn document's: every view reads the same value
    analysis = analyse_recording(rec)
    table = load_price_file(prices)
    report = diff_report(analysis, prices=table)
    assert [t.cost.usd if t.cost else None for t in report.turns] == [t["usd"] for t in doc["turns"]]


def test_text_and_csv_say_the_same_total(tmp_path: Path) -> None:
    rec = _recording(tmp_path / "rec.jsonl")
    prices = tmp_path / "prices.toml"
    prices.write_text(PRICES)
    text = _cost(str(rec), "--prices", str(prices), "--by", "model")
    assert text.returncode == 0, text.stderr
    assert f"${_hand_total():,.4f}" in text.stdout.splitlines()[0]
    assert "unpriced 1 requests not in the total: nobody-prices-this ×1" in text.stdout
    rows = _cost(str(rec), "--prices", str(prices), "--format", "csv").stdout.splitlines()
    assert rows[0].startswith("turn,thread,agent,model,kind,usd,")
    assert len(rows) == 1 + len(USAGES)


def test_a_chatgpt_login_cost_is_labelled_api_equivalent(tmp_path: Path) -> None:
    rec = _recording(tmp_path / "rec.jsonl", url="https://chatgpt.com/backend-api/codex/responses")
    prices = tmp_path / "prices.toml"
    prices.write_text(PRICES)
    done = _cost(str(rec), "--prices", str(prices), "--format", "json")
    doc = json.loads(done.stdout)
    assert doc["label"] == "API-equivalent" and doc["total"]["api_equivalent"] is True
    assert "API-equivalent" in _cost(str(rec), "--prices", str(prices)).stdout


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("models = 3", "no [models"),
        ('[models."m"]\ninput = 1\n', "has no output price"),
        ('[models."m"]\ninput = 1\noutput = "a lot"\n', "output is not a price"),
        ('[models."m"]\ninput = 1\noutput = 2\nfree = 1\n', "unknown keys free"),
        ("[models", "not a TOML price table"),
    ],
)
def test_a_bad_price_table_is_one_line_naming_what_is_wrong(tmp_path: Path, text: str, says: str) -> None:
    rec = _recording(tmp_path / "rec.jsonl")
    prices = tmp_path / "prices.toml"
    prices.write_text(text)
    done = _cost(str(rec), "--prices", str(prices))
    assert done.returncode == 2
    assert says in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
    with pytest.raises(CtxscopeError):
        load_price_file(prices)


def test_the_genai_prices_dataset_prices_a_known_model_offline(tmp_path: Path) -> None:
    genai_prices = pytest.importorskip("genai_prices")
    rec = _recording(tmp_path / "rec.jsonl")
    analysis = analyse_recording(rec)
    first = turn_cost(analysis.turns[0], PriceTable())
    assert first.price is not None and first.price.source.startswith("genai-prices ")
    # the dataset's own calculation agrees with the formula on a request without cache writes
    second = turn_cost(analysis.turns[1], PriceTable())
    theirs = genai_prices.calc_price(
        genai_prices.Usage(input_tokens=12_900, cache_read_tokens=11_800, output_tokens=450),
        model_ref="gpt-5-codex",
        provider_id="openai",
    )
    assert second.usd == pytest.approx(float(theirs.total_price), rel=1e-9)
    # a user table overrides the dataset
    prices = tmp_path / "prices.toml"
    prices.write_text(PRICES)
    assert turn_cost(analysis.turns[1], load_price_file(prices)).price.source == str(prices)  # type: ignore[union-attr]


# Requests at and past the start of the dataset's long-context tier (272,000 input tokens, cached ones
# included), with cache writes, to a model priced without a cache-write rate and one priced with it.
TIERED: list[tuple[str, int, int, int | None, int, int]] = [
    ("gpt-5.5", 272_000, 100_000, None, 1_000, 0),
    ("gpt-5.5", 272_001, 100_000, 2_000, 1_000, 0),
    ("gpt-5.5", 120_000, 100_000, None, 500, 100),
    ("gpt-6-sol", 400_000, 350_000, 20_000, 2_000, 500),
    ("gpt-6-sol", 50_000, 0, 10_000, 100, 0),
]


def test_a_tiered_dataset_price_charges_the_tier_each_request_reaches(tmp_path: Path) -> None:
    genai_prices = pytest.importorskip("genai_prices")
    from datetime import UTC, datetime

    rec = _recording(tmp_path / "tiered.jsonl", usages=TIERED)
    doc = json.loads(_cost(str(rec), "--format", "json").stdout)
    for model in ("gpt-5.5", "gpt-6-sol"):
        tiers = doc["prices"][model]["tiers"]
        assert [t["above_input_tokens"] for t in tiers] == [272_000], tiers
        assert tiers[0]["input"] > doc["prices"][model]["input"]  # the long-context rate is the higher one
    started = [t.turn.exchange.started_at for t in analyse_recording(rec).turns]
    for turn, (model, inp, cached, write, out, _), at in zip(doc["turns"], TIERED, started, strict=True):
        theirs = genai_prices.calc_price(
            genai_prices.Usage(
                input_tokens=inp, cache_read_tokens=cached, cache_write_tokens=write or 0, output_tokens=out
            ),
            model_ref=model,
            provider_id="openai",
            genai_request_timestamp=datetime.fromtimestamp(at, tz=UTC),
        )
        assert turn["usd"] == pytest.approx(float(theirs.total_price), rel=1e-9), (model, inp)
    # the tier is the request's: one token past the start changes every rate, not only that token's
    at_start, past = doc["turns"][0]["usd"], doc["turns"][1]["usd"]
    base, tier = doc["prices"]["gpt-5.5"], doc["prices"]["gpt-5.5"]["tiers"][0]
    assert at_start == pytest.approx(
        (172_000 * base["input"] + 100_000 * base["cached_input"] + 1_000 * base["output"]) / 1e6
    )
    assert past == pytest.approx(  # no cache-write rate: the 2,000 written are charged as input
        (172_001 * tier["input"] + 100_000 * tier["cached_input"] + 1_000 * tier["output"]) / 1e6
    )
    assert doc["total"]["usd"] == pytest.approx(sum(t["usd"] for t in doc["turns"]))
    # the dataset's version, and the newest price change it records as its date
    assert doc["dataset"] == f"genai-prices {genai_prices.__version__}"
    assert doc["dataset_date"] is not None and len(doc["dataset_date"]) == 10
    text = _cost(str(rec)).stdout
    dated = f"genai-prices {genai_prices.__version__} (its newest OpenAI price change: {doc['dataset_date']})"
    assert f"prices  {dated}" in text, text


def test_a_cache_break_names_what_its_lost_tokens_cost(tmp_path: Path) -> None:
    prices = tmp_path / "prices.toml"
    prices.write_text(PRICES)
    table = load_price_file(prices)
    # 10,000 tokens charged at the input price (1.25) instead of the cached one (0.125)
    assert lost_cache_usd(10_000, "gpt-5-codex", table) == pytest.approx(10_000 * 1.125 / 1e6)
    assert lost_cache_usd(10_000, "nobody-prices-this", table) is None


SUBAGENT = Path(__file__).resolve().parents[1] / "fixtures" / "inspector" / "subagent.jsonl"
"""A real Codex 0.171.0 session through the proxy: the model spawned one agent (`multi_agent_v1`)."""


def test_a_real_codex_subagent_session_is_one_tree_with_its_costs(tmp_path: Path) -> None:
    from ctxscope.inspector.analysis.agents import agent_tree

    analysis = analyse_recording(SUBAGENT)
    root, child = agent_tree(analysis)
    assert (root.name, root.parent, root.turns) == ("main", None, [1, 2])
    # the parent's spawn call (answer of turn 1) and its result (input of turn 2) link to the child
    assert child.parent == "main" and child.spawned_in == 1 and child.result_in == 2 and child.turns == [3]
    assert child.threads != root.threads
    prices = tmp_path / "prices.toml"
    prices.write_text(PRICES)
    doc = json.loads(_cost(str(SUBAGENT), "--prices", str(prices), "--format", "json").stdout)
    agents = {a["agent"]: a for a in doc["agents"]}
    assert set(agents) == {"main", child.name}
    assert agents["main"]["requests"] == 2 and agents[child.name]["requests"] == 1
    assert agents["main"]["usd"] + agents[child.name]["usd"] == pytest.approx(doc["total"]["usd"])
    info = subprocess.run(
        [sys.executable, "-m", "ctxscope", "info", str(SUBAGENT)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**__import__("os").environ, "CTXSCOPE_PRICES": str(prices)},
    ).stdout
    assert "agents      main  T1  2 requests" in info
    assert f"└ {child.name}  T2  1 requests" in info and "spawned by main in turn 1, result in turn 2" in info

"""What a model request cost: its reported usage at a per-model price (pure; no I/O but the price table).

Prices come from the maintained `genai-prices` dataset where it knows the model (the `cost` extra; it
works offline from its bundled snapshot), and from a user's TOML table that overrides or extends it:

    [models."gpt-5-codex"]
    input = 1.25          # USD per million tokens
    cached_input = 0.125
    output = 10.0
    cache_write = 1.25    # optional: where the backend reports cache writes

A table price is applied as

    (input − cached − cache_write) × input + cached × cached_input + cache_write × cache_write
    + output × output                                                     (per million tokens)

with cache_write 0 where not reported. A model the dataset prices in tiers (OpenAI's long-context prices
above 272K input tokens) is charged at the tier its request's input tokens reach, every token at that
tier's rates, as the dataset defines tiers. Reasoning tokens are part of `output_tokens` on the wire, so
they are shown apart and never added a second time. A model neither source knows is unpriced: its
requests are counted and listed, never guessed at. Traffic of a ChatGPT login is billed by plan, not
by token: its figure is the API-equivalent cost, and says so.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ctxscope.inspector.analysis.attribution import usage_numbers
from ctxscope.inspector.analysis.turns import Turn
from ctxscope.proxy.errors import CtxscopeError

if TYPE_CHECKING:
    from ctxscope.inspector.analysis.analyse import TurnAnalysis

__all__ = [
    "PRICES_ENV",
    "PRICE_FIELDS",
    "CostTotal",
    "Price",
    "PriceTable",
    "RequestCost",
    "dataset_date",
    "dataset_version",
    "default_prices",
    "is_chatgpt_login",
    "load_price_file",
    "lost_cache_usd",
    "model_request_cost",
    "request_cost",
    "turn_cost",
    "usd_text",
]

PRICE_FIELDS = ("input", "cached_input", "output", "cache_write")
"""The keys of a model's entry in a `--prices` table (USD per million tokens)."""


@dataclass(frozen=True)
class Price:
    """One model's price, USD per million tokens."""

    input: float
    cached_input: float
    output: float
    cache_write: float | None = None
    """None: the table gave none; cache writes are then charged as input."""
    source: str = ""
    tiers: tuple[tuple[int, Price], ...] = ()
    """The dataset's tiers, ascending: (start, the rates of a request of more than `start` input
    tokens). A request's input tokens choose the one tier all its tokens are charged at."""

    def at(self, input_tokens: int) -> Price:
        """The rates a request of `input_tokens` input tokens (cached ones included) is charged at."""
        for start, tier in reversed(self.tiers):
            if input_tokens > start:
                return tier
        return self

    def of(self, input_tokens: int, cached: int, cache_write: int, output: int) -> float:
        """The issue's formula: uncached input, cache reads, cache writes and output at their prices
        (those of the request's tier)."""
        rates = self.at(input_tokens)
        if rates is not self:
            return rates.of(input_tokens, cached, cache_write, output)
        write_price = self.input if self.cache_write is None else self.cache_write
        uncached = input_tokens - cached - cache_write
        return (
            uncached * self.input + cached * self.cached_input + cache_write * write_price + output * self.output
        ) / 1_000_000

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"input": self.input, "cached_input": self.cached_input, "output": self.output}
        if self.cache_write is not None:
            out["cache_write"] = self.cache_write
        out["source"] = self.source
        if self.tiers:
            out["tiers"] = [
                {"above_input_tokens": start, **{k: v for k, v in tier.as_dict().items() if k != "source"}}
                for start, tier in self.tiers
            ]
        return out


@functools.cache  # a failed import is not remembered by Python: without this every request retries it
def _dataset() -> Any:
    """The `genai_prices` module, or None when the `cost` extra is not installed."""
    try:
        import genai_prices
    except ImportError:
        return None
    return genai_prices


def dataset_version() -> str | None:
    """`genai-prices X.Y.Z` when the dataset is installed (its bundled snapshot is what prices)."""
    if _dataset() is None:
        return None
    from importlib.metadata import version

    return f"genai-prices {version('genai-prices')}"


@functools.cache
def dataset_date() -> str | None:
    """The newest date an OpenAI price of the installed dataset takes effect (ISO), or None.

    genai-prices carries no snapshot date (its package metadata neither); the newest price change it
    records for the models priced here is the nearest fact about how current it is.
    """
    genai_prices = _dataset()
    if genai_prices is None:
        return None
    dates = []
    for provider in genai_prices.data_snapshot.get_snapshot().providers:
        if provider.id != "openai":
            continue
        for model in provider.models:
            conditions = [*(model.prices if isinstance(model.prices, list) else []), *(model.price_variants or [])]
            dates += [d for c in conditions if (d := getattr(c.constraint, "start_date", None)) is not None]
    return max(dates).isoformat() if dates else None


@dataclass
class PriceTable:
    """A user's prices over the dataset's: `price(model)` is the user's entry, else the dataset's."""

    models: dict[str, Price] = field(default_factory=dict)
    use_dataset: bool = True

    @property
    def dataset(self) -> str | None:
        return dataset_version() if self.use_dataset else None

    @property
    def dataset_date(self) -> str | None:
        """`dataset_date()` of the dataset this table prices over (None without one)."""
        return dataset_date() if self.use_dataset else None

    def dataset_price(self, model: str, when: datetime | None = None) -> Price | None:
        """The dataset's standard price for `model` (an OpenAI model) at `when`, or None if unknown."""
        genai_prices = _dataset() if self.use_dataset else None
        if genai_prices is None:
            return None
        try:
            _, found = genai_prices.data_snapshot.get_snapshot().find_provider_model(model, None, "openai", None)
        except LookupError:
            return None
        prices = found.get_prices(when or datetime.now(tz=UTC))
        keys = (prices.input_mtok, prices.cache_read_mtok, prices.output_mtok, prices.cache_write_mtok)
        source = f"{dataset_version()} ({found.id})"
        base = _rates(keys, 0, source)
        if base is None:
            return None
        # One Price per tier start the dataset names, each key at its rate for a request just past
        # that start (a key with no tier there keeps the rate of its lower tier).
        starts = sorted({t.start for value in keys for t in getattr(value, "tiers", None) or []})
        tiers = [(start, _rates(keys, start + 1, source)) for start in starts]
        return replace(base, tiers=tuple((start, tier) for start, tier in tiers if tier is not None))


def _rate(value: Any, input_tokens: int) -> float | None:
    """One dataset price (USD per million) for a request of `input_tokens`: a tiered price's rate is
    that of the last tier whose start the request's input tokens exceed (the dataset's own rule)."""
    if value is None:
        return None
    tiers = getattr(value, "tiers", None)
    if tiers is None:
        return float(value)
    rate = value.base
    for tier in reversed(tiers):
        if input_tokens > tier.start:
            rate = tier.price
            break
    return float(rate)


def _rates(keys: tuple[Any, Any, Any, Any], input_tokens: int, source: str) -> Price | None:
    """The flat rates (input, cache read, output, cache write) of a request of `input_tokens`."""
    inp, cached, out, write = (_rate(k, input_tokens) for k in keys)
    if inp is None or out is None:
        return None
    cached = inp if cached is None else cached
    return Price(input=inp, cached_input=cached, output=out, cache_write=write, source=source)


def load_price_file(path: Path) -> PriceTable:
    """A `--prices` TOML table; a file that is not one is a one-line error naming what is wrong."""
    import tomllib  # only with --prices: every `info` and report would pay for it otherwise

    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise CtxscopeError(f"{path}: cannot read the price table ({exc.strerror or exc})") from None
    except tomllib.TOMLDecodeError as exc:
        raise CtxscopeError(f"{path}: not a TOML price table ({exc})") from None
    models = data.get("models")
    if not isinstance(models, dict):
        raise CtxscopeError(f'{path}: no [models."NAME"] tables (input, cached_input, output per million tokens)')
    table = PriceTable()
    for name, entry in models.items():
        if not isinstance(entry, dict):
            raise CtxscopeError(f'{path}: [models."{name}"] is not a table')
        unknown = sorted(set(entry) - set(PRICE_FIELDS))
        if unknown:
            raise CtxscopeError(f'{path}: [models."{name}"] has unknown keys {", ".join(unknown)}')
        values: dict[str, float] = {}
        for key, value in entry.items():
            if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
                raise CtxscopeError(f'{path}: [models."{name}"] {key} is not a price (USD per million tokens)')
            values[key] = float(value)
        for key in ("input", "output"):
            if key not in values:
                raise CtxscopeError(f'{path}: [models."{name}"] has no {key} price')
        table.models[name] = Price(
            input=values["input"],
            cached_input=values.get("cached_input", values["input"]),
            output=values["output"],
            cache_write=values.get("cache_write"),
            source=str(path),
        )
    return table


@dataclass(frozen=True)
class RequestCost:
    """One model request's usage and what it cost."""

    model: str | None
    input_tokens: int
    cached_tokens: int
    cache_write_tokens: int
    output_tokens: int
    reasoning_tokens: int
    reported: bool
    """The response reported usage (a cut stream or an HTTP error has none: no tokens, no cost)."""
    usd: float | None
    """None: the model has no price (unpriced), or no usage was reported."""
    price: Price | None
    api_equivalent: bool = False
    """A ChatGPT-login request: billed by plan; `usd` is what the API would have charged."""

    @property
    def unpriced(self) -> bool:
        return self.reported and self.usd is None


def _n(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def request_cost(
    usage: dict[str, int | None],
    model: str | None,
    table: PriceTable,
    *,
    when: datetime | None = None,
    api_equivalent: bool = False,
) -> RequestCost:
    """The cost of one request from its usage numbers (`attribution.usage_numbers`, with
    `cache_write_tokens` where the backend reports it)."""
    reported = usage.get("input_tokens") is not None or usage.get("output_tokens") is not None
    inp, cached = _n(usage.get("input_tokens")), _n(usage.get("cached_tokens"))
    write, out = _n(usage.get("cache_write_tokens")), _n(usage.get("output_tokens"))
    price = None
    if model is not None:
        price = table.models.get(model) or table.dataset_price(model, when)
    usd = price.of(inp, cached, write, out) if price is not None and reported else None
    return RequestCost(
        model=model,
        input_tokens=inp,
        cached_tokens=cached,
        cache_write_tokens=write,
        output_tokens=out,
        reasoning_tokens=_n(usage.get("reasoning_tokens")),
        reported=reported,
        usd=usd,
        price=price,
        api_equivalent=api_equivalent,
    )


def is_chatgpt_login(url: str, headers: dict[str, str]) -> bool:
    """A request of a ChatGPT login (the Codex backend under `/backend-api/`, or an account header)."""
    lowered = {k.lower() for k in headers}
    return "/backend-api/" in url or "chatgpt-account-id" in lowered


PRICES_ENV = "CTXSCOPE_PRICES"
"""A `--prices` TOML file every view prices with (`info`, `diff`, the TUI, the HTML report, OTel)."""


@functools.cache
def _table_at(path: str) -> PriceTable:
    return load_price_file(Path(path)) if path else PriceTable()


def default_prices() -> PriceTable:
    """The dataset's prices, under the table `$CTXSCOPE_PRICES` names (every view's unless given one)."""
    return _table_at(os.environ.get(PRICES_ENV, ""))


def turn_cost(result: TurnAnalysis, table: PriceTable | None = None) -> RequestCost:
    """What one analysed model request cost: its reported usage at its requested model's price."""
    return model_request_cost(result.turn, table)


def model_request_cost(turn: Turn, table: PriceTable | None = None) -> RequestCost:
    """What one model request cost (`turn_cost` of its analysis; `info` prices the grouping's turns)."""
    exchange = turn.exchange
    return request_cost(
        usage_numbers(turn.usage),
        turn.model,
        table or default_prices(),
        when=datetime.fromtimestamp(exchange.started_at, tz=UTC),
        api_equivalent=is_chatgpt_login(exchange.url, exchange.request_headers),
    )


@dataclass
class CostTotal:
    """Requests and tokens summed, with what the priced ones cost and how many were unpriced."""

    requests: int = 0
    usd: float = 0.0
    input_tokens: int = 0
    cached_tokens: int = 0
    cache_write_tokens: int = 0
    output_tokens: int = 0
    reasoning_tokens: int = 0
    unpriced: int = 0
    """Requests with usage but no price: their tokens are counted, their cost is not guessed."""
    unreported: int = 0
    """Requests whose response reported no usage (cut streams, HTTP errors)."""
    api_equivalent: bool = False

    def add(self, cost: RequestCost) -> None:
        self.requests += 1
        self.input_tokens += cost.input_tokens
        self.cached_tokens += cost.cached_tokens
        self.cache_write_tokens += cost.cache_write_tokens
        self.output_tokens += cost.output_tokens
        self.reasoning_tokens += cost.reasoning_tokens
        self.api_equivalent = self.api_equivalent or cost.api_equivalent
        if not cost.reported:
            self.unreported += 1
        elif cost.usd is None:
            self.unpriced += 1
        else:
            self.usd += cost.usd

    def as_dict(self) -> dict[str, Any]:
        return {
            "usd": round(self.usd, 10),
            "requests": self.requests,
            "input_tokens": self.input_tokens,
            "cached_tokens": self.cached_tokens,
            "cache_write_tokens": self.cache_write_tokens,
            "output_tokens": self.output_tokens,
            "reasoning_tokens": self.reasoning_tokens,
            "unpriced_requests": self.unpriced,
            "unreported_requests": self.unreported,
            "api_equivalent": self.api_equivalent,
        }


def usd_text(usd: float | None, *, api_equivalent: bool = False) -> str:
    """A request's or a sum's cost as every view writes it: `$0.0123`, `$0.0123 API-eq.`, `unpriced`."""
    if usd is None:
        return "unpriced"
    return f"${usd:,.4f}" + (" API-eq." if api_equivalent else "")


def lost_cache_usd(tokens: int, model: str | None, table: PriceTable | None = None) -> float | None:
    """What `tokens` cached tokens lost to a cache break cost in money: they were charged at the input
    price instead of the cached one (None: no price for the model)."""
    if model is None:
        return None
    table = table or default_prices()
    price = table.models.get(model) or table.dataset_price(model)
    return None if price is None else tokens * (price.input - price.cached_input) / 1_000_000

"""Named questions: one SQL query each over the index's tables, and the short report it prints.

A recording is shown by its path on this machine (its name relative to the folder indexed, in the
Parquet export, which holds no local paths). The SQL is plain enough to run on the Parquet export
in any engine that reads it (DuckDB over object storage, ClickHouse, Spark, BigQuery) with the
table names bound to the files.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["QUESTIONS", "Question"]


@dataclass(frozen=True)
class Question:
    name: str
    """The option that asks it (`--compactions`)."""
    help: str
    sql: str


QUESTIONS: dict[str, Question] = {
    q.name: q
    for q in (
        Question(
            "compactions",
            "Every compaction turn: what it summarised and dropped, tokens before and after.",
            """
            SELECT coalesce(r.path, r.name) AS recording, t.turn, t.thread, c.trigger, c.summarised,
                   c.dropped_context, c.tokens_before, c.tokens_after,
                   c.tokens_before - c.tokens_after AS tokens_freed
            FROM turns t JOIN recordings r ON r.recording = t.recording
            LEFT JOIN compactions c ON c.recording = t.recording AND c.turn = t.turn
            WHERE t.change_kind = 'compaction'
            ORDER BY 1, t.turn
            """,
        ),
        Question(
            "tokens-by-kind",
            "Tokens sent by context kind across every indexed request, largest first.",
            """
            SELECT kind, sum(tokens) AS tokens, count(*) AS turns,
                   round(100.0 * sum(tokens) / (SELECT sum(tokens) FROM composition), 1) AS percent
            FROM composition GROUP BY kind ORDER BY tokens DESC, kind
            """,
        ),
        Question(
            "cost",
            "What each recording cost by model: requests, tokens, USD, and requests left unpriced.",
            """
            SELECT recording, model, count(*) AS requests, sum(input_tokens) AS input_tokens,
                   sum(cached_tokens) AS cached_tokens, sum(output_tokens) AS output_tokens,
                   round(sum(cost_usd), 6) AS usd,
                   count(*) FILTER (WHERE cost_usd IS NULL AND input_tokens IS NOT NULL) AS unpriced
            FROM turns GROUP BY recording, model ORDER BY usd DESC NULLS LAST, recording, model
            """,
        ),
        Question(
            "agents",
            "What each agent cost, with the agent that spawned it (recordings with spawned agents).",
            """
            SELECT coalesce(r.path, r.name) AS recording, a.agent, a.parent, a.spawned_in, a.requests,
                   a.input_tokens, a.cached_tokens, a.output_tokens, round(a.cost_usd, 6) AS usd, a.unpriced
            FROM agents a JOIN recordings r ON r.recording = a.recording
            WHERE a.recording IN (SELECT recording FROM agents WHERE parent IS NOT NULL)
            ORDER BY 1, a.agent
            """,
        ),
        Question(
            "cache-breaks",
            "Where the prompt cache broke, by cause, with the cached tokens each cause cost.",
            """
            SELECT broke_at, cause, count(*) AS breaks, sum(tokens_lost) AS tokens_lost,
                   min(coalesce(r.path, r.name) || ' --turn ' || b.turn) AS example
            FROM cache_breaks b JOIN recordings r ON r.recording = b.recording
            WHERE broke_at IS NOT NULL
            GROUP BY broke_at, cause ORDER BY tokens_lost DESC, breaks DESC, broke_at, cause
            """,
        ),
        Question(
            "agents-md",
            "Each AGENTS.md version in context: in how many turns, and how many of them failed.",
            """
            SELECT a.path, substr(a.hash, 1, 12) AS version, count(*) AS turns,
                   count(DISTINCT a.recording) AS recordings,
                   count(*) FILTER (WHERE t.status <> 'completed' OR t.error IS NOT NULL) AS failed_turns,
                   min(coalesce(r.path, r.name) || ' --turn ' || a.turn) AS example
            FROM agents_md a JOIN turns t ON t.recording = a.recording AND t.turn = a.turn
            JOIN recordings r ON r.recording = a.recording
            GROUP BY a.path, a.hash ORDER BY a.path, failed_turns DESC, turns DESC
            """,
        ),
        Question(
            "errors",
            "Every turn that did not complete, or completed with a connection error.",
            """
            SELECT coalesce(r.path, r.name) AS recording, t.turn, t.thread, t.model, t.status, t.error
            FROM turns t JOIN recordings r ON r.recording = t.recording
            WHERE t.status <> 'completed' OR t.error IS NOT NULL
            ORDER BY 1, t.turn
            """,
        ),
        Question(
            "tools-unused",
            "Tools offered and never called, with the tokens their definitions cost.",
            """
            SELECT name, count(*) FILTER (WHERE offered) AS offered_turns,
                   count(DISTINCT recording) AS recordings, sum(tokens) AS tokens_spent
            FROM tools GROUP BY name HAVING count(*) FILTER (WHERE called) = 0
            ORDER BY tokens_spent DESC, name
            """,
        ),
    )
}
"""Every named question by option name, in the order `--help` lists them."""

"""The index's tables: one definition of every column (name, DuckDB type, meaning).

The same definition creates the DuckDB tables, orders the rows `rows` builds, writes the Parquet
files and their read-back views, and is what docs/index.md documents (a test holds the page to it).
Every table names its recording by `recording`, an id computed from its content and relative name
(the sha256 of its header line and `name`: two people's copies of one recording share it, and it
stays as the file grows); `recordings` adds the `name` and, on this machine only, its `path`. Tables of turns
name the turn (`turn`, the 1-based number `ctxscope inspect REC --turn N` takes), and every table
has `day`, the UTC date the recording was created (the Parquet files are one per table and month).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["EXPORTED", "TABLES", "TURN_TABLES", "Column", "Table", "create_sql", "markdown"]


@dataclass(frozen=True)
class Column:
    name: str
    type: str
    doc: str
    local: bool = False
    """A fact of this machine (a path, an inode): kept in the DuckDB file, left out of the Parquet export."""


@dataclass(frozen=True)
class Table:
    name: str
    doc: str
    columns: tuple[Column, ...]

    @property
    def names(self) -> list[str]:
        return [c.name for c in self.columns]


def _c(name: str, type_: str, doc: str, *, local: bool = False) -> Column:
    return Column(name, type_, doc, local)


_REC = _c(
    "recording",
    "VARCHAR",
    "the recording's id: sha256 of its header line and `name` (equal in every copy, kept as it grows)",
)
_DAY = _c("day", "DATE", "the UTC date the recording was created (its month names the Parquet file)")
_THREAD = _c("thread", "VARCHAR", "the thread as `ctxscope diff` names it (`T1`, …)")
_TURN = _c("turn", "INTEGER", "the turn's number in the recording (`ctxscope inspect REC --turn N`)")

TABLES: dict[str, Table] = {
    t.name: t
    for t in (
        Table(
            "recordings",
            "One row per indexed recording file.",
            (
                _REC,
                _DAY,
                _c("name", "VARCHAR", "the file's path relative to the folder indexed (its name, if named)"),
                _c("path", "VARCHAR", "the file's absolute path on this machine", local=True),
                _c("hash", "VARCHAR", "sha256 of the file's bytes when indexed"),
                _c("size", "BIGINT", "the file's size in bytes"),
                _c("mtime_ns", "BIGINT", "the file's modification time (Unix nanoseconds)", local=True),
                _c("inode", "BIGINT", "the file's inode", local=True),
                _c("client", "VARCHAR", "the client that made the requests (`originator` or User-Agent)"),
                _c("created", "TIMESTAMPTZ", "when the recording was started (from its header)"),
                _c("format", "VARCHAR", "the recording format version (`1.2`)"),
                _c("tool", "VARCHAR", "the program that wrote it (`ctxscope 0.1.0`)"),
                _c("turns", "INTEGER", "model requests (what `ctxscope diff` lists)"),
                _c("threads", "INTEGER", "threads, side-request threads included"),
                _c("warnings", "INTEGER", "reader and analysis warnings (a torn line, a skipped exchange)"),
            ),
        ),
        Table(
            "threads",
            "One row per thread of a recording (the analysis's threads).",
            (
                _REC,
                _DAY,
                _THREAD,
                _c("id", "VARCHAR", "the explicit conversation id, when the client sent one"),
                _c("forked_from", "INTEGER", "the turn this thread was forked from"),
                _c("side", "VARCHAR", "the side-request kind this thread collects (`thread_title`, …)"),
                _c("turns", "INTEGER", "turns in the thread"),
                _c("first_turn", "INTEGER", "its first turn"),
                _c("last_turn", "INTEGER", "its last turn"),
            ),
        ),
        Table(
            "turns",
            "One row per model request: the `ctxscope diff` timeline row, with the world state after it.",
            (
                _REC,
                _DAY,
                _THREAD,
                _TURN,
                _c("exchange", "INTEGER", "the exchange id in the recording"),
                _c("started", "TIMESTAMPTZ", "when the request began"),
                _c("transport", "VARCHAR", "`http` or `websocket`"),
                _c("endpoint", "VARCHAR", "`responses` or `responses/compact`"),
                _c("model", "VARCHAR", "the requested model"),
                _c("change_kind", "VARCHAR", "initial, append, rewrite, compaction or fork"),
                _c(
                    "previous",
                    "INTEGER",
                    "the turn it is compared with (the thread's previous, or the fork source)",
                ),
                _c("kept", "INTEGER", "items kept from `previous`"),
                _c("added", "INTEGER", "items added"),
                _c("removed", "INTEGER", "items removed"),
                _c("request_kind", "VARCHAR", "from Codex's turn metadata: turn, prewarm, compaction, …"),
                _c("side_kind", "VARCHAR", "a side request's kind (thread_title, prewarm), else NULL"),
                _c("items", "INTEGER", "items in the full context"),
                _c("counted_tokens", "INTEGER", "the context counted with o200k_base (the kinds sum to it)"),
                _c("input_tokens", "INTEGER", "reported `usage.input_tokens`"),
                _c("cached_tokens", "INTEGER", "reported `usage.input_tokens_details.cached_tokens`"),
                _c("output_tokens", "INTEGER", "reported `usage.output_tokens`"),
                _c("predicted_cached", "INTEGER", "cached tokens the analysis predicts"),
                _c("duration_ms", "DOUBLE", "request start to last byte"),
                _c("status", "VARCHAR", "completed, failed, incomplete, no response, http N, …"),
                _c("error", "VARCHAR", "the error message, when there was one"),
                _c("cwd", "VARCHAR", "world state: working directory"),
                _c("shell", "VARCHAR", "world state: shell"),
                _c("date", "VARCHAR", "world state: the current date the context told the model"),
                _c("sandbox", "VARCHAR", "world state: sandbox mode"),
                _c("approval", "VARCHAR", "world state: approval policy"),
                _c("network", "BOOLEAN", "world state: network access"),
                _c("collaboration_mode", "VARCHAR", "world state: collaboration mode (default, plan, …)"),
                _c("reasoning_effort", "VARCHAR", "the request's reasoning effort"),
                _c(
                    "world",
                    "VARCHAR",
                    "the whole world state as JSON text under the report's keys; AGENTS.md texts as sha256",
                ),
                _c("cost_usd", "DOUBLE", "what the request cost (`ctxscope cost`); NULL: unpriced or no usage"),
                _c("cache_write_tokens", "INTEGER", "reported `usage.input_tokens_details.cache_write_tokens`"),
                _c("agent", "VARCHAR", "the agent that made the request: its path in the tree (`main`, `main/Bohr`)"),
            ),
        ),
        Table(
            "composition",
            "Each turn's context in tokens by kind (`ctxscope context`); they sum to counted_tokens.",
            (
                _REC,
                _DAY,
                _THREAD,
                _TURN,
                _c(
                    "kind",
                    "VARCHAR",
                    "base_prompt, tools, a fragment kind, user, tool_output:NAME, …",
                ),
                _c("tokens", "INTEGER", "tokens of that kind in the turn's request"),
            ),
        ),
        Table(
            "items",
            "Each item (and each part of a message) a turn added to its thread's context.",
            (
                _REC,
                _DAY,
                _THREAD,
                _c("turn", "INTEGER", "the turn whose request added it"),
                _c("last_turn", "INTEGER", "the last turn of the thread whose context still held it"),
                _c("position", "INTEGER", "its index in that turn's `input[]`"),
                _c("part", "INTEGER", "the content part's index in a message, NULL for a whole item"),
                _c("type", "VARCHAR", "the item type (`message`, `function_call_output`, …)"),
                _c("role", "VARCHAR", "a message's role"),
                _c("kind", "VARCHAR", "the item's class (as `ctxscope diff` names it)"),
                _c("fragment", "VARCHAR", "the part's context fragment kind (agents_md, …), else NULL"),
                _c("label", "VARCHAR", "the item's or part's label"),
                _c("tokens", "INTEGER", "its tokens"),
                _c(
                    "content_hash",
                    "VARCHAR",
                    "sha256 of its text (of its normalised key when it has none)",
                ),
                _c("text", "VARCHAR", "its text, only when indexed with --with-text"),
            ),
        ),
        Table(
            "events",
            "What happened in a turn: mode, plan, goal, compaction, world change, tool call, error.",
            (
                _REC,
                _DAY,
                _THREAD,
                _TURN,
                _c("kind", "VARCHAR", "mode, plan, goal, compaction, world, tool_call or error"),
                _c("name", "VARCHAR", "mode/plan/goal event kind, world field, tool name, or status"),
                _c("sentence", "VARCHAR", "the sentence `ctxscope diff` shows (tool calls: NULL)"),
            ),
        ),
        Table(
            "tools",
            "Tools per turn: offered in the request, called in the answer.",
            (
                _REC,
                _DAY,
                _THREAD,
                _TURN,
                _c("name", "VARCHAR", "the tool's name (its type for built-in tools)"),
                _c("offered", "BOOLEAN", "in the request's `tools[]`"),
                _c("called", "BOOLEAN", "called in the turn's answer"),
                _c("tokens", "INTEGER", "the tool definition's tokens (0 when not offered)"),
            ),
        ),
        Table(
            "compactions",
            "Each compaction turn: what was summarised, dropped and kept (`ctxscope diff` compaction view).",
            (
                _REC,
                _DAY,
                _THREAD,
                _TURN,
                _c("trigger", "VARCHAR", "what triggered it (local request, remote, …)"),
                _c("request_turn", "INTEGER", "the compaction request's turn"),
                _c("summarised", "INTEGER", "items of history summarised"),
                _c("dropped_context", "INTEGER", "context items dropped"),
                _c("kept", "INTEGER", "items kept"),
                _c("tokens_before", "INTEGER", "context tokens before"),
                _c("tokens_after", "INTEGER", "context tokens after"),
                _c("sentence", "VARCHAR", "the compaction sentence"),
                _c("summary", "VARCHAR", "the summary text, only when indexed with --with-text"),
            ),
        ),
        Table(
            "cache_breaks",
            "Turns whose cached prefix broke or whose cache went unused (`ctxscope cache`).",
            (
                _REC,
                _DAY,
                _THREAD,
                _TURN,
                _c("key", "VARCHAR", "the cache key (`prompt_cache_key`, else `thread T1`)"),
                _c("previous", "INTEGER", "the previous request of the same key"),
                _c(
                    "broke_at",
                    "VARCHAR",
                    "where it broke: a parameter, instructions, tools, input[N]; NULL: none",
                ),
                _c("label", "VARCHAR", "what was there"),
                _c("cause", "VARCHAR", "why, in words"),
                _c("tokens_lost", "INTEGER", "cached tokens the break cost"),
                _c("predicted_cached", "INTEGER", "predicted cached tokens"),
                _c("reported_cached", "INTEGER", "reported cached tokens"),
                _c("flag", "VARCHAR", "set when the backend did not use its cache"),
            ),
        ),
        Table(
            "agents",
            "The recording's agents (the tree `ctxscope info` shows): who spawned whom, requests, tokens, cost.",
            (
                _REC,
                _DAY,
                _c("agent", "VARCHAR", "its path in the tree: `main` (the session's own agent), `main/Bohr`, …"),
                _c("nickname", "VARCHAR", "`main`, or the nickname Codex gave the spawned agent"),
                _c("agent_id", "VARCHAR", "the spawned agent's id on the wire (its requests' thread id); NULL: main"),
                _c("parent", "VARCHAR", "the spawning agent's path (`agents.agent`); NULL: main"),
                _c("spawn_call", "VARCHAR", "the `call_id` of the parent's `spawn_agent` call"),
                _c("spawned_in", "INTEGER", "the parent's turn whose answer made the spawn call"),
                _c("result_in", "INTEGER", "the parent's turn whose input carries the spawn call's result"),
                _c("returned_in", "INTEGER", "the parent's turn whose input first carries the agent's end"),
                _c("threads", "VARCHAR[]", "the threads its requests are in (`T2`, …)"),
                _c("requests", "INTEGER", "its model requests (turns whose `turns.agent` is this agent)"),
                _c("input_tokens", "BIGINT", "reported input tokens of its requests, summed"),
                _c("cached_tokens", "BIGINT", "reported cached input tokens, summed"),
                _c("output_tokens", "BIGINT", "reported output tokens, summed"),
                _c("cost_usd", "DOUBLE", "its priced requests' `turns.cost_usd`, summed; NULL: none priced"),
                _c("unpriced", "INTEGER", "its requests with reported usage and no price"),
            ),
        ),
        Table(
            "agents_md",
            "Each AGENTS.md in a turn's context (from its world state), by path and version.",
            (
                _REC,
                _DAY,
                _THREAD,
                _TURN,
                _c("path", "VARCHAR", "the directory the AGENTS.md applies to"),
                _c("hash", "VARCHAR", "sha256 of its text: one value per version"),
            ),
        ),
    )
}
"""Every table, in the order they are created and documented."""

EXPORTED: dict[str, tuple[Column, ...]] = {n: tuple(c for c in t.columns if not c.local) for n, t in TABLES.items()}
"""Each table's columns in the Parquet export (the local ones left out)."""

TURN_TABLES = tuple(n for n, t in TABLES.items() if "turn" in t.names)
"""Tables whose rows belong to one turn (re-indexing replaces only the turns that changed)."""


def create_sql(table: Table) -> str:
    """`CREATE TABLE IF NOT EXISTS` for `table`."""
    columns = ", ".join(f'"{c.name}" {c.type}' for c in table.columns)
    return f"CREATE TABLE IF NOT EXISTS {table.name} ({columns})"


def markdown() -> str:
    """The tables as docs/index.md lists them (a test holds the page to it)."""
    out: list[str] = []
    for table in TABLES.values():
        out += [f"### `{table.name}`", "", table.doc, "", "| column | type | meaning |", "|---|---|---|"]
        out += [
            f"| `{c.name}` | {c.type} | {c.doc.replace('|', '/')}{' (not exported)' if c.local else ''} |"
            for c in table.columns
        ]
        out.append("")
    return "\n".join(out)

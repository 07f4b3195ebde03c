"""The report documents of `ctxscope-report/1` as pydantic models: the JSON a CI job asserts on, the
documents text and markdown render from, and the source of the generated JSON schema
(`docs/report-schema.json`, see `ctxscope.inspector.reports.schema`).

Field names are the published key names. A key that is present only in some documents (an
item's `text`, a fragment part's `values`, a compaction's item lists) defaults to None and is left
out of `wire()` unless it was set; every other key is always written, `null` meaning "not known".
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, GetJsonSchemaHandler, TypeAdapter
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema

from ctxscope.harness.context import world_fields
from ctxscope.inspector.analysis.mode_events import ModeEventKind
from ctxscope.inspector.reports.world import PUBLISHED_KEYS

__all__ = [
    "SCHEMA",
    "AgentDoc",
    "AnswerDoc",
    "AnswerItemDoc",
    "AnswerStepDoc",
    "CacheBreakDoc",
    "ChangeDoc",
    "CompactionDetail",
    "CompactionDoc",
    "CompareReport",
    "DiffReport",
    "FragmentChangeDoc",
    "FragmentDiffDoc",
    "FragmentReplacedDoc",
    "ItemDoc",
    "ModeEventDoc",
    "GoalEventDoc",
    "PairDoc",
    "PartDoc",
    "ReportDoc",
    "ShowReport",
    "ThreadDoc",
    "TokensDoc",
    "ToolsDoc",
    "TurnDetail",
    "TurnDoc",
    "WorldStateDoc",
]

SCHEMA = "ctxscope-report/1"


class Doc(BaseModel):
    """A part of a report document.

    A field's docstring is its description in the published schema; `ctxscope.inspector.reports.schema`
    puts it there when it generates the schema. Not pydantic's `use_attribute_docstrings`: that reads
    every class's source again at each import of this module (about 20 ms, paid by every `ctxscope
    index` that builds a row), and nothing but the schema reads a description. Each model builds its
    validator when first used (`defer_build`): the index uses the turn document's dozen, not all 35.
    """

    model_config = ConfigDict(extra="forbid", populate_by_name=True, defer_build=True)

    def wire(self) -> dict[str, Any]:
        """The published JSON form (plain dicts and lists, published key names)."""
        return self.model_dump(mode="json", by_alias=True, exclude_unset=True)


class TokenizerDoc(Doc):
    name: str
    """`o200k_base`, or `estimate (chars/4)` when the tokenizer could not be loaded."""
    estimated: bool


class BeforeAfter(Doc):
    before: Any
    after: Any


class AB(Doc):
    a: Any
    b: Any


class WorldStateDoc(BaseModel):
    """The world state after a turn under its published key names (`ctxscope.inspector.reports.world`);
    a key is absent when the context never set it, except `model` and `reasoning_effort`."""

    model_config = ConfigDict(extra="allow")

    def wire(self) -> dict[str, Any]:
        """The published JSON form."""
        return self.model_dump(mode="json")

    @classmethod
    def __get_pydantic_json_schema__(
        cls, core_schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        """Document every world-state field the registry knows, under its published key."""
        schema = handler(core_schema)
        fields = world_fields()
        names = [n for n in PUBLISHED_KEYS if n in fields] + [n for n in fields if n not in PUBLISHED_KEYS]
        properties: dict[str, Any] = {}
        for name in names:
            field = fields[name]
            if field.marker.key is not None:
                value: dict[str, Any] = {"type": "array", "items": {"type": "string"}}
            else:
                value = TypeAdapter(field.annotation | None).json_schema()
            value.pop("$defs", None)
            value["description"] = f"{field.marker.label} (world-state field `{name}`)"
            properties[PUBLISHED_KEYS.get(name, name)] = value
        schema["properties"] = properties
        schema["required"] = ["model", "reasoning_effort"]
        return schema


class ToolsDoc(Doc):
    added: list[str]
    removed: list[str]
    changed: dict[str, list[str]]
    """Tool name → its changes as text lines (`ctxscope.proxy.replay.tool_diff.FieldChange.lines`): a changed
    text as `PATH:` then `-old` and `+new` lines, anything else as `PATH: old → new`, `+PATH: new`, `-PATH: old`."""
    reordered: bool
    """Same tools in another order: no change of content, but it breaks the cached prefix."""


class PartDoc(Doc):
    kind: str
    label: str
    tokens: int
    values: dict[str, Any] | None = None
    """Fragment parts only: the typed values the fragment carries."""
    text: str | None = None
    """Only where the report shows full text."""
    codex_label: str | None = None
    """Codex's own label for the part (`content_item_kinds`, Codex 0.169), where it sent one."""


class ItemDoc(Doc):
    position: int
    """0-based index into the turn's full `input[]`."""
    type: str
    role: str | None
    kind: str
    label: str
    tokens: int
    parts: list[PartDoc] | None = None
    """Message items only."""
    text: str | None = None
    """Items without parts, only where the report shows full text."""
    label_notes: list[str] | None = None
    """Where Codex's part labels and our recognisers disagree, one line each (`show` only)."""


class ChangeDoc(Doc):
    kind: Literal["initial", "append", "rewrite", "compaction", "fork"]
    previous: int | None
    kept: int
    added: int
    removed: int


class FragmentChangeDoc(Doc):
    change: Literal["added", "removed"]
    kind: str
    label: str


class ModeEventDoc(Doc):
    """One thing plan mode did in a turn (`ctxscope.inspector.analysis.mode_events`)."""

    kind: ModeEventKind
    sentence: str
    """`mode default → plan`, `plan submitted (revision 2)`, `tool apply_patch blocked while planning`."""


class AnswerItemDoc(Doc):
    """One output item of a turn's answer (`ctxscope.inspector.analysis.answers`)."""

    type: str
    """The wire type: `message`, `reasoning`, `function_call`, `custom_tool_call`, `web_search_call`, …"""
    kind: str
    """`message`, `reasoning`, or the call's type and tool name (`function_call exec_command`)."""
    name: str | None = None
    """Tool calls only: the tool name."""
    text: str | None = None
    """A message's visible text (a `<proposed_plan>` block taken out), a reasoning summary, or an
    item of another type as compact JSON."""
    arguments: str | None = None
    """Function calls: the arguments as sent (JSON text); custom tool calls: the input."""
    plan: str | None = None
    """The Markdown of a `<proposed_plan>` block in a message."""
    duration_ms: float | None = None
    """Tool calls timed by the client's own trace (an imported Codex rollout trace): how long it ran."""
    exit_code: int | None = None
    """Tool calls timed by the client's own trace: the command's exit status."""
    run_status: str | None = None
    """Tool calls timed by the client's own trace: the runtime's status (`completed`, `failed`)."""


class AnswerStepDoc(Doc):
    """One output item in short, as the timeline and the HTML report list it."""

    kind: str
    """`message`, `reasoning`, `function_call exec_command`, …"""
    gist: str


class AnswerDoc(Doc):
    """What the request got back: added in ctxscope-report/1 (the answer belongs to its turn)."""

    status: Literal["completed", "incomplete", "failed", "error", "cut"]
    """`error`: an HTTP error answer; `cut`: no terminal event (the stream or connection ended)."""
    error: str | None
    summary: str
    """The answer in one line, as the timeline shows it (`function_call exec_command {"cmd": "ls"}`)."""
    output: list[AnswerItemDoc]
    usage: dict[str, int | None]
    """`input_tokens`, `cached_tokens`, `output_tokens`, `reasoning_tokens`; null: not reported."""
    steps: list[AnswerStepDoc] = Field(default_factory=list)
    """Added in ctxscope-report/1: the output items in short, one each (what `summary` joins)."""


class GoalEventDoc(Doc):
    """One thing that happened to the thread goal in a turn (`ctxscope.inspector.analysis.goal_events`)."""

    kind: Literal[
        "set", "continuation", "paused", "resumed", "cleared", "completed", "blocked", "budget reached"
    ]
    number: int | None = None
    """For `continuation`: which goal turn of the thread."""
    sentence: str
    """`goal set: write a haiku`, `goal continuation #3`, `goal cleared`."""


class CacheBreakDoc(Doc):
    """Where the cached prefix broke and what it cost (`ctxscope.inspector.analysis.cache`)."""

    at: str
    """`model`, `reasoning.effort`, `instructions`, `tools`, or `input[N]`."""
    label: str
    cause: str
    tokens: int
    """Cached tokens lost (always more than 0: a change that cost nothing is not a break)."""


class TokensDoc(Doc):
    total: int
    """Counted tokens: the request's instructions, tools and input counted with the tokenizer."""
    estimated: bool
    by_kind: dict[str, int]
    usage: dict[str, int | None]
    """Reported by the backend (null: not reported)."""
    unaccounted: int | None
    """Reported `input_tokens` − `total`."""
    shared_prefix: int
    """Tokens shared with `predicted_from`, the best earlier request of the same cache key."""
    predicted_cached: int
    predicted_from: int | None = None
    """Added in ctxscope-report/1: the turn the prediction is from (a prewarm counts; null: none)."""
    cache_break: CacheBreakDoc | None = None
    """Added in ctxscope-report/1: where the prefix broke against the previous request of the key."""
    shown: int = 0
    """Added in ctxscope-report/1: the one figure a timeline shows for the turn (`shown_as` says which)."""
    shown_as: Literal["reported", "counted"] = "counted"
    """`reported`: the backend's input tokens; `counted`: `total`, where nothing was reported."""


class CompactionDoc(Doc):
    sentence: str
    trigger: str
    request_turn: int | None
    summarised: int
    dropped_context: int
    kept: int
    kept_in_place: int
    rematerialised: list[str]
    tokens_before: int
    tokens_after: int
    summary: str | None
    history: int = 0
    """Added in ctxscope-report/1: the items of the compacted history (its prompt or trigger left
    out), the whole that `kept_in_place` + `summarised` + `dropped` + `kept` + `resent` add up to."""
    resent: int = 0
    """Added in ctxscope-report/1: context items of the history the new window sends again."""
    dropped: list[str] = Field(default_factory=list)
    """Added in ctxscope-report/1: the context fragments gone for good, each named once."""
    dropped_items: int = 0
    """Added in ctxscope-report/1: the context items holding them (part of `dropped_context`, the
    rest being context re-sent in another form)."""


class CompactionDetail(CompactionDoc):
    summarised_items: list[ItemDoc]
    dropped_context_items: list[ItemDoc]
    kept_items: list[ItemDoc]


class CostDoc(Doc):
    """What one request cost (`ctxscope.inspector.analysis.cost`): the one figure every view shows."""

    usd: float | None
    """None: unpriced (no price for the model) or no usage reported."""
    priced: bool
    reported: bool
    """The response reported usage."""
    api_equivalent: bool
    """A ChatGPT login's request: billed by plan, `usd` is what the API would charge."""
    input_tokens: int
    cached_tokens: int
    cache_write_tokens: int
    output_tokens: int
    reasoning_tokens: int
    """Part of `output_tokens` (shown apart, never added twice)."""
    price_source: str | None = None


class TurnDoc(Doc):
    """One row of the timeline."""

    turn: int
    thread: str
    exchange: int
    transport: str
    endpoint: str
    model: str | None
    request_kind: str | None
    side: str | None = None
    """A side request beside the conversation, by kind (`thread_title`, `prewarm`)."""
    beside: str | None = None
    """For a side request: the conversation thread it was made beside."""
    status: str
    error: str | None
    items: int
    sent_items: int
    change: ChangeDoc
    fragments_changed: list[FragmentChangeDoc]
    world_state_changes: list[str]
    """Sentences, one or more per changed world-state field (`ctxscope.inspector.reports.world`)."""
    mode_events: list[ModeEventDoc] = Field(default_factory=list)
    """Plan mode in this turn's added items: mode switches, submissions, blocked tools, reminders."""
    goal_events: list[GoalEventDoc] = Field(default_factory=list)
    """What happened to the thread goal: set, continuation #N, paused, resumed, cleared, completed,
    blocked, budget reached (the `goal` sentences of `world_state_changes`, typed)."""
    instructions_changed: bool
    tools: ToolsDoc
    params: dict[str, BeforeAfter]
    tokens: TokensDoc
    compaction: CompactionDoc | None
    notes: list[str]
    answer: AnswerDoc
    """What this request got back (the next turn's input holds it again, as history)."""
    cost: CostDoc | None = None
    """Added in ctxscope-report/1: what this request cost at the default or `--prices` table."""
    agent: str | None = None
    """Added in ctxscope-report/1: the spawned agent that made the request (`analysis.agents`); None:
    the session's own agent, in a recording without spawned agents or for the root."""


class AgentDoc(Doc):
    """Added in ctxscope-report/1: one agent of the recording's tree (`ctxscope.inspector.analysis.agents`),
    with its threads, its requests and what they cost."""

    name: str
    """`main` (the session's own agent) or the nickname Codex gave the spawned agent."""
    path: str
    """The names from the root down, `main/Bohr`."""
    agent_id: str | None
    """The spawned agent's id on the wire (its requests' thread id); None for the root."""
    parent: str | None
    """The spawning agent's name; None for the root."""
    threads: list[str]
    turns: list[int]
    spawned_in: int | None
    """The parent's turn whose answer made the spawn call."""
    result_in: int | None
    """The parent's turn whose input carries the spawn call's result (the agent id)."""
    returned_in: int | None
    """The parent's turn whose input first carries the agent's end (a wait status or a notification)."""
    requests: int
    usd: float | None
    """The priced requests' cost summed; None when none of its requests is priced."""
    unpriced_requests: int
    api_equivalent: bool


class FragmentReplacedDoc(Doc):
    """An added fragment set against the one it replaces (`ctxscope.inspector.analysis.fragment_diff`)."""

    position: int
    """The added item's position in this turn's `input[]`."""
    label: str
    replaces_position: int
    """The replaced fragment's item position in the previous turn's `input[]`."""
    replaces: str
    """The replaced fragment's label."""
    fields: dict[str, BeforeAfter] | None = None
    """Fragments with short values: the fields that differ."""
    diff: list[str] | None = None
    """Other fragments: the text diff, one line each, `+ `, `- ` or two spaces, then the line."""
    resent: bool = False
    """Added in ctxscope-report/1: re-sent after a compaction (the new window's context again), not a
    replacement within the window."""


class TurnDetail(TurnDoc):
    """A turn against its predecessor, in full."""

    compaction: CompactionDetail | None
    added_items: list[ItemDoc]
    removed_items: list[ItemDoc]
    instructions_diff: list[str]
    world_state: WorldStateDoc
    fragments_replaced: list[FragmentReplacedDoc] = Field(default_factory=list)
    """Added in ctxscope-report/1: each added fragment that replaces one of the previous turn's."""


class ThreadDoc(Doc):
    name: str
    id: str | None
    turns: list[int]
    forked_from: int | None
    side: str | None = None
    """Set on the thread collecting side requests of one kind (`thread_title`); they fold on the timeline."""


class _Head(Doc):
    schema_: Literal["ctxscope-report/1"] = Field(alias="schema")
    """Major version 1: keys are only ever added; a removal or change of meaning is version 2."""
    report: str
    tokenizer: TokenizerDoc


class DiffReport(_Head):
    """`ctxscope diff`: threads, the timeline, and optionally one turn in full."""

    report: Literal["diff"]
    source: str
    warnings: list[str]
    threads: list[ThreadDoc]
    turns: list[TurnDoc]
    detail: TurnDetail | None
    root: str | None = None
    """The first turn's working directory; the text report writes paths under it as `./…`."""
    side_requests: dict[str, int] = Field(default_factory=dict)
    """Requests beside the conversations by kind (`thread_title`, `prewarm`, `models`), counted apart
    from the threads' turns (a models list is not a turn at all)."""
    agents: list[AgentDoc] = Field(default_factory=list)
    """Added in ctxscope-report/1: the agent tree, root first (empty without spawned agents)."""


class ShowReport(_Head):
    """`ctxscope show`: the full context of one request."""

    report: Literal["show"]
    source: str
    turn: TurnDoc
    instructions: str | None
    tools: list[str]
    layout: list[str]
    input: list[ItemDoc]
    world_state: WorldStateDoc
    root: str | None = None
    """Added in ctxscope-report/1: the recording's first working directory; the text report writes
    paths under it as `./…`."""
    agent: AgentDoc | None = None
    """Added in ctxscope-report/1: the agent that made this request, in a recording with spawned
    agents (the root's too); None without them."""


class HeadersDoc(Doc):
    only_a: list[str]
    only_b: list[str]
    changed: dict[str, list[str]]


class BodyKeysDoc(Doc):
    only_a: list[str]
    only_b: list[str]


class FragmentDiffDoc(Doc):
    """A context fragment (or item) at the same place in both requests whose text differs."""

    fragment: str
    """Its label as normalised: `permissions`, `agents_md:<cwd>`, `environment_context:…`."""
    a_item: int
    b_item: int
    diff: list[str]
    """The changed lines of the normalised texts: `-…` A's, `+…` B's."""
    more: int = 0
    """Changed lines left out of `diff`."""


class PairDoc(Doc):
    turn: int
    a_turn: int | None
    b_turn: int | None
    same: bool
    endpoint: list[str] | None
    transport: list[str] | None
    headers: HeadersDoc
    params: dict[str, AB]
    body_keys: BodyKeysDoc
    instructions_diff: list[str]
    tools: ToolsDoc
    items_diff: list[str]
    usage: dict[str, AB]
    status: list[str] | None
    same_structure: bool = False
    """Added in ctxscope-report/1: same labelled layout, key sets and tool shapes (wording aside)."""
    structure_diff: list[str] = []
    """The structural differences, one line each (empty: the same structure)."""
    fragments_diff: list[FragmentDiffDoc] = []
    """Items at the same place whose content differs after normalisation, named, with a diff; a
    pair is `same` only when there are none."""
    verdict: Literal["same", "same_apart", "differs", "only_a", "only_b"] = "differs"
    """The one verdict of the pair (text, JSON and the TUI say the same): `same_apart` = differs only
    in `summary.repeated_differences`, the differences every aligned pair shares."""


class CompareSummary(Doc):
    turns_a: int
    turns_b: int
    same_turns: int
    repeated_differences: list[str] = []
    """Added in ctxscope-report/1: the pair keys (`endpoint`, `transport`, `status`, `headers`, `params`,
    `body_keys`, `instructions_diff`, `tools`, `items_diff`) in which every aligned pair differs, the
    same way in each; empty with fewer than two aligned pairs."""
    identical_apart_from: list[str] | None = None
    """Added in ctxscope-report/1: `repeated_differences` when the aligned pairs differ in nothing
    else ("identical apart from: endpoint"); null otherwise."""
    verdicts: dict[str, int] = {}
    """How many pairs got each `verdict`."""
    normalised: list[str] = []
    """What was normalised before comparing, as strict replay normalises (the path pairs under the
    recorded roots, temp dirs, ids, dates, volatile metadata), one phrase each; empty with `raw`."""
    raw: bool = False
    """True: compared as sent (`compare --raw`), nothing normalised."""


class CompareThreadsDoc(Doc):
    a: str
    """A's thread as `ctxscope diff` names it (`T1`, ...)."""
    b: str
    """B's thread."""


class CompareReport(_Head):
    """`ctxscope compare`: two recordings of the same task, turn by turn."""

    report: Literal["compare"]
    a: str
    b: str
    warnings: list[str]
    notes: list[str]
    summary: CompareSummary
    turns: list[PairDoc]
    threads: CompareThreadsDoc | None = None
    """Added in ctxscope-report/1: the threads compared (`--thread`); absent: the whole recordings."""


ReportDoc = Annotated[DiffReport | ShowReport | CompareReport, Field(discriminator="report")]
"""Any report document, told apart by `report`."""

"""Report documents: the analysis turned into the models of `ctxscope-report/1` (`reports.models`).

Every output format renders a document's `wire()` form, so the JSON a CI job asserts on and the
text a person reads never disagree. The schema is documented in `docs/report-schema.md` and
generated into `docs/report-schema.json`; add fields freely, but bump the version for any removal
or change of meaning.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any, TypeVar

from ctxscope.inspector.analysis.analyse import Analysis, TurnAnalysis
from ctxscope.inspector.analysis.answers import Answer
from ctxscope.inspector.analysis.attribution import usage_numbers
from ctxscope.inspector.analysis.changes import ChangeKind
from ctxscope.inspector.analysis.codex_labels import codex_labels, label_checks
from ctxscope.inspector.analysis.compaction import CompactionReport
from ctxscope.inspector.analysis.cost import PriceTable, RequestCost, turn_cost
from ctxscope.inspector.analysis.diffs import ToolDiff, tool_name
from ctxscope.inspector.analysis.instructions import effective_instructions
from ctxscope.inspector.analysis.items import Item, Part
from ctxscope.inspector.analysis.tokens import get_tokenizer
from ctxscope.inspector.reports.agents import agent_docs
from ctxscope.inspector.reports.models import (
    AB,
    SCHEMA,
    AgentDoc,
    AnswerDoc,
    AnswerItemDoc,
    AnswerStepDoc,
    BeforeAfter,
    BodyKeysDoc,
    CacheBreakDoc,
    ChangeDoc,
    CompactionDetail,
    CompactionDoc,
    CompareReport,
    CompareSummary,
    CompareThreadsDoc,
    CostDoc,
    DiffReport,
    FragmentChangeDoc,
    FragmentDiffDoc,
    FragmentReplacedDoc,
    GoalEventDoc,
    HeadersDoc,
    ItemDoc,
    ModeEventDoc,
    PairDoc,
    PartDoc,
    ShowReport,
    ThreadDoc,
    TokenizerDoc,
    TokensDoc,
    ToolsDoc,
    TurnDetail,
    TurnDoc,
    WorldStateDoc,
)
from ctxscope.inspector.reports.world import describe_changes, goal_event_sentence, world_state_doc

if TYPE_CHECKING:
    # Only `show` (turn_detail) and `compare` read these: the index builds its rows from turn_doc alone
    # and must not pay for the comparison and the fragment diff on every re-index (issue 36).
    from ctxscope.inspector.analysis.compare import Comparison, TurnComparison
    from ctxscope.inspector.analysis.fragment_diff import FragmentDiff

TurnDocT = TypeVar("TurnDocT", TurnDoc, TurnDetail)

__all__ = [
    "SCHEMA",
    "answer_doc",
    "compare_report",
    "diff_report",
    "difference_words",
    "first_cwd",
    "params_to_show",
    "show_report",
    "turn_cost_doc",
]


def _head() -> dict[str, Any]:
    tokenizer = get_tokenizer()
    return {"schema": SCHEMA, "tokenizer": TokenizerDoc(name=tokenizer.name, estimated=tokenizer.estimated)}


def _part_doc(part: Part, *, text: bool, codex_label: str | None = None) -> PartDoc:
    optional: dict[str, Any] = {}
    if part.is_fragment:
        optional["values"] = part.values
    if text:
        optional["text"] = part.text
    if codex_label is not None:
        optional["codex_label"] = codex_label
    return PartDoc(kind=part.kind, label=part.label, tokens=part.tokens, **optional)


def item_doc(item: Item, *, text: bool = False) -> ItemDoc:
    """One classified item (with `text`: as `show` prints it, Codex's part labels checked too)."""
    optional: dict[str, Any] = {}  # keys present only in some documents (left unset otherwise)
    labels = codex_labels(item) if text else ()
    if item.parts:
        optional["parts"] = [
            _part_doc(p, text=text, codex_label=labels[i] if i < len(labels) else None)
            for i, p in enumerate(item.parts)
        ]
    if text and not item.parts:
        optional["text"] = item.text
    notes = [check.note() for check in label_checks(item) if not check.agrees] if text else []
    if notes:
        optional["label_notes"] = notes
    return ItemDoc(
        position=item.position,
        type=item.type,
        role=item.role,
        kind=item.kind,
        label=item.label,
        tokens=item.tokens,
        **optional,
    )


def tools_doc(diff: ToolDiff) -> ToolsDoc:
    """Tools added/removed/changed by name."""
    return ToolsDoc(added=diff.added, removed=diff.removed, changed=diff.changed, reordered=diff.reordered)


def _fragments_changed(result: TurnAnalysis) -> list[FragmentChangeDoc]:
    out = [
        FragmentChangeDoc(change="added", kind=p.kind, label=p.label)
        for i in result.change.added
        for p in i.fragments
    ]
    out += [
        FragmentChangeDoc(change="removed", kind=p.kind, label=p.label)
        for i in result.change.removed
        for p in i.fragments
    ]
    return out


def _compaction_fields(report: CompactionReport) -> dict[str, Any]:
    return {
        "sentence": report.sentence,
        "trigger": report.trigger,
        "request_turn": report.request_turn,
        "summarised": len(report.summarised),
        "dropped_context": len(report.dropped_context),
        "kept": len(report.kept),
        "kept_in_place": report.kept_in_place,
        "rematerialised": [i.label for i in report.rematerialised],
        "tokens_before": report.tokens_before,
        "tokens_after": report.tokens_after,
        "summary": report.summary,
        "history": report.history,
        "resent": report.resent,
        "dropped": report.dropped_names,
        "dropped_items": len(report.dropped_for_good),
    }


def compaction_doc(report: CompactionReport) -> CompactionDoc:
    """Compaction forensics of one turn."""
    return CompactionDoc(**_compaction_fields(report))


def compaction_detail(report: CompactionReport) -> CompactionDetail:
    """Compaction forensics with the items summarised, dropped and kept."""
    return CompactionDetail(
        **_compaction_fields(report),
        summarised_items=[item_doc(i) for i in report.summarised],
        dropped_context_items=[item_doc(i) for i in report.dropped_context],
        kept_items=[item_doc(i) for i in report.kept],
    )


def answer_doc(answer: Answer) -> AnswerDoc:
    """A turn's answer: its output items in full, status with the error, usage."""
    output = []
    for item in answer.items:
        optional: dict[str, Any] = {
            k: v
            for k, v in (
                ("name", item.name),
                ("text", item.text),
                ("arguments", item.arguments),
                ("plan", item.plan),
                ("duration_ms", item.run.duration_ms if item.run else None),
                ("exit_code", item.run.exit_code if item.run else None),
                ("run_status", item.run.status if item.run else None),
            )
            if v is not None
        }
        output.append(AnswerItemDoc(type=item.type, kind=item.kind, **optional))
    return AnswerDoc(
        status=answer.status,
        error=answer.error,
        summary=answer.summary(),
        output=output,
        usage=usage_numbers(answer.usage),
        steps=[AnswerStepDoc(kind=s.kind, gist=s.gist) for s in answer.steps],
    )


def cost_doc(cost: RequestCost) -> CostDoc:
    """A request's cost as the turn document carries it."""
    return CostDoc(
        usd=cost.usd,
        priced=cost.price is not None,
        reported=cost.reported,
        api_equivalent=cost.api_equivalent,
        input_tokens=cost.input_tokens,
        cached_tokens=cost.cached_tokens,
        cache_write_tokens=cost.cache_write_tokens,
        output_tokens=cost.output_tokens,
        reasoning_tokens=cost.reasoning_tokens,
        price_source=cost.price.source if cost.price is not None else None,
    )


def turn_cost_doc(result: TurnAnalysis, prices: PriceTable | None = None) -> CostDoc:
    """The turn document's `cost`: what the request cost at `prices` (the default table without);
    the TUI's timeline reads it here rather than building the whole document."""
    return cost_doc(turn_cost(result, prices))


def _cache_break(result: TurnAnalysis) -> CacheBreakDoc | None:
    brk = result.cache.brk if result.cache else None
    return None if brk is None else CacheBreakDoc(at=brk.at, label=brk.label, cause=brk.cause, tokens=brk.tokens)


def _turn_fields(result: TurnAnalysis, prices: PriceTable | None = None) -> dict[str, Any]:
    turn, change, tokens = result.turn, result.change, result.tokens
    return {
        "turn": turn.number,
        "thread": turn.thread,
        "exchange": turn.exchange.id,
        "transport": turn.transport,
        "endpoint": turn.endpoint,
        "model": turn.model,
        "request_kind": turn.request_kind,
        "side": turn.side,
        "beside": turn.beside,
        "status": turn.status,
        "error": turn.error,
        "items": len(turn.items),
        "sent_items": turn.sent_items,
        "change": ChangeDoc(
            kind=change.kind,  # type: ignore[arg-type]  # one of CHANGE_KINDS
            previous=change.previous,
            kept=change.kept,
            added=len(change.added),
            removed=len(change.removed),
        ),
        "fragments_changed": _fragments_changed(result),
        "world_state_changes": world_sentences(result),
        "mode_events": [ModeEventDoc(kind=e.kind, sentence=e.sentence) for e in result.mode_events],
        "goal_events": [
            GoalEventDoc(kind=e.kind.value, number=e.number, sentence=goal_event_sentence(e))
            for e in result.goal_events
        ],
        "instructions_changed": bool(result.instructions_diff),
        "tools": tools_doc(result.tools),
        "params": {k: BeforeAfter(before=a, after=b) for k, (a, b) in result.params.items()},
        "tokens": TokensDoc(
            total=tokens.total,
            estimated=tokens.estimated,
            by_kind=tokens.by_kind,
            usage=tokens.usage,
            unaccounted=tokens.unaccounted,
            shared_prefix=tokens.shared_prefix,
            predicted_cached=tokens.predicted_cached,
            predicted_from=result.cache.best_turn if result.cache else None,
            cache_break=_cache_break(result),
            shown=tokens.shown[0],
            shown_as=tokens.shown[1],
        ),
        "compaction": compaction_doc(result.compaction) if result.compaction else None,
        "notes": result.notes,
        "answer": answer_doc(result.answer),
        "cost": turn_cost_doc(result, prices),
    }


def world_sentences(result: TurnAnalysis) -> list[str]:
    """A turn's world-state sentences, without the goal events an earlier answer already told (the
    model's `update_goal` is "goal completed" on the turn that called it, once)."""
    echoed = {goal_event_sentence(e) for e in result.goal_echoes}
    return [s for s in describe_changes(result.state_changes) if s not in echoed]


def turn_doc(result: TurnAnalysis, prices: PriceTable | None = None) -> TurnDoc:
    """One row of the timeline (its cost at `prices`)."""
    return TurnDoc(**_turn_fields(result, prices))


def params_to_show(doc: TurnDoc) -> dict[str, BeforeAfter]:
    """A turn document's parameter changes that its world-state sentences do not already say.

    `model` and a `reasoning` change of the effort alone are described as world state ("model a →
    b", "reasoning effort low → high"); a renderer that printed both would say the same twice.
    """
    said = doc.world_state_changes
    out: dict[str, BeforeAfter] = {}
    for name, change in doc.params.items():
        if name == "model" and any(s.startswith("model ") for s in said):
            continue
        if (
            name == "reasoning"
            and any(s.startswith("reasoning effort ") for s in said)
            and _without_effort(change.before) == _without_effort(change.after)
        ):
            continue
        out[name] = change
    return out


def _without_effort(value: Any) -> Any:
    return {k: v for k, v in value.items() if k != "effort"} if isinstance(value, dict) else value


def _replaced_doc(found: FragmentDiff) -> FragmentReplacedDoc:
    optional: dict[str, Any] = {}
    if found.text is not None:
        signs = {"same": "  ", "added": "+ ", "removed": "- "}
        optional["diff"] = [signs[line.op] + line.text for line in found.text.lines]
    else:
        optional["fields"] = {k: BeforeAfter(before=a, after=b) for k, (a, b) in found.fields.items()}
    return FragmentReplacedDoc(
        position=found.position,
        label=found.part.label,
        replaces_position=found.replaces_position,
        replaces=found.replaces.label,
        resent=found.resent,
        **optional,
    )


def turn_detail(result: TurnAnalysis, previous: TurnAnalysis | None = None) -> TurnDetail:
    """One turn against its predecessor (`previous`, the turn its change is measured against), in full."""
    from ctxscope.inspector.analysis.fragment_diff import fragment_diffs

    compaction = result.change.kind == ChangeKind.COMPACTION
    replaced = (
        fragment_diffs(previous.turn.items, result.change.added, compaction=compaction)
        if previous is not None
        else []
    )
    return TurnDetail(
        **{
            **_turn_fields(result),
            "compaction": compaction_detail(result.compaction) if result.compaction else None,
        },
        added_items=[item_doc(i, text=True) for i in result.change.added],
        removed_items=[item_doc(i, text=True) for i in result.change.removed],
        instructions_diff=result.instructions_diff,
        world_state=WorldStateDoc(**world_state_doc(result.state)),
        fragments_replaced=[_replaced_doc(f) for f in replaced],
    )


def first_cwd(analysis: Analysis) -> str | None:
    """The working directory of the recording's first turn that names one."""
    for result in analysis.turns:
        cwd = world_state_doc(result.state).get("cwd")
        if isinstance(cwd, str) and cwd:
            return cwd
    return None


def _detail(analysis: Analysis, number: int) -> TurnDetail:
    result = analysis.turn(number)
    previous = result.change.previous
    return turn_detail(result, analysis.turn(previous) if previous is not None else None)


def _with_agents(docs: list[TurnDocT], agents: list[AgentDoc]) -> list[TurnDocT]:
    """The turn documents with the spawned agent of each request set (the root's stay None)."""
    spawned = {n: a.name for a in agents if a.parent is not None for n in a.turns}
    for doc in docs:
        doc.agent = spawned.get(doc.turn)
    return docs


def diff_report(
    analysis: Analysis,
    *,
    turn: int | None = None,
    thread: str | None = None,
    prices: PriceTable | None = None,
) -> DiffReport:
    """The `ctxscope diff` document: threads, the timeline, and optionally one turn in full."""
    rows = analysis.turns
    if thread is not None:
        chosen = analysis.thread(thread)
        rows = [r for r in rows if r.turn.thread == chosen.name]
    agents = agent_docs(analysis, prices)
    return DiffReport(
        **_head(),
        report="diff",
        source=analysis.source,
        root=first_cwd(analysis),
        warnings=analysis.warnings,
        threads=[
            ThreadDoc(
                name=t.name,
                id=t.hint,
                turns=[x.number for x in t.turns],
                forked_from=t.forked_from,
                side=t.side,
            )
            for t in analysis.threads
        ],
        turns=_with_agents([turn_doc(r, prices) for r in rows], agents),
        detail=_with_agents([_detail(analysis, turn)], agents)[0] if turn is not None else None,
        side_requests=analysis.side_requests,
        agents=agents,
    )


def show_report(analysis: Analysis, number: int) -> ShowReport:
    """The `ctxscope show` document: the full context of one request."""
    result = analysis.turn(number)
    body = result.turn.body
    agents = agent_docs(analysis)
    return ShowReport(
        **_head(),
        report="show",
        source=analysis.source,
        turn=_with_agents([turn_doc(result)], agents)[0],
        agent=next((a for a in agents if number in a.turns), None),
        instructions=effective_instructions(body, result.turn.items) or None,
        tools=[tool_name(t) for t in body.get("tools") or []],
        layout=[i.label for i in result.turn.items],
        input=[item_doc(i, text=True) for i in result.turn.items],
        world_state=WorldStateDoc(**world_state_doc(result.state)),
        root=first_cwd(analysis),
    )


_FIELD_WORDS = {
    "body_keys": "body fields",
    "instructions_diff": "instructions",
    "items_diff": "items",
    "fragments_diff": "context text",
}


VERDICT_WORDS = {
    "same": "same",
    "same_apart": "same apart from the above",
    "differs": "differs",
    "only_a": "only in A",
    "only_b": "only in B",
}
"""A compare pair's verdict (`Verdict`) in words: the text report and the TUI compare screen."""


def difference_words(fields: list[str]) -> str:
    """A compare summary's difference keys as they read in a sentence ("endpoint, body fields")."""
    return ", ".join(_FIELD_WORDS.get(f, f) for f in fields)


def _pair_doc(pair: TurnComparison) -> PairDoc:
    return PairDoc(
        turn=pair.index,
        a_turn=pair.a.turn.number if pair.a else None,
        b_turn=pair.b.turn.number if pair.b else None,
        same=pair.same,
        endpoint=list(pair.endpoint) if pair.endpoint else None,
        transport=list(pair.transport) if pair.transport else None,
        headers=HeadersDoc(
            only_a=pair.headers_only_a,
            only_b=pair.headers_only_b,
            changed={k: list(v) for k, v in pair.headers_changed.items()},
        ),
        params={k: AB(a=a, b=b) for k, (a, b) in pair.params.items()},
        body_keys=BodyKeysDoc(only_a=pair.body_keys_only_a, only_b=pair.body_keys_only_b),
        instructions_diff=pair.instructions,
        tools=tools_doc(pair.tools),
        items_diff=pair.items,
        usage={k: AB(a=a, b=b) for k, (a, b) in pair.usage.items()},
        status=list(pair.status) if pair.status else None,
        same_structure=pair.same_structure,
        structure_diff=pair.structure,
        fragments_diff=[
            FragmentDiffDoc(fragment=f.name, a_item=f.a_item, b_item=f.b_item, diff=list(f.diff), more=f.more)
            for f in pair.fragments
        ],
        verdict=pair.verdict.value,
    )


def compare_report(comparison: Comparison) -> CompareReport:
    """The `ctxscope compare` document."""
    pairs = comparison.turns
    optional: dict[str, Any] = {}  # keys present only in some documents (left unset otherwise)
    if comparison.threads is not None:
        optional["threads"] = CompareThreadsDoc(a=comparison.threads[0], b=comparison.threads[1])
    return CompareReport(
        **_head(),
        report="compare",
        a=comparison.a.source,
        b=comparison.b.source,
        warnings=[f"A: {w}" for w in comparison.a.warnings] + [f"B: {w}" for w in comparison.b.warnings],
        notes=comparison.notes,
        summary=CompareSummary(
            turns_a=comparison.compared[0],
            turns_b=comparison.compared[1],
            same_turns=sum(1 for p in pairs if p.same),
            repeated_differences=comparison.repeated,
            identical_apart_from=comparison.identical_apart_from,
            verdicts=dict(Counter(p.verdict.value for p in pairs)),
            normalised=comparison.normalised,
            raw=comparison.raw,
        ),
        turns=[_pair_doc(p) for p in pairs],
        **optional,
    )

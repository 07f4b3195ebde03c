"""Terminal rendering of report documents with rich: colour on a terminal, plain text elsewhere.

Rendering reads only the report dict (`reports.build`), so text and JSON always agree. All dynamic
text goes through `rich.text.Text`, never markup, so brackets in labels print as they are.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from typing import Any

from rich.console import Console
from rich.text import Text

from inspector.analysis.compare import DIFFERENCE_FIELDS
from inspector.reports.build import VERDICT_WORDS, difference_words, params_to_show
from inspector.reports.models import CompareReport, DiffReport, ShowReport
from proxy.responses.vocabulary import side_label

KIND_STYLE = {
    "initial": "bold cyan",
    "append": "green",
    "rewrite": "bold yellow",
    "compaction": "bold magenta",
    "fork": "bold blue",
}


def _line(console: Console, *parts: tuple[str, str] | str) -> None:
    """One logical line; wrapped at the console width (`$COLUMNS`) rather than running past it."""
    text = Text()
    for part in parts:
        if isinstance(part, tuple):
            text.append(part[0], style=part[1])
        else:
            text.append(part)
    console.print(text, overflow="fold")


def _plural(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _tokens(doc: dict[str, Any]) -> str:
    tokens = doc["tokens"]
    est = "~" if tokens["estimated"] else ""
    return f"{est}{tokens['total']:,} tok"


def _token_detail(doc: dict[str, Any]) -> str | None:
    """What the backend reported, for its own line under the row (None when it reported nothing)."""
    tokens = doc["tokens"]
    usage = tokens["usage"]
    if usage.get("input_tokens") is None:
        return None
    return (
        f"tokens: reported {usage['input_tokens']:,}, cached {usage.get('cached_tokens') or 0:,}, "
        f"predicted cached {tokens['predicted_cached']:,}"
    )


def _turn_row(console: Console, doc: dict[str, Any]) -> None:
    change = doc["change"]
    kind = change["kind"]
    delta = f"kept {change['kept']}"
    if change["added"]:
        delta += f" +{change['added']}"
    if change["removed"]:
        delta += f" -{change['removed']}"
    status = "" if doc["status"] == "completed" else f"  [{doc['status']}]"
    if doc["transport"] != "http":
        status = f"  [{doc['transport']}]" + status
    _line(
        console,
        (f"  turn {doc['turn']:<3}", "bold"),
        (f"{kind:<11}", KIND_STYLE.get(kind, "")),
        f"{doc['items']:>4} {'item ' if doc['items'] == 1 else 'items'}  {delta:<18} {_tokens(doc)}",
        (status, "bold red"),
    )
    detail = _token_detail(doc)
    if detail:
        _line(console, "        · ", (detail, "dim"))
    events = doc.get("mode_events", [])
    # A mode event says the collaboration-mode change better ("mode default → plan (revision 2
    # approved)"); the world-state sentence for the same field would repeat it.
    switched = any(e["kind"] == "mode_change" for e in events)
    for sentence in doc["world_state_changes"]:
        if not (switched and sentence.startswith("collaboration mode ")):
            _line(console, "        · ", (sentence, "cyan"))
    for event in events:
        _line(console, "        · ", (event["sentence"], "green"))
    if doc["compaction"]:
        _line(console, "        · ", (doc["compaction"]["sentence"], "magenta"))
    frags = doc["fragments_changed"]
    if frags and kind != "compaction":  # a compaction's sentence says it better than ±fragments
        labels = " ".join(("+" if f["change"] == "added" else "-") + f["label"] for f in frags)
        _line(console, "        · fragments: ", (labels, "dim"))
    tools = doc["tools"]
    tool_bits = [f"+{n}" for n in tools["added"]] + [f"-{n}" for n in tools["removed"]]
    tool_bits += [f"~{n}" for n in tools["changed"]]
    if tool_bits:
        _line(console, "        · tools: ", (" ".join(tool_bits), "yellow"))
    elif tools["reordered"]:
        _line(console, "        · tools reordered (same tools; breaks the cached prefix)")
    if doc["instructions_changed"]:
        _line(console, "        · instructions changed")
    for name, change_ in params_to_show(doc).items():
        _line(console, f"        · {name}: {json.dumps(change_['before'])} → {json.dumps(change_['after'])}")
    for note in doc["notes"]:
        _line(console, "        · ", (note, "dim"))


def _item_line(console: Console, sign: str, item: dict[str, Any], style: str) -> None:
    _line(
        console,
        (f"    {sign} [{item['position']}] ", style),
        item["label"],
        (f"  {item['tokens']} tok", "dim"),
    )


_CONTENT_LINES = 12


def _size(chars: int) -> str:
    return f"{chars} chars" if chars < 1024 else f"{chars / 1024:.1f} KB"


def _item_content(console: Console, item: dict[str, Any]) -> None:
    """The text an added item carries (AGENTS.md, environment, a selected skill, a tool output), with
    its size; long texts show their first lines and say how many more there are."""
    # Fragment parts (AGENTS.md, environment, a skill...): a plain message's label already quotes it.
    texts = [(p["label"], p.get("text")) for p in item.get("parts") or [] if p.get("values") is not None]
    if not item.get("parts") and item.get("text") is not None:
        texts = [(item["label"], item["text"])]
    for label, text in texts:
        if not text:
            continue
        lines = text.strip("\n").splitlines()
        _line(console, (f"        {label}, {_size(len(text))}", "dim"))
        for line in lines[:_CONTENT_LINES]:
            _line(console, "          │ ", line)
        if len(lines) > _CONTENT_LINES:
            _line(console, ("          │ ", "dim"), (f"… {len(lines) - _CONTENT_LINES} more lines", "dim"))


def _world_state(console: Console, state: dict[str, Any]) -> None:
    """The world state as `key: value` lines (multi-line values such as AGENTS.md texts by path)."""
    _line(console, ("world state:", "bold"))
    for key, value in state.items():
        if value in (None, [], {}):
            continue
        if isinstance(value, dict):
            _line(console, f"  {key}:")
            for sub, inner in value.items():
                shown = inner if isinstance(inner, str) else json.dumps(inner, ensure_ascii=False)
                first = shown.strip().splitlines()[0] if shown.strip() else ""
                more = f" (+{len(shown.splitlines()) - 1} lines)" if len(shown.splitlines()) > 1 else ""
                _line(console, f"    {sub}: ", (first + more, "dim"))
        else:
            shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
            _line(console, f"  {key}: {shown}")


def _against(doc: dict[str, Any]) -> str:
    previous = doc["change"]["previous"]
    return "first turn of its thread" if previous is None else f"vs turn {previous}"


def _detail(console: Console, doc: dict[str, Any]) -> None:
    console.print()
    _line(
        console,
        (f"turn {doc['turn']} in full", "bold underline"),
        f" (thread {doc['thread']}, {_against(doc)})",
    )
    _turn_row(console, doc)
    if doc["removed_items"]:
        _line(console, ("  removed:", "bold red"))
        for item in doc["removed_items"]:
            _item_line(console, "-", item, "red")
    if doc["added_items"]:
        _line(console, ("  added:", "bold green"))
        for item in doc["added_items"]:
            _item_line(console, "+", item, "green")
            _item_content(console, item)
    if doc["instructions_diff"]:
        _line(console, ("  instructions:", "bold"))
        for line in doc["instructions_diff"]:
            style = "green" if line.startswith("+") else "red" if line.startswith("-") else "dim"
            _line(console, "    ", (line, style))
    for name, paths in doc["tools"]["changed"].items():
        _line(console, f"  tool {name}: ", ("; ".join(paths), "yellow"))
    comp = doc["compaction"]
    if comp:
        _line(console, ("  compaction:", "bold magenta"), f" {comp['sentence']}")
        for item in comp.get("summarised_items", []):
            _item_line(console, "summarised", item, "red")
        if comp["summary"]:
            _line(console, "    summary: ", (comp["summary"][:500], "italic"))
        for label in comp["rematerialised"]:
            _line(console, "    re-materialised: ", label)
    tokens = doc["tokens"]
    if tokens["unaccounted"] is not None:
        _line(
            console,
            f"  tokens: counted {tokens['total']:,}, reported {tokens['usage']['input_tokens']:,} "
            f"({tokens['unaccounted']:+,} not attributable: message framing, server-side rendering); "
            f"shared prefix {tokens['shared_prefix']:,} → predicted cached {tokens['predicted_cached']:,}, "
            f"reported cached {tokens['usage'].get('cached_tokens') or 0:,}",
        )
    _line(console, ("  tokens by kind:", "bold"))
    for kind, count in sorted(doc["tokens"]["by_kind"].items(), key=lambda kv: -kv[1]):
        _line(console, f"    {kind:<24} {count:>8,}")


_RELATIVE_KEYS = frozenset({"label", "world_state_changes", "sentence", "notes", "rematerialised"})


def _relative(value: Any, root: str, key: str | None = None) -> Any:
    """`value` with `root/...` written `./...` in labels and sentences (texts the model saw stay exact)."""
    if isinstance(value, dict):
        return {k: _relative(v, root, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_relative(v, root, key) for v in value]
    if isinstance(value, str) and key in _RELATIVE_KEYS and root in value:
        return re.sub(re.escape(root) + r"(?=/|\b|$)(?![\w.-])", ".", value)
    return value


def render_diff(report: dict[str, Any], console: Console) -> None:
    """The timeline, thread by thread; or, with `--turn`, that turn alone in full."""
    root = report.get("root")
    if root and root != "/":
        report = _relative(report, root)
    tok = report["tokenizer"]
    turns = sum(1 for t in report["turns"] if not t.get("side"))
    threads = sum(1 for t in report["threads"] if not t.get("side"))
    sides = report.get("side_requests") or {}
    beside = ", ".join(f"{side_label(k)} {n}" for k, n in sorted(sides.items()))
    _line(
        console,
        ("recording ", "bold"),
        report["source"],
        f"  ({_plural(turns, 'turn')}, {_plural(threads, 'thread')}"
        + (f"; side requests: {beside}" if beside else "")
        + f"; tokens: {tok['name']}{' (estimates)' if tok['estimated'] else ''})",
    )
    if root and root != "/":
        _line(console, ("paths ", "dim"), ("./… are relative to ", "dim"), root)
    for warning in report["warnings"]:
        _line(console, ("warning: ", "yellow"), warning)
    if report["detail"]:
        # One turn asked for: that turn only (the timeline is `ctxscope diff FILE`).
        _detail(console, report["detail"])
        return
    shown = {t["turn"] for t in report["turns"]}
    by_number = {t["turn"]: t for t in report["turns"]}
    for thread in report["threads"]:
        numbers = [n for n in thread["turns"] if n in shown]
        if not numbers:
            continue
        if thread.get("side") and len(numbers) > 1 and report["detail"] is None:
            _side_thread(console, thread, [by_number[n] for n in numbers])
            continue
        head = f"thread {thread['name']}" + (f"  id {thread['id']}" if thread["id"] else "")
        if thread.get("side"):
            head += f"  side requests ({side_label(thread['side'])})"
        if thread["forked_from"]:
            head += f"  forked from turn {thread['forked_from']}"
        _line(console, (head, "bold"))
        for run in _runs([by_number[n] for n in numbers]):
            if len(run) >= FOLD_CONTINUATIONS:
                _continuations(console, run)
            else:
                for doc in run:
                    _turn_row(console, doc)
    if not report["turns"]:
        _line(console, "no model requests in this recording")


FOLD_CONTINUATIONS = 3
"""Consecutive plain goal turns (nothing new but the continuation message) fold into one line from
this many on: a goal loop of 35 turns reads `turns 5–39  goal continuations #1–#35`."""


def _plain_continuation(doc: dict[str, Any]) -> bool:
    """A goal turn that brought only its continuation message (and the answer before it)."""
    events = doc.get("goal_events", [])
    return (
        doc["change"]["kind"] == "append"
        and [e["kind"] for e in events] == ["continuation"]
        and doc["world_state_changes"] == [events[0]["sentence"]]
        and all(f["kind"] == "goal_continuation" for f in doc["fragments_changed"])
        and not (doc.get("mode_events") or doc["notes"] or doc["instructions_changed"] or doc["params"])
        and not any(doc["tools"][k] for k in ("added", "removed", "changed", "reordered"))
        and doc["status"] == "completed"
    )


def _runs(docs: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """`docs` cut into runs: each plain continuation joins the run of the one before it."""
    runs: list[list[dict[str, Any]]] = []
    for doc in docs:
        if runs and _plain_continuation(doc) and _plain_continuation(runs[-1][-1]):
            runs[-1].append(doc)
        else:
            runs.append([doc])
    return runs


def _continuations(console: Console, run: list[dict[str, Any]]) -> None:
    first, last = run[0], run[-1]
    numbers = [e["number"] for doc in (first, last) for e in doc["goal_events"]]
    label = first["goal_events"][0]["sentence"].rsplit(" #", 1)[0]
    tokens = f"{_tokens(first)} → {_tokens(last)}"
    _line(
        console,
        (f"  turns {first['turn']}–{last['turn']}", "bold"),
        (f"  {label}s #{numbers[0]}–#{numbers[-1]}", "cyan"),
        (f"  ({len(run)} goal turns, append, {tokens})", "dim"),
    )


def _side_thread(console: Console, thread: dict[str, Any], docs: list[dict[str, Any]]) -> None:
    """Side requests (e.g. Codex's session titles) fold into one line: they are not the conversation."""
    turns = ", ".join(str(d["turn"]) for d in docs)
    failed = [d["turn"] for d in docs if d["status"] != "completed"]
    _line(
        console,
        (f"thread {thread['name']}", "bold"),
        (
            f"  {_plural(len(docs), 'side request')} ({side_label(thread['side'])}), folded: turns {turns}",
            "dim",
        ),
        (f"  [not completed: {', '.join(map(str, failed))}]" if failed else "", "bold red"),
    )


def render_show(report: dict[str, Any], console: Console) -> None:
    """The full context of one request as a compact labelled layout."""
    turn = report["turn"]
    _line(
        console,
        (f"turn {turn['turn']}", "bold"),
        f"  thread {turn['thread']}  {turn['model']}  "
        f"{turn['transport']} {turn['endpoint']}  {turn['change']['kind']}  {_tokens(turn)}",
    )
    if report["instructions"]:
        first = report["instructions"].strip().splitlines()[0] if report["instructions"].strip() else ""
        _line(
            console,
            ("instructions: ", "bold"),
            f"{len(report['instructions']):,} chars: ",
            (first[:80], "dim"),
        )
    _line(console, ("tools: ", "bold"), ", ".join(report["tools"]) or "none")
    for item in report["input"]:
        style = "cyan" if item["kind"] not in ("user_message", "assistant_message") else ""
        if item["kind"].startswith("unknown"):
            style = "bold red"
        labels = [p["codex_label"] for p in item.get("parts") or [] if p.get("codex_label")]
        _line(
            console,
            (f"  {item['position']:>3}  ", "dim"),
            (item["label"], style),
            (f"  {item['tokens']} tok", "dim"),
            (f"  codex: {', '.join(labels)}" if labels else "", "dim"),
        )
        for note in item.get("label_notes") or []:
            _line(console, ("        ! ", "yellow"), (note, "yellow"))
    _world_state(console, report["world_state"])


Segments = tuple[tuple[str, str] | str, ...]


def _difference_lines(pair: dict[str, Any], skip: Collection[str]) -> list[Segments]:
    """The lines that say how a pair differs, field by field (`DIFFERENCE_FIELDS`), but for `skip`."""
    lines: list[Segments] = []
    for key in ("endpoint", "transport", "status"):
        if pair[key] and key not in skip:
            lines.append((f"        · {key}: {pair[key][0]} ≠ {pair[key][1]}",))
    headers = pair["headers"]
    if (headers["only_a"] or headers["only_b"] or headers["changed"]) and "headers" not in skip:
        bits = [f"-{h}" for h in headers["only_a"]] + [f"+{h}" for h in headers["only_b"]]
        bits += [f"~{h}" for h in headers["changed"]]
        lines.append(("        · headers: ", " ".join(bits)))
    if "params" not in skip:
        for name, values in pair["params"].items():
            lines.append((f"        · {name}: {json.dumps(values['a'])} ≠ {json.dumps(values['b'])}",))
    keys = pair["body_keys"]
    if (keys["only_a"] or keys["only_b"]) and "body_keys" not in skip:
        bits = [f"-{k}" for k in keys["only_a"]] + [f"+{k}" for k in keys["only_b"]]
        lines.append(("        · body fields: " + " ".join(bits),))
    if pair["instructions_diff"] and "instructions_diff" not in skip:
        lines.append((f"        · instructions differ ({len(pair['instructions_diff'])} diff lines)",))
    tools = pair["tools"]
    bits = [f"-{n}" for n in tools["removed"]] + [f"+{n}" for n in tools["added"]]
    bits += [f"~{n}" for n in tools["changed"]]
    if bits and "tools" not in skip:
        lines.append(("        · tools: ", " ".join(bits)))
    if "items_diff" not in skip:
        for line in pair["items_diff"]:
            lines.append(("        · items ", (line, "green" if line.startswith("+") else "red")))
    if "fragments_diff" not in skip:
        for fragment in pair.get("fragments_diff", []):
            where = f"A item #{fragment['a_item']}, B item #{fragment['b_item']}"
            lines.append(("        · ", (fragment["fragment"], "bold"), f" text differs ({where}):"))
            for line in fragment["diff"]:
                lines.append(("            ", (line, "green" if line.startswith("+") else "red")))
            if fragment.get("more"):
                lines.append((f"            … {fragment['more']} more changed lines",))
    return lines


def _repeated_summary(report: dict[str, Any], console: Console) -> frozenset[str]:
    """Differences every aligned pair shares, said once ("identical apart from: endpoint"); the fields."""
    summary = report["summary"]
    repeated = summary.get("repeated_differences") or []
    aligned = [p for p in report["turns"] if p["a_turn"] is not None and p["b_turn"] is not None]
    if not repeated or not aligned:
        return frozenset()
    words = difference_words(repeated)
    if summary.get("identical_apart_from"):
        _line(
            console,
            ("identical apart from: ", "bold"),
            words,
            (f"  (all {len(aligned)} aligned turns)", "dim"),
        )
    else:
        _line(
            console, ("every aligned turn differs in: ", "bold"), words, ("  (the same way each time)", "dim")
        )
    for segments in _difference_lines(aligned[0], skip=set(DIFFERENCE_FIELDS) - set(repeated)):
        _line(console, *segments)
    return frozenset(repeated)


_VERDICT_STYLES = {"same": "green", "same_apart": "green", "differs": "yellow"}


def render_compare(report: dict[str, Any], console: Console) -> None:
    """Two recordings side by side, turn by turn; differences every turn shares are said once."""
    summary = report["summary"]
    threads = report.get("threads") or {}
    for side in ("a", "b"):
        thread = f"  thread {threads[side]}" if threads else ""
        count = _plural(summary[f"turns_{side}"], "turn")
        _line(console, (f"{side.upper()} ", "bold"), report[side], f"{thread}  ({count})")
    for warning in report["warnings"]:
        _line(console, ("warning: ", "yellow"), warning)
    for note in report["notes"]:
        _line(console, ("note: ", "yellow"), note)
    repeated = _repeated_summary(report, console)
    for pair in report["turns"]:
        row = (f"  turn {pair['turn']:<3}", "bold")
        if pair["a_turn"] is None or pair["b_turn"] is None:
            side, number = ("B", pair["b_turn"]) if pair["a_turn"] is None else ("A", pair["a_turn"])
            _line(console, row, (f"only in {side}", "yellow"), (f"  ({side}'s turn {number})", "dim"))
            continue
        said = pair.get("verdict", "differs")
        verdict = (VERDICT_WORDS.get(said, said), _VERDICT_STYLES.get(said, "yellow"))
        numbers = (
            ""  # the recordings' own turn numbers, when the row number is not both of them
            if pair["a_turn"] == pair["b_turn"] == pair["turn"]
            else f"  (A's turn {pair['a_turn']}, B's turn {pair['b_turn']})"
        )
        _line(console, row, verdict, (numbers, "dim"))
        if pair.get("same_structure"):
            _line(console, (f"        turn {pair['turn']}: same structure", "green"))
        for line in pair.get("structure_diff", []):
            _line(console, (f"        turn {pair['turn']}: structure differs: {line}", "yellow"))
        for segments in _difference_lines(pair, skip=repeated):
            _line(console, *segments)
        usage = pair["usage"]
        if usage:
            _line(
                console,
                "        · usage: " + ", ".join(f"{k} {v['a']}/{v['b']}" for k, v in usage.items()),
                ("  (A/B)", "dim"),
            )


def render_text(report: DiffReport | ShowReport | CompareReport | dict[str, Any], console: Console) -> None:
    """Render any report document (a model, or its `wire()` form)."""
    doc = report if isinstance(report, dict) else report.wire()
    {"diff": render_diff, "show": render_show, "compare": render_compare}[doc["report"]](doc, console)

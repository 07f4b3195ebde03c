"""The real Codex spawning a subagent, recorded with `ctxscope run`, is one tree in every view.

At each release the suite follows (0.169.0 pinned, 0.171.0 the newest), `ctxscope run -- codex exec`
against a local upstream that plays the model: the parent's first request is answered with
`spawn_agent` (in the namespace tool Codex lists in its tools[]: `multi_agent_v1` by default,
`collaboration` with the `multi_agent_v2` feature on), the spawned agent's request (its own thread id,
`thread_source: subagent`) with a message, the parent's next one with `wait_agent`, and the parent's
last one (the wait's status and Codex's notification of the child's end in its input) with the final
message. Each answer reports its own usage, so each agent's cost is known by hand: `info`, `show`,
`cost --by agent` and the HTML report (in a real headless Chromium) must each show the one tree, each
agent with its requests and cost.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from ctxscope.proxy.testing import FakeUpstream, RecordedRequest, SseReply, function_call, response_stream, text_message
from ctxscope.proxy.testing import usage as usage_of
from tests.cli_support import run_cli
from tests.inspector.one_account import assert_one_account
from tests.proxy.replay.codex_support import CODEX_VERSIONS, RUN_TIMEOUT_S, codex_binary, write_config

pytestmark = pytest.mark.slow

CTXSCOPE = Path(sys.executable).parent / "ctxscope"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
PROMPT = "spawn a helper to say hi"
TASK = "Say hi and stop."


@dataclass(frozen=True)
class Flavour:
    """One of Codex's multi-agent tool sets, as observed (docs/cost.md)."""

    name: str
    config: str
    namespace: str
    spawn: dict[str, Any]
    task: str | None
    """v2: the task name the spawn asks for (the agent is `/root/<task>`); v1 names agents itself."""

    def wait(self, spawned: dict[str, Any]) -> dict[str, Any]:
        if self.task is None:
            return {"targets": [spawned["agent_id"]], "timeout_ms": 30_000}
        return {"timeout_ms": 30_000}  # v2 waits on any agent's mailbox


FLAVOURS = {
    "v1": Flavour("v1", "", "multi_agent_v1", {"message": TASK}, None),
    "v2": Flavour(
        "v2",
        "[features]\nmulti_agent_v2 = true\n",
        "collaboration",
        {"message": TASK, "task_name": "helper", "fork_turns": "none"},
        "helper",
    ),
}
PRICE = {"input": 1.25, "cached_input": 0.125, "output": 10.0}
USAGE = {  # what each answer reports: (input, cached, output, reasoning)
    "spawn": (4_500, 3_000, 41, 10),
    "wait": (5_000, 3_000, 30, 8),
    "final": (6_000, 4_000, 10, 0),
    "child": (5_500, 3_000, 20, 5),
}


def _usd(step: str) -> float:
    """The issue's formula at PRICE for one answer's usage (no cache writes reported)."""
    inp, cached, out, _ = USAGE[step]
    return ((inp - cached) * PRICE["input"] + cached * PRICE["cached_input"] + out * PRICE["output"]) / 1e6


def _meta(request: RecordedRequest) -> dict[str, Any]:
    value = json.loads(request.headers.get("x-codex-turn-metadata") or "{}")
    return value if isinstance(value, dict) else {}


def _outputs(request: RecordedRequest) -> dict[str, str]:
    items = request.json().get("input", [])
    return {i["call_id"]: i.get("output") for i in items if i.get("type") == "function_call_output"}


def _model(flavour: Flavour, request: RecordedRequest) -> SseReply:
    """The fake model, deciding by what the request holds (the child and the parent may interleave)."""

    def reply(step: str, item: list[dict[str, Any]]) -> SseReply:
        inp, cached, out, reasoning = USAGE[step]
        reported = usage_of(input_tokens=inp, output_tokens=out, cached_tokens=cached, reasoning_tokens=reasoning)
        return SseReply(response_stream(item, model="gpt-5-codex", usage=reported))

    if _meta(request).get("thread_source") == "subagent":
        return reply("child", text_message("child done"))
    outputs = _outputs(request)
    if "call_wait" in outputs:
        return reply("final", text_message("parent done"))
    space = flavour.namespace
    if "call_spawn" in outputs:
        wait = flavour.wait(json.loads(outputs["call_spawn"]))
        return reply("wait", function_call("wait_agent", wait, call_id="call_wait", namespace=space))
    return reply("spawn", function_call("spawn_agent", flavour.spawn, call_id="call_spawn", namespace=space))


def _spawn_tools(request: RecordedRequest, namespace: str) -> list[str]:
    """The functions of the namespace tool `namespace` in the request's tools[]."""
    tools = request.json().get("tools", [])
    spaces = [t for t in tools if t.get("type") == "namespace" and t.get("name") == namespace]
    return [f["name"] for space in spaces for f in space.get("tools", [])]


def _record(
    tmp_path: Path, version: str, model: Callable[[RecordedRequest], SseReply], config: str
) -> tuple[Path, subprocess.CompletedProcess[str], list[RecordedRequest]]:
    """`ctxscope run -- codex exec PROMPT` at `version` against the local `model`: the recording, the
    run, and the requests the model got."""
    binary = codex_binary(version)
    home, user, repo = tmp_path / "codex-home", tmp_path / "user", tmp_path / "repo"
    user.mkdir()
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    recording = tmp_path / "subagent.jsonl"
    env = {**os.environ, "CODEX_HOME": str(home), "HOME": str(user), "LOCAL_KEY": "x"}
    with FakeUpstream(handler=model) as upstream:
        write_config(home, upstream.url, extra=config)
        command = [str(CTXSCOPE), "run", "--out", str(recording), "--"]
        command += [str(binary), "exec", "--skip-git-repo-check", PROMPT]
        done = subprocess.run(
            command, cwd=repo, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=RUN_TIMEOUT_S
        )
        return recording, done, list(upstream.requests)


def _browser(page_file: Path, shot: Path, check: Callable[[Any], None]) -> None:
    """Open the report in a real headless Chromium (network off), run `check` on the page, then a
    screenshot; no console error."""
    if CHROMIUM is None:
        pytest.skip("Debian's chromium is not installed: the report's agents pane is not looked at")
    playwright = pytest.importorskip("playwright.sync_api", reason="playwright is a dev dependency")
    errors: list[str] = []
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_context(offline=True, viewport={"width": 1400, "height": 800}).new_page()
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.goto(page_file.as_uri())
            page.wait_for_function("document.getElementById('status').textContent.startsWith('turn 1 of')")
            check(page)
            page.screenshot(path=str(shot))
        finally:
            browser.close()
    assert errors == []


@pytest.mark.parametrize("flavour", sorted(FLAVOURS))
@pytest.mark.parametrize("version", CODEX_VERSIONS)
def test_a_real_codex_subagent_is_one_tree_in_every_view(tmp_path: Path, version: str, flavour: str) -> None:
    kind = FLAVOURS[flavour]
    recording, done, sent = _record(tmp_path, version, lambda request: _model(kind, request), kind.config)
    first = next(r for r in sent if PROMPT in json.dumps(r.json().get("input", [])[-1:]))
    offered = _spawn_tools(first, kind.namespace)
    if "spawn_agent" not in offered:
        namespaces = [t.get("name") for t in first.json().get("tools", []) if t.get("type") == "namespace"]
        pytest.skip(f"Codex {version} offers no {kind.namespace}.spawn_agent (namespace tools: {namespaces})")
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    assert "parent done" in done.stdout

    # What Codex sent, as observed (docs/cost.md): the namespace tool, the child's own thread and headers
    assert {"spawn_agent", "wait_agent"} <= set(offered)
    children = [r for r in sent if _meta(r).get("thread_source") == "subagent"]
    assert len(children) == 1 and len(sent) == 4, [_meta(r).get("thread_source") for r in sent]
    child = children[0]
    spawned = json.loads(next(_outputs(r)["call_spawn"] for r in sent if "call_spawn" in _outputs(r)))
    assert _meta(child)["parent_thread_id"] == _meta(first)["thread_id"] != _meta(child)["thread_id"]
    assert child.headers.get("x-openai-subagent") == "collab_spawn"
    if kind.task is None:  # v1: the agent is named by Codex and known by its thread id
        nickname, agent_id, path = spawned["nickname"], spawned["agent_id"], f"main/{spawned['nickname']}"
        assert _meta(child)["thread_id"] == agent_id and _meta(child)["agent_name"] == "/root"
        assert child.json()["input"][-1]["content"][0]["text"] == TASK
    else:  # v2: the agent is the task path its spawn asked for, its task an agent_message
        assert spawned == {"task_name": f"/root/{kind.task}"} and _meta(child)["agent_name"] == f"/root/{kind.task}"
        nickname, agent_id, path = kind.task, _meta(child)["thread_id"], f"main/{kind.task}"
        assert child.json()["input"][-1]["type"] == "agent_message"
    assert _spawn_tools(child, kind.namespace) == [], "the spawned agent is offered no agents of its own"

    analysis = assert_one_account(recording)
    numbers = {r.turn.number: r for r in analysis.turns}
    child_turn = next(
        n for n, r in numbers.items() if r.turn.exchange.request_headers.get("x-openai-subagent") == "collab_spawn"
    )
    parent_turns = [n for n in numbers if n != child_turn]
    spawn_turn = next(n for n in parent_turns if any(i.call_id == "call_spawn" for i in numbers[n].answer.items))
    result_turn = next(n for n in parent_turns if any(i.call_id == "call_wait" for i in numbers[n].answer.items))
    final_turn = next(n for n in parent_turns if n not in (spawn_turn, result_turn))
    parent_usd = _usd("spawn") + _usd("wait") + _usd("final")
    link = f"spawned by main in turn {spawn_turn}, result in turn {result_turn}, returned in turn {final_turn}"
    prices = tmp_path / "prices.toml"
    prices.write_text('[models."gpt-5-codex"]\n' + "".join(f"{k} = {v}\n" for k, v in PRICE.items()))
    priced = {"CTXSCOPE_PRICES": str(prices)}

    # info: the tree, each agent with its threads, requests and cost
    info = run_cli("info", str(recording), env=priced).stdout
    assert f"agents      main  T1  3 requests  ${parent_usd:,.4f}" in info, info
    assert f"            └ {nickname}  T2  1 requests  ${_usd('child'):,.4f}  ({link})" in info, info

    # show: the agent of each turn, by name and path, with its parent and cost
    shown = run_cli("show", str(recording), "--turn", str(child_turn), env=priced).stdout
    assert f"agent: {nickname}  {path}  T2  1 request  ${_usd('child'):,.4f}  {link}" in shown, shown
    assert f"agent: main  main (the root)  T1  3 requests  ${parent_usd:,.4f}" in run_cli(
        "show", str(recording), "--turn", str(spawn_turn), env=priced
    ).stdout
    doc = json.loads(run_cli("show", str(recording), "--turn", str(child_turn), "-f", "json", env=priced).stdout)
    assert doc["turn"]["agent"] == nickname
    assert {k: doc["agent"][k] for k in ("name", "path", "agent_id", "parent", "turns")} == {
        "name": nickname,
        "path": path,
        "agent_id": agent_id,
        "parent": "main",
        "turns": [child_turn],
    }

    # cost --by agent: each agent's requests and cost, adding up to the total
    costs = json.loads(run_cli("cost", str(recording), "--prices", str(prices), "--format", "json").stdout)
    agents = {a["agent"]: a for a in costs["agents"]}
    assert set(agents) == {"main", nickname}
    assert agents["main"]["requests"] == 3 and agents[nickname]["requests"] == 1
    assert agents["main"]["usd"] == pytest.approx(parent_usd)
    assert agents[nickname]["usd"] == pytest.approx(_usd("child"))
    assert costs["total"]["usd"] == pytest.approx(parent_usd + _usd("child"))
    by_agent = run_cli("cost", str(recording), "--prices", str(prices), "--by", "agent").stdout
    assert f"{nickname:<24} {1:>8}" in by_agent and f"${_usd('child'):,.4f}" in by_agent, by_agent

    # the HTML report: the agents pane is the tree; an agent's click shows its turns, a turn link its parent's
    page_file = tmp_path / "report.html"
    made = run_cli("report", str(recording), "-o", str(page_file), env=priced)
    assert made.returncode == 0, made.stderr

    def check(page: Any) -> None:
        rows = page.locator("#agents .agent").all_inner_texts()
        assert len(rows) == 2, rows
        assert rows[0].startswith("main  T1  3 requests") and f"${parent_usd:,.4f}" in rows[0]
        assert rows[1].startswith(f"└ {nickname}  T2  1 request") and f"${_usd('child'):,.4f}" in rows[1]
        assert f"spawned by main in turn {spawn_turn}" in rows[1]
        page.click(f"#agents .agent[data-agent='{nickname}'] .name")
        assert page.locator("#timeline .row").count() == 1
        shown_turn = page.inner_text("#turn")
        assert shown_turn.startswith(f"Turn {child_turn} ") and f"agent {nickname} {path}" in shown_turn
        page.click(f"#agents .agent[data-agent='{nickname}'] .name")  # again: every turn
        assert page.locator("#timeline .row").count() == 4
        page.click("#agents .agent[data-agent='main'] .name")
        assert page.locator("#timeline .row").count() == 3 and page.inner_text("#turn").startswith("Turn 1 ")
        page.click(f"#agents .agent[data-agent='{nickname}'] .name")
        page.click(f"#turn .go[data-turn='{spawn_turn}']")  # to the parent's spawn call, every turn again
        assert page.inner_text("#turn").startswith(f"Turn {spawn_turn} ")
        assert "spawn_agent" in page.inner_text("#turn .answer")
        assert page.locator("#timeline .row").count() == 4

    _browser(page_file, tmp_path / f"agents-{version}-{flavour}.png", check)


GRANDCHILD_TASK = "Grandchild: say hi."


def _nested_model(request: RecordedRequest) -> SseReply:
    """v1 two levels deep: the parent spawns a child, which spawns a grandchild and waits on it."""
    meta = _meta(request)
    if meta.get("thread_source") != "subagent":
        return _model(FLAVOURS["v1"], request)
    items = request.json().get("input", [])
    outputs = _outputs(request)
    reported = usage_of(input_tokens=5_500, output_tokens=20, cached_tokens=3_000)

    def reply(item: list[dict[str, Any]]) -> SseReply:
        return SseReply(response_stream(item, model="gpt-5-codex", usage=reported))

    if GRANDCHILD_TASK in json.dumps(items[-1:]):
        return reply(text_message("grandchild done"))
    if "call_spawn2" not in outputs:
        spawn = {"message": GRANDCHILD_TASK}
        return reply(function_call("spawn_agent", spawn, call_id="call_spawn2", namespace="multi_agent_v1"))
    if "call_wait2" not in outputs:
        wait = FLAVOURS["v1"].wait(json.loads(outputs["call_spawn2"]))
        return reply(function_call("wait_agent", wait, call_id="call_wait2", namespace="multi_agent_v1"))
    return reply(text_message("child done"))


def test_a_real_codex_agent_spawned_by_a_spawned_agent_hangs_under_it(tmp_path: Path) -> None:
    """`[agents] max_depth = 3` lets the spawned agent spawn one of its own: three levels, one tree."""
    recording, done, sent = _record(tmp_path, CODEX_VERSIONS[-1], _nested_model, "[agents]\nmax_depth = 3\n")
    assert done.returncode == 0 and "parent done" in done.stdout, (done.stdout + done.stderr)[-3000:]
    spawns = [json.loads(_outputs(r)[c]) for c in ("call_spawn", "call_spawn2") for r in sent if c in _outputs(r)]
    child, grandchild = spawns[0]["nickname"], spawns[-1]["nickname"]
    by_thread = {_meta(r)["thread_id"]: _meta(r).get("parent_thread_id") for r in sent}
    assert by_thread[spawns[-1]["agent_id"]] == spawns[0]["agent_id"], "the grandchild's parent is the child"

    doc = json.loads(run_cli("diff", str(recording), "--format", "json").stdout)
    tree = [(a["name"], a["path"], a["parent"], a["requests"]) for a in doc["agents"]]
    assert tree == [
        ("main", "main", None, 3),
        (child, f"main/{child}", "main", 3),  # its task, the spawn call's result, the wait's
        (grandchild, f"main/{child}/{grandchild}", child, 1),
    ]
    info = run_cli("info", str(recording)).stdout
    assert f"\n            └ {child}  T2  3 requests" in info
    assert f"\n              └ {grandchild}  T3  1 requests" in info
    grand = doc["agents"][2]
    shown = run_cli("show", str(recording), "--turn", str(grand["turns"][0])).stdout
    assert f"agent: {grandchild}  main/{child}/{grandchild}  T3  1 request" in shown
    assert f"spawned by {child} in turn {grand['spawned_in']}" in shown
    page_file = tmp_path / "report.html"
    assert run_cli("report", str(recording), "-o", str(page_file)).returncode == 0

    def check(page: Any) -> None:
        rows = page.locator("#agents .agent").all_inner_texts()
        assert [r[: r.index("  T")] for r in rows] == ["main", f"└ {child}", f"  └ {grandchild}"], rows
        page.click(f"#agents .agent[data-agent='{grandchild}'] .name")
        assert page.locator("#timeline .row").count() == 1

    _browser(page_file, tmp_path / "agents-nested.png", check)

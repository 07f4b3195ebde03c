"""Path mapping between the recorded and the live checkout, learned from the requests compared."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from ctxscope.proxy.model import SseEvent
from ctxscope.proxy.replay import CassetteTransport
from ctxscope.proxy.replay.normalise import Normaliser
from ctxscope.proxy.replay.paths import (
    PathMap,
    infer_roots,
    parse_map_path,
    request_cwds,
    request_workspaces,
    request_writable_roots,
    skill_owners,
    suggest_map_path,
)
from ctxscope.proxy.testing import SseReply, custom_tool_call, function_call, response_stream
from tests.proxy.replay.replay_support import Run, codex_body, headers, post, record_session


def codex_like(root: str, codex_home: str, cwd: str) -> dict[str, object]:
    """The path-bearing parts of a Codex request: skill roots, a selected skill, env context, metadata."""
    catalog = (
        "<skills_instructions>\n### Skill roots\n"
        f"- `r0` = `{codex_home}/skills`\n- `r1` = `{codex_home}/skills/.system`\n</skills_instructions>"
    )
    skill = f"<skill>\n<name>demo</name>\n<path>{codex_home}/skills/demo/SKILL.md</path>\nSay DEMO.\n</skill>"
    env = f"<environment_context>\n  <cwd>{cwd}</cwd>\n</environment_context>"
    meta = {"workspaces": {root: {"has_changes": True}}, "turn_id": "t"}
    return {
        "input": [
            {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": catalog}]},
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": env}]},
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": skill}]},
        ],
        "client_metadata": {"x-codex-turn-metadata": json.dumps(meta)},
    }


def test_the_common_suffix_of_the_two_cwds_is_stripped() -> None:
    assert infer_roots("/home/ann/w/repo", "/srv/ci/w-second/repo") == ("/home/ann/w", "/srv/ci/w-second")
    assert infer_roots("/a/x/repo/pkg", "/b/x/repo/pkg") == ("/a", "/b")
    assert infer_roots("/repo", "/srv/repo") == ("/repo", "/srv/repo")  # a root is never `/`
    assert infer_roots("/same/place", "/same/place") is None


def test_cwds_workspaces_and_skill_owners_are_read_from_the_request() -> None:
    body = codex_like("/a/w/repo", "/a/codex-home", "/a/w/repo/pkg")
    assert request_cwds(body) == ["/a/w/repo/pkg"]
    assert request_workspaces(body) == ["/a/w/repo"]
    assert skill_owners(body) == ["/a/codex-home"]
    # ~/.codex and ~/.agents stand for the home that holds them
    assert skill_owners("`/home/ann/.agents/skills` and /home/bob/.codex/skills/x/SKILL.md") == [
        "/home/ann",
        "/home/bob",
    ]


def test_a_codex_home_beside_the_checkout_maps_and_both_sides_normalise_alike() -> None:
    recorded = codex_like("/a/w/repo", "/a/codex-home", "/a/w/repo/pkg")
    live = codex_like("/b/w-second/repo", "/b/other-home", "/b/w-second/repo/pkg")
    paths = PathMap()
    assert paths.learn(recorded, live)
    assert paths.recorded == {"/a/w": "<root>", "/a/codex-home": "<home>"}
    assert paths.live == {"/b/w-second": "<root>", "/b/other-home": "<home>"}
    rec_side, live_side = Normaliser(roots=paths.recorded), Normaliser(roots=paths.live)
    assert rec_side.body(recorded) == live_side.body(live)
    assert "<home>/skills/demo/SKILL.md" in json.dumps(rec_side.body(recorded))
    assert not paths.learn(recorded, live)  # nothing new the second time


def test_the_process_cwds_are_used_only_when_a_request_names_none() -> None:
    paths = PathMap()
    paths.learn({"input": "<cwd>/a/repo</cwd>"}, {"input": "<cwd>/b/repo</cwd>"}, "/x", "/launched/here")
    assert paths.live == {"/b": "<root>"}
    bare = PathMap()
    rec, live = {"input": "/home/ann/proj/x.py"}, {"input": "/srv/ci/proj/x.py"}
    bare.learn(rec, live, "/home/ann/proj", "/srv/ci/proj")
    assert bare.recorded == {"/home/ann": "<root>"} and bare.live == {"/srv/ci": "<root>"}


def test_a_prewarm_naming_no_directory_does_not_fix_the_roots() -> None:
    # Codex's WebSocket prewarm holds only the base prompt: the pair it falls back to (the recording's
    # cwd, a replayer started in an unrelated directory) gives way to what the next frame names.
    paths = PathMap()
    prewarm = {"input": [{"type": "message", "role": "developer", "content": [{"text": "You are Codex."}]}]}
    assert paths.learn(prewarm, prewarm, "/a/w/repo", "/srv/unrelated")
    assert "from the processes' cwds" in paths.describe()
    assert paths.learn(codex_like("/a/w/repo", "/a/home", "/a/w/repo"), codex_like("/b/w2/repo", "/b/h", "/b/w2/repo"))
    assert paths.recorded["/a/w"] == paths.live["/b/w2"] == "<root>"
    assert "/a/w/repo" not in paths.recorded and "/srv/unrelated" not in paths.live
    recorded, live = (Normaliser(roots=side) for side in (paths.recorded, paths.live))
    assert recorded.text("<cwd>/a/w/repo</cwd>") == live.text("<cwd>/b/w2/repo</cwd>") == "<cwd><root>/repo</cwd>"
    assert paths.describe().startswith("recorded /a/w = live /b/w2 (<root>)")


def test_writable_roots_are_paired_and_a_mismatch_suggests_a_map_path() -> None:
    text = "The writable roots are `/tmp`, `/a/w/repo`, `/a/extra`.\n"
    assert request_writable_roots({"input": [{"content": [{"text": text}]}]}) == ["/tmp", "/a/w/repo", "/a/extra"]
    suggested = suggest_map_path("roots `/tmp`, `<root>/repo`, `/a/data/x`.", "roots `/tmp`, `<root>/repo`, `/b/d2/x`.")
    assert suggested == "--map-path /a/data=/b/d2"
    assert suggest_map_path("no paths", "none here") is None


def test_a_user_mapping_and_its_errors() -> None:
    assert parse_map_path("/old/place=/new/place/") == ("/old/place", "/new/place")
    for bad in ("/only-one", "relative=/x", "/x="):
        with pytest.raises(ValueError, match="--map-path wants OLD=NEW"):
            parse_map_path(bad)
    paths = PathMap()
    paths.add("/opt/tools", "/usr/local/tools", "mapped")
    rec, live = Normaliser(roots=paths.recorded), Normaliser(roots=paths.live)
    assert rec.text("/opt/tools/bin/x") == live.text("/usr/local/tools/bin/x") == "<mapped>/bin/x"
    assert live.text("/usr/local/tools-2/bin") == "/usr/local/tools-2/bin"  # a path ends at a component


def _learned() -> PathMap:
    paths = PathMap()
    paths.learn(
        codex_like("/a/w/repo", "/a/codex-home", "/a/w/repo"),
        codex_like("/b/w-second/repo", "/b/other-home", "/b/w-second/repo"),
    )
    return paths


def test_recorded_paths_in_an_answer_are_written_as_live_ones() -> None:
    paths = _learned()
    assert paths.to_live("*** Add File: /a/w/repo/notes.txt") == "*** Add File: /b/w-second/repo/notes.txt"
    assert paths.to_live("/a/codex-home/skills/x and /a/w-2/y") == "/b/other-home/skills/x and /a/w-2/y"
    assert PathMap().to_live("/a/w/repo") == "/a/w/repo"  # nothing learned, nothing changed


def test_a_path_split_between_streamed_deltas_is_mapped_and_the_deltas_still_add_up() -> None:
    patch = "*** Begin Patch\n*** Add File: /a/w/repo/notes.txt\n+hi\n*** End Patch\n"
    cut = ["*** Begin Patch\n*** Add File: /a/", "w/repo/notes.txt\n+hi\n", "*** End Patch\n"]  # inside /a/w
    events: list[SseEvent] = []
    for i, event in enumerate(response_stream(custom_tool_call("apply_patch", patch, chunks=1))):
        if event["type"] == "response.custom_tool_call_input.delta":
            events += [
                SseEvent(t_ms=i, event=event["type"], data=json.dumps({**event, "delta": c})) for c in cut
            ]
        else:
            events.append(SseEvent(t_ms=i, event=event["type"], data=json.dumps(event)))

    served = _learned().events_to_live(events)
    live = patch.replace("/a/w/repo", "/b/w-second/repo")
    pieces = [
        json.loads(e.data)["delta"] for e in served if e.event == "response.custom_tool_call_input.delta"
    ]
    assert pieces == ["*** Begin Patch\n*** Add File: /b/w-second", "/repo/notes.txt\n+hi\n", cut[2]]
    done = [json.loads(e.data) for e in served if e.event == "response.output_item.done"]
    assert done[0]["item"]["input"] == live
    assert "/a/w" not in "".join(e.data for e in served)
    assert served[0] is events[0]  # an event naming no recorded path is served as recorded


def test_a_replayed_tool_call_names_the_live_checkout(tmp_path: Path) -> None:
    recorded = Run(cwd="/home/ann/w/repo")
    notes = "*** Begin Patch\n*** Add File: /home/ann/w/repo/notes.txt\n+hi\n*** End Patch\n"
    calls = response_stream(
        custom_tool_call("apply_patch", notes),
        function_call("exec_command", {"cmd": "ls", "workdir": recorded.cwd}),
    )
    cassette = record_session(
        tmp_path / "tools.jsonl",
        {"cwd": recorded.cwd},
        [SseReply(calls)],
        lambda url: [post(url, codex_body(recorded, 1), recorded)],
    )
    live = Run(cwd="/srv/ci/w-second/repo")
    transport = CassetteTransport(cassette, live_cwd="/somewhere/else")
    with httpx.Client(transport=transport, base_url="http://cassette.invalid") as client:
        answer = client.post("/v1/responses", json=codex_body(live, 1), headers=headers(live))
    assert answer.status_code == 200 and transport.report.problems() == []
    done = [json.loads(line[6:]) for line in answer.text.splitlines() if line.startswith("data: ")]
    items = [e["item"] for e in done if e["type"] == "response.output_item.done"]
    assert items[0]["input"] == notes.replace("/home/ann/w", "/srv/ci/w-second")
    assert json.loads(items[1]["arguments"])["workdir"] == live.cwd
    assert "/home/ann" not in answer.text


def test_a_path_mismatch_names_the_roots_and_the_map_path_that_would_pair_it(tmp_path: Path) -> None:
    recorded = Run(cwd="/home/ann/w/repo")
    cassette = record_session(
        tmp_path / "data.jsonl",
        {"cwd": recorded.cwd},
        [SseReply(response_stream())],
        lambda url: [post(url, codex_body(recorded, 1, "read /home/ann/data/x.csv"), recorded)],
    )
    live = Run(cwd="/srv/ci/w-second/repo")
    transport = CassetteTransport(cassette, live_cwd="/somewhere/else")
    with httpx.Client(transport=transport, base_url="http://cassette.invalid") as client:
        answer = client.post("/v1/responses", json=codex_body(live, 1, "read /srv/ci/d2/x.csv"), headers=headers(live))
    assert answer.status_code == 400
    [mismatch] = transport.report.mismatches
    assert mismatch.differences[-1] == (
        "paths: roots inferred: recorded /home/ann/w = live /srv/ci/w-second (<root>); "
        "to pair what they miss: --map-path /home/ann/data=/srv/ci/d2"
    )

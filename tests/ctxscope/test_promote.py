"""`ctxscope promote`: a turn of a real harness recording becomes a cassette that the same harness, run
again, is served from strictly; a changed AGENTS.md is then caught at the promoted turn."""

from __future__ import annotations

import json
from pathlib import Path

from ctxscope.harness.runtime import AgentOptions, AgentRuntime
from ctxscope.proxy.errors import CtxscopeError
from ctxscope.proxy.replay import load_cassette, serve_cassette
from ctxscope.proxy.store import read_recording
from tests.cli_support import run_cli
from tests.harness.harness_support import make_repo, write_script

PROMPTS = ("say hi", "now say bye")


def _run(repo: Path, tmp: Path, **options: object) -> None:
    """The two-prompt session of ctxscope's agent in `repo` (stopping at the first refused request)."""
    settings = AgentOptions(cwd=repo, sessions_dir=tmp / "sessions", approval="never", **options)  # type: ignore[arg-type]
    with AgentRuntime(settings) as runtime:
        assert runtime.agent is not None
        for prompt in PROMPTS:
            try:
                runtime.agent.run_turn(prompt)
            except CtxscopeError:
                return


def test_a_promoted_turn_replays_into_the_same_client_and_catches_a_change(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    script = write_script(tmp_path / "s.json", [{"text": "hi"}, {"text": "bye"}])
    recording = tmp_path / "session.jsonl"
    _run(repo, tmp_path, provider="script", script=script, capture=recording)
    assert len(read_recording(recording).model_requests()) == 2

    cassette = tmp_path / "cassettes" / "first.jsonl"
    result = run_cli("promote", str(recording), "--turn", "1", "-o", str(cassette))
    assert result.returncode == 0, result.stderr
    assert f"wrote {cassette}: 1 exchanges, 1 model requests (turn 1 is the last)" in result.stderr
    # the test goes beside the cassette (no tests/ above it): the marker names it from there
    assert f"# the test, for {cassette.parent / 'test_first.py'}:" in result.stderr
    marker = '@pytest.mark.ctxscope_cassette("first.jsonl", in_process=True, past_end="allow")'
    assert (
        marker in result.stdout
        and "replay_agent(ctxscope_cassette, PROJECT, tmp_path, PROMPTS, files=AGENTS_FILES)" in result.stdout
    )
    original, promoted = read_recording(recording), read_recording(cassette)
    assert promoted.header.meta["promoted_turn"] == 1
    assert promoted.exchanges[0].request_body == original.exchanges[0].request_body
    assert [e.data for e in promoted.exchanges[0].sse] == [e.data for e in original.exchanges[0].sse]

    config = tmp_path / "config.toml"
    config.write_text('[providers.cassette]\nbase_url = "http://127.0.0.1:9/v1"\n')

    def replay() -> object:
        with serve_cassette(cassette, match="strict") as server:
            _run(
                repo,
                tmp_path,
                provider="cassette",
                base_url=f"{server.url}/v1",
                config_path=config,
                no_capture=True,
            )
            return server.report

    same = replay()
    assert same.served == 1 and same.mismatches == [] and same.exhausted == ["POST /v1/responses"]
    (repo / "AGENTS.md").write_text("Run the tests before you finish. Never guess.\n", encoding="utf-8")
    changed = replay()
    assert changed.served == 0 and len(changed.mismatches) == 1
    assert any("(AGENTS.md) differs" in d for d in changed.mismatches[0].differences)
    assert len(load_cassette(cassette).model_entries) == 1


def test_bad_input_is_one_line_and_nothing_is_overwritten(tmp_path: Path) -> None:
    recording = Path(__file__).resolve().parents[1] / "fixtures" / "inspector" / "world.jsonl"
    before = recording.read_bytes()
    out = tmp_path / "c.jsonl"
    out.write_text("keep me")
    for args, said in (
        (["-t", "9"], "there is no turn 9"),
        (["-t", "1", "-o", str(out)], f"{out} exists: choose another --out, or --force"),
        (["-t", "1", "-o", str(recording)], "it is the input"),
    ):
        result = run_cli("promote", str(recording), *args)
        assert result.returncode == 2 and said in result.stderr and result.stderr.count("\n") == 1, (
            result.stderr
        )
    assert out.read_text() == "keep me" and recording.read_bytes() == before
    assert run_cli("promote", str(recording), "-t", "2", "-o", str(out), "--force").returncode == 0
    assert len(json.loads(json.dumps([e.id for e in read_recording(out).exchanges]))) >= 2

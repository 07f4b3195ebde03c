"""A strict mismatch is answered so that every client takes it as final: one attempt, one report.

Checked with the real clients, each with its default retry settings, against the real replay proxy:
openai-python, openai-node and the Vercel AI SDK (a cassette recorded here from openai-python), and the
Codex CLI (a cassette of its own session). Each sends a changed prompt once; the replay must see it
exactly once. With the old 409 the AI SDK sent it 3 times and Codex 6 (over about 8 s).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from openai import BadRequestError, OpenAI

from ctxscope.proxy.recorder import Recorder
from ctxscope.proxy.replay import serve_cassette, serve_script
from ctxscope.proxy.replay.session import MISMATCH_STATUS
from ctxscope.proxy.store.writer import RecordingWriter
from ctxscope.proxy.testing import FakeUpstream, SseReply, capture_proxy, response_stream, text_message
from tests.proxy.replay.codex_support import RUN_TIMEOUT_S, codex_binary
from tests.proxy.replay.node_clients_support import node_clients, run_node

OPENAI_NODE = """
import OpenAI from "openai";
const client = new OpenAI({ baseURL: process.argv[2], apiKey: "x" });
try {
  await client.responses.create({ model: "gpt-test", input: "a changed prompt" });
  console.log("answered");
} catch (err) {
  console.log(`error ${err.status}`);
}
"""

AI_SDK = """
import { generateText } from "ai";
import { createOpenAI } from "@ai-sdk/openai";
const openai = createOpenAI({ baseURL: process.argv[2], apiKey: "x" });
try {
  await generateText({ model: openai.responses("gpt-test"), prompt: "a changed prompt" });
  console.log("answered");
} catch (err) {
  console.log(`error ${err.statusCode ?? err.lastError?.statusCode}`);
}
"""


@pytest.fixture(scope="module")
def cassette(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("mismatch") / "one.jsonl"
    with FakeUpstream() as upstream, capture_proxy(upstream.url, path) as capture:
        upstream.reply(SseReply(response_stream(text_message("hi"))))
        with OpenAI(base_url=capture.url + "/v1", api_key="x", max_retries=0) as client:
            list(client.responses.create(model="gpt-test", input="hi", stream=True))
        capture.wait_for(1)
    return path


def test_the_mismatch_status_is_not_one_any_client_retries() -> None:
    # the AI SDK retries 408, 409, 429 and 5xx whatever x-should-retry says
    assert MISMATCH_STATUS == 400


def test_openai_python_sees_it_once(cassette: Path) -> None:
    with serve_cassette(cassette) as server:
        with OpenAI(base_url=server.url + "/v1", api_key="x") as client:  # default retries (2)
            with pytest.raises(BadRequestError) as raised:
                client.responses.create(model="gpt-test", input="a changed prompt")
        report = server.report
    assert raised.value.status_code == 400 and "ctxscope_replay_mismatch" in str(raised.value)
    assert len(report.mismatches) == 1


@pytest.mark.slow
@pytest.mark.parametrize(("name", "source"), [("openai-node", OPENAI_NODE), ("ai-sdk", AI_SDK)])
def test_node_clients_see_it_once(cassette: Path, name: str, source: str) -> None:
    prefix = node_clients()
    with serve_cassette(cassette) as server:
        said = run_node(prefix, f"mismatch-{name}.mjs", source, server.url + "/v1")
        report = server.report
    assert said.strip() == "error 400"
    assert len(report.mismatches) == 1


@pytest.mark.slow
def test_codex_sees_it_once(tmp_path: Path) -> None:
    binary = codex_binary()
    capture = tmp_path / "codex.jsonl"
    writer = RecordingWriter(capture, meta={"client": "codex exec"})
    recorder = Recorder(writer)
    try:
        with serve_script(
            {"format": "ctxscope-script", "responses": [{"text": "hello"}]}, extra_addons=[recorder]
        ) as server:
            assert _codex(binary, tmp_path / "a", server.url, "say hello").returncode == 0
            recorder.drain()
    finally:
        writer.close()
    with serve_cassette(capture, match="strict") as server:
        run = _codex(binary, tmp_path / "b", server.url, "say goodbye")
        report = server.report
    assert run.returncode == 1 and "ctxscope_replay_mismatch" in run.stdout + run.stderr
    assert len(report.mismatches) == 1 and report.served == 0


def _codex(binary: Path, root: Path, base_url: str, prompt: str) -> subprocess.CompletedProcess[str]:
    """`codex exec` with Codex's default retry settings (no `request_max_retries`), in root/repo."""
    home, repo, user = root / "home", root / "repo", root / "user"
    repo.mkdir(parents=True)
    user.mkdir()
    home.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (home / "config.toml").write_text(
        'model = "gpt-5-codex"\nmodel_provider = "local"\n[model_providers.local]\nname = "local"\n'
        f'base_url = "{base_url}/v1"\nwire_api = "responses"\nenv_key = "LOCAL_KEY"\n'
    )
    env = {**os.environ, "CODEX_HOME": str(home), "HOME": str(user), "LOCAL_KEY": "x"}
    return subprocess.run(
        [str(binary), "exec", "--skip-git-repo-check", prompt],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT_S,
        stdin=subprocess.DEVNULL,
        check=False,
    )

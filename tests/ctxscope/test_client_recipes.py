"""The README's per-client recipes, each run as written against a replay (README: Recipes per client).

openai-python 2.x (proxy and in-process), openai-node, the Vercel AI SDK and the Codex CLI, each
pointed at a script cassette the way the recipe says; the replay must have served it. openai-python
3.x on httpx2 is `test_core_install.py` (it needs a venv of its own on Python 3.11).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import httpx
import pytest
from openai import OpenAI

from ctxscope.proxy.replay import CassetteTransport, serve_script
from ctxscope.proxy.replay.cassette import cassette_from_script
from ctxscope.proxy.replay.script import parse_script
from tests.proxy.replay.codex_support import RUN_TIMEOUT_S, codex_binary
from tests.proxy.replay.node_clients_support import node_clients, run_node

SCRIPT = {"format": "ctxscope-script", "responses": [{"text": "hello from the cassette"}]}

OPENAI_NODE = """
import OpenAI from "openai";
const client = new OpenAI({ baseURL: process.argv[2], apiKey: "x" });
const answer = await client.responses.create({ model: "gpt-test", input: "hi" });
console.log(answer.output_text);
"""

AI_SDK = """
import { generateText } from "ai";
import { createOpenAI } from "@ai-sdk/openai";
const openai = createOpenAI({ baseURL: process.argv[2], apiKey: "x" });
const { text } = await generateText({ model: openai.responses("gpt-test"), prompt: "hi", maxRetries: 0 });
console.log(text);
"""


def test_openai_python_through_the_replay_proxy_and_in_process() -> None:
    with serve_script(SCRIPT) as server:
        with OpenAI(base_url=server.url + "/v1", api_key="x") as client:
            assert (
                client.responses.create(model="gpt-test", input="hi").output_text == "hello from the cassette"
            )
        assert server.report.served == 1
    transport = CassetteTransport(cassette_from_script(parse_script(SCRIPT)), match="sequential")
    http_client = httpx.Client(transport=transport)
    with OpenAI(base_url="http://cassette.invalid/v1", api_key="x", http_client=http_client) as client:
        assert client.responses.create(model="gpt-test", input="hi").output_text == "hello from the cassette"
    assert transport.report.served == 1


@pytest.mark.slow
@pytest.mark.parametrize(("name", "source"), [("openai-node", OPENAI_NODE), ("ai-sdk", AI_SDK)])
def test_node_clients_with_base_url(name: str, source: str) -> None:
    prefix = node_clients()
    with serve_script(SCRIPT) as server:
        said = run_node(prefix, f"recipe-{name}.mjs", source, server.url + "/v1")
        assert server.report.served == 1
    assert said.strip() == "hello from the cassette"


@pytest.mark.slow
def test_codex_reads_openai_base_url_from_its_config(tmp_path: Path) -> None:
    binary = codex_binary()
    home, repo, user = tmp_path / "home", tmp_path / "repo", tmp_path / "user"
    for directory in (home, repo, user):
        directory.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    env = {**os.environ, "CODEX_HOME": str(home), "HOME": str(user), "OPENAI_API_KEY": "x"}
    env.pop("OPENAI_BASE_URL", None)
    with serve_script(SCRIPT) as server:
        (home / "config.toml").write_text(f'model = "gpt-5-codex"\nopenai_base_url = "{server.url}/v1"\n')
        run = subprocess.run(
            [str(binary), "exec", "--skip-git-repo-check", "say hello"],
            cwd=repo,
            env=env,
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT_S,
            stdin=subprocess.DEVNULL,
            check=False,
        )
        served = server.report.served
    assert run.returncode == 0, (run.stdout + run.stderr)[-3000:]
    assert "hello from the cassette" in run.stdout and served == 1

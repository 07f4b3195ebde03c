"""`ctxscope run` knows the environment it gives its command: the values of its credential variables
(`*_TOKEN`, `*_KEY`, `*PASSWORD*`) are redacted wherever a tool output or the model repeats them, whole
or in 12-character pieces, though nothing around them says they are secrets. Through the real
`ctxscope run` (reverse mode) with a real openai-python client as the command and a local upstream."""

from __future__ import annotations

import json
import random
import string
import sys
from pathlib import Path

from ctxscope.proxy.redact import Redactor
from ctxscope.proxy.redact.environment import credential_values
from ctxscope.proxy.store.reader import read_recording
from ctxscope.proxy.testing import FakeUpstream, SseReply, response_stream, text_message
from tests.cli_support import run_cli

_rng = random.Random(34)
_ALNUM = string.ascii_letters + string.digits
# no vendor prefix, no shape: only the environment says these are credentials
TOKEN = "".join(_rng.choice(_ALNUM) for _ in range(32))
API_KEY = "".join(_rng.choice(_ALNUM) for _ in range(24))
PASSWORD = "Tr0ub4dor&3-" + "".join(_rng.choice(_ALNUM) for _ in range(4))

# The command: an agent-like client whose tool output repeats the values in plain prose.
CLIENT = """
import os
from openai import OpenAI

output = (
    "deploying build 7 ... pushed with " + os.environ["ACME_DEPLOY_TOKEN"] + " to the registry\\n"
    "mirror answered for " + os.environ["MIRROR_API_KEY"] + " (ok)\\n"
    "db login as app/" + os.environ["DB_PASSWORD"] + " accepted\\n"
)
client = OpenAI(api_key="sk-test-run", max_retries=0, timeout=30)
stream = client.responses.create(
    model="gpt-run",
    input=[
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "ship it"}]},
        {"type": "function_call", "call_id": "call_1", "name": "exec_command", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "call_1", "output": output},
    ],
    stream=True,
)
for event in stream:
    pass
"""


def test_credential_variables_of_the_command_are_redacted_where_repeated(
    tmp_path: Path, upstream: FakeUpstream
) -> None:
    answer = f"Pushed. The token ends in {TOKEN[-14:]}, the mirror key starts {API_KEY[:13]}."
    upstream.reply(SseReply(response_stream(text_message(answer, chunks=9))))
    script = tmp_path / "client.py"
    script.write_text(CLIENT)
    out = tmp_path / "run.jsonl"
    env = {"ACME_DEPLOY_TOKEN": TOKEN, "MIRROR_API_KEY": API_KEY, "DB_PASSWORD": PASSWORD}
    result = run_cli(
        "run",
        "--mode",
        "reverse",
        "--upstream",
        upstream.url,
        "--out",
        str(out),
        "--",
        sys.executable,
        str(script),
        env=env,
    )
    assert result.returncode == 0, result.stderr

    data = out.read_text(encoding="utf-8")
    for value in env.values():
        pieces = [value[i : i + 12] for i in range(len(value) - 11)]
        assert [p for p in pieces if p in data] == [], value
    [exchange] = read_recording(out).exchanges
    stored = exchange.request_body["input"][-1]["output"]
    assert stored.startswith("deploying build 7 ... pushed with <redacted:") and "accepted\n" in stored
    streamed = "".join(json.loads(e.data)["delta"] for e in exchange.sse if e.event == "response.output_text.delta")
    assert streamed.startswith("Pushed. The token ends in <redacted:") and streamed.count("<redacted:") == 2


def test_without_the_environment_nothing_says_they_are_secrets() -> None:
    """The control: the same output redacted by a recorder that was not told the environment keeps them,
    so the test above shows the environment at work, not another rule."""
    output = f"pushed with {TOKEN} to the registry\nmirror answered for {API_KEY} (ok)\n"
    assert Redactor().text(output) == output


def test_which_variables_are_learnt() -> None:
    env = {
        "ACME_DEPLOY_TOKEN": TOKEN,
        "MIRROR_API_KEY": API_KEY,
        "DB_PASSWORD": PASSWORD,
        "SOME_NAME": "sk-proj-" + TOKEN + TOKEN,  # a key's shape under any name
        "SECRET_KEY": "development",  # a word: replacing it would eat prose
        "GOOGLE_APPLICATION_CREDENTIALS": "/home/dev/.config/gcloud/key.json",  # a path
        "TOKEN_COUNT": "5",
        "HOME": "/root",
        "PATH": "/usr/bin:/bin",
        "SSH_AUTH_SOCK": "/tmp/ssh-XXXX/agent.1",
    }
    assert dict(credential_values(env)) == {
        "ACME_DEPLOY_TOKEN": TOKEN,
        "MIRROR_API_KEY": API_KEY,
        "DB_PASSWORD": PASSWORD,
        "SOME_NAME": env["SOME_NAME"],
    }
    red = Redactor()
    assert red.learn_environment(env) == 4
    assert red.text(f"x {PASSWORD} y") == "x <redacted:password:1> y"

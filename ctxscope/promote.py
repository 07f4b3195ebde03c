"""`ctxscope promote`: turn one turn of a recording into a cassette for a regression test.

A long session holds many requests; the test a person wants is usually "the client still builds turn
N the same way". This writes a cassette holding the recording's exchanges up to and including turn
N (every exchange that started before it, so side requests and `GET /models` come along), through
the same writer as a capture: redacted, deduplicated, SSE kept byte for byte. A test then replays it
strictly with the `ctxscope_cassette` marker, and a changed request fails the test with the context
that changed (docs/cassettes.md). The command prints that test (or writes it, `--test`): a module that
runs as pasted. For ctxscope's own agent it runs the agent on the recorded prompts (`ctxscope.testing`),
carrying the AGENTS.md files the recording read; for the Codex CLI it runs Codex itself against the
replay server (`replay_codex`, skipped where Codex is not installed); for any other client it fails in
one line until the client's call is added.

The test replays in the test's own process (`in_process=True`, the cassette's httpx transport) for
every client that can be given a transport: the SDK clients of Python (openai-python, and what is built
on it). That needs only the core install in the project's test venv, whichever venv promote itself ran
in (usually the tools' own, with every extra). Only a client that cannot take one (Codex, a Node
client) gets the proxy-based marker, and the test says its venv needs `ctxscope[proxy]`.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ctxscope.proxy.errors import ConfigError

if TYPE_CHECKING:
    from ctxscope.proxy.model import Exchange

__all__ = [
    "HARNESS_CLIENT",
    "PromoteResult",
    "default_test_path",
    "promote",
    "pytest_test",
    "register",
    "takes_transport",
]


@dataclass
class PromoteResult:
    cassette: Path
    turn: int
    exchanges: int
    model_requests: int


def promote(recording: Path, turn: int, out: Path, *, force: bool = False) -> PromoteResult:
    """Write the exchanges of `recording` through turn `turn` to the cassette `out`."""
    from ctxscope.inspector.analysis.analyse import analyse_recording
    from ctxscope.proxy.files import refuse_same_file
    from ctxscope.proxy.store.reader import read_recording
    from ctxscope.proxy.store.writer import RecordingWriter

    refuse_same_file(out, [recording])
    if out.exists() and not force:
        raise ConfigError(f"{out} exists: choose another --out, or --force to replace it")
    last = analyse_recording(recording).turn(turn).turn.exchange.id
    source = read_recording(recording)
    kept = [e for e in source.exchanges if e.id <= last]
    meta = {**source.header.meta, "promoted_from": recording.name, "promoted_turn": turn}
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_name(out.name + ".partial")
    partial.unlink(missing_ok=True)
    try:
        with RecordingWriter(partial, meta=meta) as writer:
            for exchange in kept:
                writer.write(exchange)
        partial.replace(out)  # a cassette is there whole, or not at all; --force's old one until then
    except OSError as err:
        raise ConfigError(f"cannot write {out} ({err.strerror or err}); choose another --out") from None
    finally:
        partial.unlink(missing_ok=True)
    return PromoteResult(out, turn, len(kept), sum(1 for e in kept if e.is_model_request))


HARNESS_CLIENT = "ctxscope agent"
"""The `client` a capture by ctxscope's own agent writes in its header: its test runs the agent."""


def default_test_path(cassette: Path) -> Path:
    """Where the printed test is meant to go: `test_<name>.py` in the nearest `tests` directory above
    the cassette, else beside it."""
    absolute = cassette.resolve()
    tests = next((d for d in absolute.parents if d.name == "tests"), absolute.parent)
    return tests / f"test_{_name(cassette)}.py"


def pytest_test(result: PromoteResult, test_file: Path, project: Path | None = None) -> str:
    """A test module replaying the cassette, runnable as written to `test_file`.

    Its marker names the cassette relative to the test file (pytest resolves it from there). For a
    recording of ctxscope's own agent the body runs the agent on the recorded prompts in a copy of the
    project (`project`: where the agent ran; default the recording's cwd, or the current directory,
    when the test lies inside it); for any other client it fails with one line until the client's call
    is added."""
    from ctxscope.inspector.analysis.analyse import analyse_recording

    test_dir = test_file.resolve().parent
    where = Path(os.path.relpath(result.cassette.resolve(), test_dir)).as_posix()
    analysis = analyse_recording(result.cassette)
    meta = analysis.header.meta if analysis.header is not None else {}
    name = _name(result.cassette)
    source = str(meta.get("promoted_from") or result.cassette.name)
    root = project or _project_root(test_dir, meta.get("cwd"))
    up = len(test_dir.relative_to(root).parts)
    if meta.get("client") == HARNESS_CLIENT:
        prompts = [i.text for i in analysis.turn(result.turn).turn.items if i.kind == "user_message"]
        return _HARNESS_TEST.format(
            turn=result.turn,
            source=source,
            up=up,
            prompts=json.dumps(prompts, ensure_ascii=False),
            files=_files_literal(_carried_files(analysis, result.turn, meta.get("cwd"))),
            where=where,
            name=name,
        )
    if _is_codex(result.cassette):
        return _codex_test(result, analysis, source, where, name, up)
    from ctxscope.proxy.endpoints import client_base_url
    from ctxscope.proxy.replay.cassette import load_cassette
    from ctxscope.proxy.store.reader import read_recording

    base = client_base_url("URL", load_cassette(result.cassette).upstream_prefix)
    url = "ctxscope_cassette.url" + (f' + "{base[3:]}"' if base != "URL" else "")
    template = _IN_PROCESS_TEST if takes_transport(read_recording(result.cassette).exchanges) else _PROXY_TEST
    return template.format(
        turn=result.turn,
        source=source,
        where=where,
        name=name,
        url=url,
        requests="model request" if result.model_requests == 1 else f"{result.model_requests} model requests",
    )


def _carried_files(analysis: Any, turn: int, recorded_cwd: object) -> dict[str, str]:
    """The AGENTS.md files the recording read inside its workspace, relative to it (path → text)."""
    state = analysis.turn(turn).state
    cwd = str(state.value("cwd") or recorded_cwd or "")
    agents = state.value("agents_md") or {}
    carried = {}
    for directory, text in agents.items():
        if cwd and (directory + "/").startswith(cwd.rstrip("/") + "/"):
            relative = Path(os.path.relpath(directory, cwd)) / "AGENTS.md"
            carried[relative.as_posix().removeprefix("./")] = text
    return carried


def _files_literal(files: dict[str, str]) -> str:
    """A dict literal with one line per file, so a changed file is a changed line."""
    if not files:
        return "{}"
    lines = [f"    {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}," for k, v in files.items()]
    return "{\n" + "\n".join(lines) + "\n}"


def _is_codex(cassette: Path) -> bool:
    """True when the cassette's model requests came from the Codex CLI (its originator or user agent)."""
    from ctxscope.proxy.store.reader import read_recording

    for exchange in read_recording(cassette).exchanges:
        headers = {k.lower(): str(v) for k, v in (exchange.request_headers or {}).items()}
        if exchange.is_model_request and any(
            headers.get(h, "").startswith("codex") for h in ("originator", "user-agent")
        ):
            return True
    return False


def _codex_test(result: PromoteResult, analysis: Any, source: str, where: str, name: str, up: int) -> str:
    from ctxscope.testing import codex_settings

    meta = analysis.header.meta if analysis.header is not None else {}
    prompts = [i.text for i in analysis.turn(result.turn).turn.items if i.kind == "user_message"]
    settings = codex_settings(result.cassette)
    cwd = str(analysis.turn(result.turn).state.value("cwd") or meta.get("cwd") or "")
    return _CODEX_TEST.format(
        turn=result.turn,
        source=source,
        version=settings.get("version") or "?",
        prompts=json.dumps(prompts, ensure_ascii=False),
        settings=json.dumps(settings, ensure_ascii=False),
        files=_files_literal(_carried_files(analysis, result.turn, meta.get("cwd"))),
        workspace=json.dumps(Path(cwd).name or "workspace"),
        up=up,
        where=where,
        name=name,
    )


_NO_TRANSPORT_AGENTS = (
    "codex",
    "node",
    "deno",
    "bun",
    "ai-sdk",
    "openai/js",
    "javascript",
    "curl/",
    "python-requests/",
    "python-urllib/",
    "aiohttp/",
)
"""User-agent words of clients that cannot be handed an httpx transport: Codex, the JS runtimes'
clients, curl, and Python clients built on another HTTP library (requests, urllib, aiohttp)."""


def takes_transport(exchanges: Sequence[Exchange]) -> bool:
    """Whether the recorded client can be replayed in a test's process, through the cassette's httpx
    transport: a Python client (openai-python and the SDKs on it say `x-stainless-lang: python`; a plain
    httpx client says nothing). Codex (its `originator` header, the Responses WebSocket) and Node clients
    (`x-stainless-lang: js`, a Node user agent) are separate programs: they need the proxy-based replay."""
    for exchange in exchanges:
        headers = {k.lower(): v.lower() for k, v in exchange.request_headers.items()}
        if exchange.ws_frames or exchange.url.startswith(("ws:", "wss:")) or headers.get("originator"):
            return False
        if headers.get("x-stainless-lang", "python") != "python":
            return False
        agent = headers.get("user-agent", "")
        if any(word in agent for word in _NO_TRANSPORT_AGENTS):
            return False
    return True


def _name(cassette: Path) -> str:
    return re.sub(r"\W+", "_", cassette.stem).strip("_").lower() or "cassette"


def _project_root(test_dir: Path, recorded_cwd: object) -> Path:
    """The directory the agent ran in, as seen from the test: the recorded cwd, else the current one,
    when the test lies inside it; else the test directory's parent."""
    for candidate in (recorded_cwd, Path.cwd()):
        if isinstance(candidate, str | Path) and str(candidate):
            root = Path(candidate).resolve()
            if test_dir == root or root in test_dir.parents:
                return root
    return test_dir.parent


_HARNESS_TEST = '''"""Turn {turn} of {source}, promoted by `ctxscope promote`.

ctxscope's agent, run again on the recorded prompts in a copy of this project, must send the model the
same requests: a changed AGENTS.md, prompt or tool fails the test, naming what changed. The AGENTS.md
files the recording read come with the test (AGENTS_FILES, one line each), so it passes from any
project; edit one of those lines and the test fails naming that AGENTS.md."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxscope.testing import replay_agent

PROJECT = Path(__file__).resolve().parents[{up}]
PROMPTS = {prompts}
AGENTS_FILES = {files}


@pytest.mark.ctxscope_cassette("{where}", in_process=True, past_end="allow")
def test_{name}(ctxscope_cassette, tmp_path: Path) -> None:
    replay_agent(ctxscope_cassette, PROJECT, tmp_path, PROMPTS, files=AGENTS_FILES)
'''

_CODEX_TEST = '''"""Turn {turn} of {source}, promoted by `ctxscope promote`: Codex itself, against the cassette.

Codex {version} was recorded. Run again on the recorded prompts (`codex exec`, then `codex exec resume
--last`) in a copy of this project, with a CODEX_HOME of its own pointing it at the replayer, Codex must
send the model the same requests: a changed AGENTS.md, prompt or Codex release that changes the context
fails the test, naming what changed. The AGENTS.md files the recording read come with the test
(AGENTS_FILES, one line each). Skipped where Codex is not installed (`codex` on PATH, or CODEX_BIN).
The replayer is a local server, so this test's venv needs `pip install 'ctxscope[proxy]'` (mitmproxy)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from ctxscope.testing import replay_codex

PROJECT = Path(__file__).resolve().parents[{up}]
PROMPTS = {prompts}
CODEX_SETTINGS = {settings}
AGENTS_FILES = {files}
CODEX = os.environ.get("CODEX_BIN") or shutil.which("codex")


@pytest.mark.skipif(CODEX is None, reason="Codex is not installed: put codex on PATH or set CODEX_BIN")
@pytest.mark.ctxscope_cassette("{where}", past_end="allow")
def test_{name}(ctxscope_cassette, tmp_path: Path) -> None:
    assert CODEX is not None
    replay_codex(
        ctxscope_cassette, PROJECT, tmp_path, PROMPTS, CODEX_SETTINGS, AGENTS_FILES, CODEX, {workspace}
    )
'''

_IN_PROCESS_TEST = '''"""Turn {turn} of {source}, promoted by `ctxscope promote`.

The client must send the {requests} again: a changed request fails the test with what changed in the
model's context. It replays in this process (in_process=True): the core install is all the test venv
needs (`pip install ctxscope`, no mitmproxy)."""

from __future__ import annotations

import pytest


@pytest.mark.ctxscope_cassette("{where}", in_process=True, past_end="allow")
def test_{name}(ctxscope_cassette) -> None:
    base_url = {url}
    # Replace the pytest.fail line below with your client's call on the cassette's transport (it answers
    # base_url from the cassette: nothing leaves the process). openai-python:
    #     client = openai.OpenAI(base_url=base_url, api_key="test", max_retries=0,
    #                            http_client=httpx.Client(transport=ctxscope_cassette.transport))
    #     client.responses.create(...)  # what your code sends
    # openai 3.x: httpx2.Client; async: httpx.AsyncClient and openai.AsyncOpenAI. If your code catches the
    # client's error, call ctxscope_cassette.check() after it.
    pytest.fail(f"promoted test: add your client's call, on the transport for {{base_url}}", pytrace=False)
'''

_PROXY_TEST = '''"""Turn {turn} of {source}, promoted by `ctxscope promote`.

The client must send the {requests} again: a changed request fails the test with what changed in the
model's context. The client is a separate program, so the cassette is replayed by a proxy on loopback:
this test's venv needs `pip install 'ctxscope[proxy]'` (mitmproxy)."""

from __future__ import annotations

import pytest


@pytest.mark.ctxscope_cassette("{where}", past_end="allow")
def test_{name}(ctxscope_cassette) -> None:
    base_url = {url}
    # Run your client here with base_url as its base URL (OPENAI_BASE_URL), then delete the line below.
    pytest.fail(f"promoted test: add your client's call, sent to {{base_url}}", pytrace=False)
'''


def promote_command(
    file: Annotated[Path, typer.Argument(help="A ctxscope recording (.jsonl).")],
    turn: Annotated[int, typer.Option("--turn", "-t", help="The last turn the cassette holds (1-based).")],
    out: Annotated[
        Path | None,
        typer.Option("--out", "-o", help="The cassette to write (default: cassettes/<file>-turn<N>.jsonl)."),
    ] = None,
    test: Annotated[
        Path | None,
        typer.Option("--test", help="Write the test to this file (tests/test_x.py) instead of printing it."),
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="Replace --out (and --test) if they exist.")] = False,
) -> None:
    """Make a cassette of a recording up to turn N, and the pytest test that replays it.

    The test is printed (all of stdout: `> tests/test_x.py` works) or written with --test; pasted
    where it says, it runs as it is."""
    target = out or Path("cassettes") / f"{file.stem}-turn{turn}.jsonl"
    if test is not None and test.exists() and not force:
        raise ConfigError(f"{test} exists: choose another --test, or --force to replace it")
    result = promote(file, turn, target, force=force)
    test_file = test or default_test_path(result.cassette)
    text = pytest_test(result, test_file)
    print(
        f"wrote {result.cassette}: {result.exchanges} exchanges, {result.model_requests} model requests "
        f"(turn {result.turn} is the last)",
        file=sys.stderr,
    )
    if test is None:
        print(f"# the test, for {_shown(test_file)}:", file=sys.stderr)
        print(text, end="")
        return
    try:
        test.parent.mkdir(parents=True, exist_ok=True)
        test.write_text(text, encoding="utf-8")
    except OSError as err:
        raise ConfigError(f"cannot write {test} ({err.strerror or err}); choose another --test") from None
    print(f"wrote {test}", file=sys.stderr)


def _shown(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def register(app: typer.Typer) -> None:
    app.command("promote")(promote_command)

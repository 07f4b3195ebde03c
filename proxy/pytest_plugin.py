"""pytest plugin: a cassette per test, replayed (or recorded) by a real ctxscope proxy on loopback.

    @pytest.mark.ctxscope_cassette("cassettes/fix_bug.jsonl", match="strict")
    def test_fix_bug(ctxscope_cassette):
        client = OpenAI(base_url=ctxscope_cassette.url + "/v1", api_key="x")
        ...

The fixture `ctxscope_cassette` yields a `CassetteFixture` (`.url` is the base URL, `str()` of it too).
Marker options: `match=` (strict | sequential), `pace=`, `ignore=[json paths]`, `match_on=[matcher
names]` (vcrpy-style; `ctxscope.proxy.replay.register_matcher` adds names), `map_paths=[(recorded, live)]`,
`past_end="allow"` (requests after the cassette's end are answered 410 but do not fail the test: a
cassette of a session's first turns, as `ctxscope promote` writes), `optional=True` (the test may send
nothing; otherwise a replay that no request reached fails: "cassette not used").

For clients in the test's own process (the harness, openai-python, httpx), `in_process=True` serves the
cassette through a `CassetteTransport` instead of a proxy: no mitmproxy runs, so a harness capturing
through its own proxy does not collide with the replay. Give `ctxscope_cassette.transport` to the client
(`httpx.Client(transport=...)`); `.url` is then a placeholder base URL the transport answers for.
A relative cassette path is taken from the test file's directory; without a marker the cassette is
`cassettes/<module>/<test>.jsonl` there. Script cassettes work the same way (they are never recorded).

`--record-mode` (alias `--ctxscope-record-mode`; ini `ctxscope_record_mode`; marker `record_mode=`):
    none  replay only; a missing cassette fails the test (default)
    once  record if the cassette file is missing, else replay
    new   replay what the cassette has; forward and append what comes after it
    all   always record afresh
Recording needs the real backend: marker `upstream=`, `--ctxscope-upstream`, env `CTXSCOPE_UPSTREAM`
or ini `ctxscope_upstream`. At teardown a replay that went wrong (a strict mismatch, a request past the
end of the cassette, an endpoint it has no answer for, no request at all) fails the test with the
reasons; the first line names the turn and the fragments that changed, and with `GITHUB_STEP_SUMMARY`
set the context diff is appended there as markdown. `ctxscope_cassette.check()` fails the test at once
instead (for a client that raises its own error on the refused request).

Heavy imports (mitmproxy) happen only when a test uses the fixture.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:  # the server needs mitmproxy, loaded only by a test that replays through the proxy
    from ctxscope.proxy.replay.cassette import Cassette
    from ctxscope.proxy.replay.options import ReplayOptions
    from ctxscope.proxy.replay.report import Mismatch, ReplayReport
    from ctxscope.proxy.replay.server import ReplayServer
    from ctxscope.proxy.replay.transport import CassetteTransport

__all__ = ["CassetteFixture", "RECORD_MODES"]

RECORD_MODES = ("none", "once", "new", "all")
IN_PROCESS_URL = "http://ctxscope-cassette.invalid"
"""The base URL an in-process fixture hands out: only its transport answers it (`.invalid` never resolves)."""
_MARKER = "ctxscope_cassette"


@dataclass
class CassetteFixture:
    """What a test gets: where to send requests, and what the replay did."""

    url: str
    """Base URL of the proxy, e.g. `http://127.0.0.1:PORT` (add `/v1` for OpenAI clients)."""
    path: Path
    record_mode: str
    recording: bool
    """True when this test records the cassette afresh (modes once-with-no-file and all)."""
    server: ReplayServer | None = field(default=None, repr=False)
    """The `ReplayServer` when replaying through a proxy (None while recording or in-process)."""
    transport: CassetteTransport | None = field(default=None, repr=False)
    """The `CassetteTransport` with `in_process=True` (None otherwise)."""
    _verdict: Callable[[], str | None] = field(default=lambda: None, repr=False)
    _reported: bool = field(default=False, repr=False)

    @property
    def report(self) -> ReplayReport | None:
        """The replay's `ReplayReport` so far (None while recording)."""
        if self.server is not None:
            return self.server.report
        return self.transport.report if self.transport is not None else None

    def check(self) -> None:
        """Fail the test now if the replay went wrong so far (as teardown would, with the context diff).

        For a client that stops at the first refused request with its own error: call this in an
        `except` (or after the client returns) so the test fails with what changed, not with the
        client's message. Teardown does not report the same failure again."""
        message = self._verdict()
        if message is not None:
            self._reported = True
            pytest.fail(message, pytrace=False)

    def __str__(self) -> str:
        return self.url


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("ctxscope", "ctxscope cassettes")
    record_mode: dict[str, Any] = {
        "dest": "ctxscope_record_mode",
        "choices": RECORD_MODES,
        "default": None,
        "help": "ctxscope cassettes: none (replay only, default), once, new or all.",
    }
    try:
        group.addoption("--record-mode", "--ctxscope-record-mode", **record_mode)
    except ValueError:  # another cassette plugin (pytest-recording) owns --record-mode
        group.addoption("--ctxscope-record-mode", **record_mode)
    group.addoption(
        "--ctxscope-upstream",
        dest="ctxscope_upstream",
        default=None,
        help="ctxscope cassettes: the backend to record from (e.g. https://api.openai.com).",
    )
    parser.addini("ctxscope_record_mode", "ctxscope cassettes: default record mode", default="none")
    parser.addini("ctxscope_upstream", "ctxscope cassettes: backend to record from", default="")


_CALL_FAILED = pytest.StashKey[bool]()
"""Whether the test's body failed: a replay then unused is the body's failure, not a second one."""
_FIXTURE = pytest.StashKey["CassetteFixture"]()
"""The test's cassette fixture, for the report of its body's failure."""


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]
    if report.when != "call":
        return
    item.stash[_CALL_FAILED] = report.failed
    fixture = item.stash.get(_FIXTURE, None)
    if not report.failed or fixture is None or fixture._reported:
        return
    # The body failed, most often because the client raised on the refused request (openai-python's
    # BadRequestError on the 400). That is one failure: the replay's account of it (the turn, the context
    # diff), in place of the client's traceback, and no second one at teardown.
    message = fixture._verdict()
    if message is None:
        return
    fixture._reported = True
    raised = call.excinfo.value if call.excinfo is not None else None
    said = str(raised).strip().splitlines()[0] if raised is not None and str(raised).strip() else ""
    client = f"{type(raised).__name__}: {_short(said, 200)}" if raised is not None else "the test failed"
    report.longrepr = f"{message}\n(the client's error on the refused request: {client})"


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    from ctxscope.proxy import pytest_hooks

    pluginmanager.add_hookspecs(pytest_hooks)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"{_MARKER}(path=None, *, upstream=None, match='strict', pace='fast', ignore=(), match_on=None, "
        "map_paths=(), in_process=False, record_mode=None, past_end='fail', optional=False): "
        "replay (or record) this ctxscope cassette for the test; see the ctxscope_cassette fixture",
    )


def _default_path(request: pytest.FixtureRequest) -> Path:
    name = re.sub(r"[^\w.-]+", "_", request.node.name).strip("_")
    return request.path.parent / "cassettes" / request.path.stem / f"{name}.jsonl"


def _settings(request: pytest.FixtureRequest) -> tuple[Path, dict[str, Any], str, str | None]:
    marker = request.node.get_closest_marker(_MARKER)
    args: tuple[Any, ...] = marker.args if marker else ()
    kwargs: dict[str, Any] = dict(marker.kwargs) if marker else {}
    raw = args[0] if args else kwargs.pop("path", None)
    path = Path(raw) if raw is not None else _default_path(request)
    if not path.is_absolute():
        path = request.path.parent / path
    config = request.config
    mode = (
        kwargs.pop("record_mode", None)
        or config.getoption("ctxscope_record_mode")
        or config.getini("ctxscope_record_mode")
    )
    if mode not in RECORD_MODES:
        pytest.fail(
            f"unknown ctxscope record mode {mode!r}: use one of {', '.join(RECORD_MODES)}", pytrace=False
        )
    upstream = (
        kwargs.pop("upstream", None)
        or config.getoption("ctxscope_upstream")
        or os.environ.get("CTXSCOPE_UPSTREAM")
        or config.getini("ctxscope_upstream")
        or None
    )
    return path, kwargs, str(mode), upstream


@pytest.fixture
def ctxscope_cassette(request: pytest.FixtureRequest) -> Iterator[CassetteFixture]:
    """Start a replay (or a recording proxy) for this test's cassette and yield its base URL."""
    from ctxscope.proxy.errors import CtxscopeError, missing_extra
    from ctxscope.proxy.replay.cassette import load_cassette

    path, options, mode, upstream = _settings(request)
    node = request.node
    if not isinstance(options.get("optional", False), bool):
        pytest.fail(
            f"ctxscope cassette marker: optional={options['optional']!r}: use True or False", pytrace=False
        )
    if options.get("past_end", "fail") not in ("fail", "allow"):
        pytest.fail(
            f"ctxscope cassette marker: past_end={options['past_end']!r}: use 'fail' or 'allow'",
            pytrace=False,
        )
    exists = path.exists()
    cassette: Cassette | None = None
    if exists:
        try:
            cassette = load_cassette(path)
        except CtxscopeError as err:
            if mode != "all":  # mode all overwrites whatever is there
                pytest.fail(f"ctxscope cassette: {err}", pytrace=False)
    is_script = cassette is not None and cassette.kind == "script"
    record = not is_script and (mode == "all" or (mode in ("once", "new") and not exists))
    if not exists and mode == "none":
        pytest.fail(
            f"cassette {path} does not exist; record it with --record-mode once and an upstream "
            "(--ctxscope-upstream URL)",
            pytrace=False,
        )
    if (record or (mode == "new" and not is_script)) and not upstream:
        pytest.fail(
            f"record mode {mode!r} needs an upstream to record {path} from: pass --ctxscope-upstream URL, "
            "set CTXSCOPE_UPSTREAM, or give the marker upstream=...",
            pytrace=False,
        )
    if options.get("in_process") and (record or mode == "new"):
        pytest.fail(
            f"in_process=True replays only (record mode {mode!r} needs the proxy to reach the upstream)",
            pytrace=False,
        )
    try:
        if record:
            yield from _record(path, mode, str(upstream))
        elif options.get("in_process"):
            assert cassette is not None
            yield from _replay_in_process(cassette, path, mode, options, request.config.hook, node)
        else:
            assert cassette is not None
            yield from _replay(
                cassette,
                path,
                mode,
                options,
                upstream if mode == "new" and not is_script else None,
                request.config.hook,
                node,
            )
    except CtxscopeError as err:
        pytest.fail(f"ctxscope cassette {path}: {err}", pytrace=False)
    except ModuleNotFoundError as err:
        needed = missing_extra(err)
        if needed is None:
            raise
        hint = (
            ""
            if record
            else "; or replay in the test's process: marker in_process=True and the fixture's .transport"
        )
        # from None: the failure is the one line, without the ImportError chained above it
        raise pytest.fail.Exception(f"ctxscope cassette {path}: {needed}{hint}", pytrace=False) from None


def _record(path: Path, mode: str, upstream: str) -> Iterator[CassetteFixture]:
    from ctxscope.proxy.recorder import Recorder
    from ctxscope.proxy.redact import Redactor
    from ctxscope.proxy.runner import ProxyServer
    from ctxscope.proxy.store.writer import RecordingWriter

    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    partial.unlink(missing_ok=True)
    # The header is written as given: a key in the upstream URL (user:token@, ?key=) must not reach it.
    meta = {"upstream": Redactor().url(upstream), "mode": "reverse", "cwd": os.getcwd()}
    writer = RecordingWriter(partial, meta=meta)
    recorder = Recorder(writer)
    proxy: ProxyServer | None = None
    try:
        proxy = ProxyServer([recorder], mode="reverse", upstream=upstream)  # a bad upstream raises here
        proxy.start()
        yield CassetteFixture(url=proxy.url, path=path, record_mode=mode, recording=True)
    finally:
        recorder.drain()
        if proxy is not None:
            proxy.stop()
        writer.close()
        if not recorder.recorded:  # here, so a failed start leaves no .partial file either
            partial.unlink(missing_ok=True)
    if recorder.recorded:
        os.replace(partial, path)  # a whole cassette or none: a failed start leaves the old one


def _matching(options: dict[str, Any]) -> ReplayOptions:
    """The marker's replay options (`match=`, `pace=`, `ignore=`, `match_on=`, `map_paths=`, `live_cwd=`)."""
    from ctxscope.proxy.replay.matching import DEFAULT_MATCH_ON
    from ctxscope.proxy.replay.options import ReplayOptions

    problem = None
    try:
        return ReplayOptions(
            match=options.get("match", "strict"),
            pace=options.get("pace", "fast"),
            ignore=tuple(options.get("ignore", ())),
            match_on=tuple(options.get("match_on") or DEFAULT_MATCH_ON),
            map_paths=tuple(tuple(pair) for pair in options.get("map_paths", ())),
            live_cwd=options.get("live_cwd"),
        )
    except (ValueError, TypeError) as err:
        problem = str(err)
    # outside the except: the one line, without the chained exception
    pytest.fail(f"ctxscope cassette marker: {problem}", pytrace=False)


def _verdict(
    report: ReplayReport,
    cassette: Cassette,
    hook: Any,
    options: dict[str, Any],
    node: pytest.Item,
) -> str | None:
    """The failure message for what went wrong in a replay, or None when it went right.

    Its first line says which turn changed and which fragments (a CI log shows little more); the
    mismatches' JSON paths and the context diff follow. With `GITHUB_STEP_SUMMARY` set, the context
    diff is appended there as markdown too."""
    problems: list[str] = []
    headline = ""
    explained: list[str] = []
    for mismatch in report.mismatches:
        if mismatch.served:
            continue
        lines = _explained(mismatch, cassette, hook)
        if not headline:
            headline = _headline(mismatch)
            explained = lines
        problems.append(mismatch.line())
        if lines:
            problems += ["  what changed in the model's context:", *(f"    {line}" for line in lines)]
    # past_end="allow": a cassette of a session's first turns; the client may go on (answered 410)
    past_end = options.get("past_end", "fail") != "allow"
    problems += report.problems(past_end=past_end)[len(report.mismatches) :]
    if (
        not problems
        and _unused(report)
        and not options.get("optional")
        and not node.stash.get(_CALL_FAILED, False)
    ):
        total = report.model_entries + len(cassette.other_entries)
        return (
            f"ctxscope cassette {Path(cassette.name).name} was not used: none of its {total} requests "
            "arrived. Send the "
            "client to ctxscope_cassette.url (+ '/v1'), or give it ctxscope_cassette.transport with "
            "in_process=True; mark the test optional=True if it may send nothing"
        )
    if not problems:
        return None
    failed = next((m for m in report.mismatches if not m.served), None)
    if failed is not None and cassette.path is not None:
        for lines in hook.pytest_ctxscope_failed_turn(
            config=node.config,
            nodeid=node.nodeid,
            cassette=str(cassette.path),
            turn=failed.index + 1,
            exchange=failed.exchange_id,
            live=failed.live_body,
            reason=failed.line(),
        ):
            problems += list(lines or [])
    first = headline or f"ctxscope cassette {Path(cassette.name).name}: {problems[0]}"
    if os.environ.get("GITHUB_STEP_SUMMARY"):
        _step_summary(Path(os.environ["GITHUB_STEP_SUMMARY"]), node.nodeid, first, problems, explained)
    return first + "\nctxscope replay went wrong:\n  " + "\n  ".join(problems)


def _unused(report: ReplayReport) -> bool:
    """True when no request reached the replay at all."""
    return not (
        report.served or report.other_served or report.mismatches or report.exhausted or report.unmatched
    )


_FRAGMENT_DIFF = re.compile(r"^(\S+) \(([^)]+)\) ")
"""A difference that names the context fragment it is in: `input[2].content[0].text (AGENTS.md) differs…`."""


def _headline(mismatch: Mismatch) -> str:
    """`ctxscope cassette C: turn N changed: AGENTS.md at input[2]…` — the turn and the fragments."""
    from ctxscope.proxy.replay.matching import METADATA_ONLY, metadata_only

    where = f"ctxscope cassette {Path(mismatch.cassette).name}: turn {mismatch.index + 1}"
    if metadata_only(mismatch.differences):
        return f"{where}: {METADATA_ONLY}: {mismatch.differences[0]}"
    named: list[str] = []
    for difference in mismatch.differences:
        found = _FRAGMENT_DIFF.match(difference)
        what = f"{found[2]} at {found[1]}" if found else _short(difference)
        if what not in named:
            named.append(what)
    more = f"; and {len(named) - 3} more" if len(named) > 3 else ""
    return f"{where} changed: " + "; ".join(named[:3]) + more


def _short(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _step_summary(path: Path, test: str, first: str, problems: list[str], explained: list[str]) -> None:
    """Append the failure as markdown to GitHub's job summary (the context diff as a `diff` block)."""
    body = explained or problems
    lines = [f"### ctxscope: `{test}` failed", "", first, "", "```diff", *body, "```", ""]
    try:
        with path.open("a", encoding="utf-8") as out:
            out.write("\n".join(lines) + "\n")
    except OSError:
        pass  # the summary is a courtesy: the test's own failure says it all


def _explained(mismatch: Mismatch, cassette: Cassette, hook: Any) -> list[str]:
    """What changed in the model's context, from whichever layer implements the explain hook."""
    entries = cassette.model_entries
    if mismatch.live_body is None or not 0 <= mismatch.index < len(entries):
        return []
    try:
        lines = hook.pytest_ctxscope_explain_mismatch(
            recorded=entries[mismatch.index].request_body, live=mismatch.live_body
        )
    except Exception as err:  # noqa: BLE001 - an explanation must never hide the mismatch itself
        return [f"(the context diff failed: {type(err).__name__}: {err})"]
    return list(lines or [])


def _replay_in_process(
    cassette: Cassette, path: Path, mode: str, options: dict[str, Any], hook: Any, node: pytest.Item
) -> Iterator[CassetteFixture]:
    from ctxscope.proxy.replay.transport import CassetteTransport

    transport = CassetteTransport(cassette, _matching(options))
    fixture = CassetteFixture(
        url=IN_PROCESS_URL,
        path=path,
        record_mode=mode,
        recording=False,
        transport=transport,
        _verdict=lambda: _verdict(transport.report, cassette, hook, options, node),
    )
    node.stash[_FIXTURE] = fixture
    yield fixture
    _fail_at_teardown(fixture)


def _fail_at_teardown(fixture: CassetteFixture) -> None:
    message = None if fixture._reported else fixture._verdict()
    if message is not None:
        pytest.fail(message, pytrace=False)


def _replay(
    cassette: Cassette,
    path: Path,
    mode: str,
    options: dict[str, Any],
    upstream: str | None,
    hook: Any,
    node: pytest.Item,
) -> Iterator[CassetteFixture]:
    from ctxscope.proxy.replay.server import serve_cassette

    extra: list[Any] = []
    writer = recorder = None
    if upstream is not None:  # mode `new`: forward and append what the cassette cannot answer
        from ctxscope.proxy.recorder import Recorder
        from ctxscope.proxy.store.writer import RecordingWriter

        writer = RecordingWriter(path)
        recorder = Recorder(writer)
        extra.append(_RecordNewOnly(recorder))
    matching = _matching(options)
    try:
        server = serve_cassette(
            cassette,
            matching,
            upstream=upstream,
            passthrough_when_exhausted=upstream is not None,
            extra_addons=extra,
        )
    except BaseException:
        if writer is not None:
            writer.close()
        raise
    try:
        fixture = CassetteFixture(
            url=server.url,
            path=path,
            record_mode=mode,
            recording=False,
            server=server,
            _verdict=lambda: _verdict(server.report, cassette, hook, options, node),
        )
        node.stash[_FIXTURE] = fixture
        yield fixture
    finally:
        if recorder is not None:
            recorder.drain()
        server.stop()
        if writer is not None:
            writer.close()
    _fail_at_teardown(fixture)


class _RecordNewOnly:
    """Lets the Recorder see only flows the replayer did not answer (record mode `new`).

    The Recorder starts tracking a flow in `requestheaders`; this wrapper starts it from `request`,
    after the replayer has decided, and only for flows going upstream. Every other hook of the Recorder
    ignores flows it is not tracking.
    """

    def __init__(self, recorder: Any) -> None:
        self.recorder = recorder

    def request(self, flow: Any) -> None:
        from ctxscope.proxy.replay.addon import REPLAYED

        if not flow.metadata.get(REPLAYED) and flow.response is None:
            self.recorder.requestheaders(flow)

    def responseheaders(self, flow: Any) -> None:
        self.recorder.responseheaders(flow)

    def response(self, flow: Any) -> None:
        self.recorder.response(flow)

    def error(self, flow: Any) -> None:
        self.recorder.error(flow)

    def done(self) -> None:
        self.recorder.done()

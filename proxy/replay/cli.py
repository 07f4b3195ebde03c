"""`ctxscope replay FILE`: serve a recording or a script cassette in place of the model backend.

ctxscope replay recordings/script-example.json              # the offline model on 127.0.0.1:8787
ctxscope replay capture.jsonl --match sequential --pace recorded
ctxscope replay capture.jsonl --ignore 'metadata.run' --ignore 'input[*].id'
ctxscope replay capture.jsonl --map-path /home/ann/tools=/opt/tools --match-on method,path,body
ctxscope replay capture.jsonl --exit-when-done --report replay.json    # for CI: exit 1 on problems

Prints the URL to point clients at, one line per request (and each mismatch), and a summary at the end
(Ctrl-C, or `--exit-when-done` once every model response was served or the replay went wrong).
"""

from __future__ import annotations

import json
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ctxscope.proxy.capture_cli import _stop_on_signals, is_loopback, parse_listen
from ctxscope.proxy.endpoints import client_base_url
from ctxscope.proxy.errors import ConfigError, CtxscopeError
from ctxscope.proxy.files import check_writable, refuse_same_file, write_private
from ctxscope.proxy.replay.matching import DEFAULT_MATCH_ON, check_match_on
from ctxscope.proxy.replay.normalise import parse_json_path
from ctxscope.proxy.replay.options import MATCH_MODES, PACE_MODES, ReplayOptions, is_match_mode, is_pace_mode
from ctxscope.proxy.replay.paths import parse_map_path

if TYPE_CHECKING:
    from ctxscope.proxy.replay.server import ReplayServer

__all__ = ["register", "run_replay"]

DEFAULT_LISTEN = "127.0.0.1:8787"


def _say(text: str) -> None:
    print(text, flush=True)


def run_replay(
    file: Path,
    listen: str = DEFAULT_LISTEN,
    match: str = "strict",
    pace: str = "fast",
    ignore: list[str] | None = None,
    exit_when_done: bool = False,
    report_path: Path | None = None,
    match_on: str = ",".join(DEFAULT_MATCH_ON),
    map_path: list[str] | None = None,
    allow_remote: bool = False,
) -> bool:
    """Serve `file` until SIGINT/SIGTERM (or until done); return True if nothing went wrong."""
    # mitmproxy takes most of a second to import: only a replay pays for it, not `ctxscope --help`.
    from ctxscope.proxy.replay.cassette import load_cassette
    from ctxscope.proxy.replay.server import serve_cassette

    if not is_match_mode(match):
        raise ConfigError(f"unknown --match {match!r}: use one of {', '.join(MATCH_MODES)}")
    if not is_pace_mode(pace):
        raise ConfigError(f"unknown --pace {pace!r}: use one of {', '.join(PACE_MODES)}")
    for path in ignore or []:
        try:
            parse_json_path(path)
        except ValueError as err:
            raise ConfigError(f"bad --ignore: {err}") from None
    try:
        matchers = check_match_on([n.strip() for n in match_on.split(",") if n.strip()])
        mappings = [parse_map_path(spec) for spec in map_path or []]
    except ValueError as err:
        raise ConfigError(f"bad --match-on or --map-path: {err}") from None
    if report_path is not None and not report_path.parent.is_dir():
        # checked before serving: a replay's outcome must not be lost to a typo in the report path
        raise ConfigError(
            f"bad --report {str(report_path)!r}: the folder {str(report_path.parent)!r} does not exist"
        )
    if report_path is not None:
        refuse_same_file(report_path, [file])  # `--report REC` is refused now, not after serving
        check_writable(report_path, "--report")  # a read-only folder, too, is found now, not at the end
    host, port = parse_listen(listen)
    if not is_loopback(host) and not allow_remote:
        raise ConfigError(
            f"--listen {listen} is reachable from the network: anyone who can reach it gets the recorded "
            "conversations; add --allow-remote if that is what you want"
        )
    stop = threading.Event()
    with _stop_on_signals(stop):  # installed first: a Ctrl-C while loading or starting also stops cleanly
        cassette = load_cassette(file)
        changed = threading.Event()

        def on_event(line: str) -> None:
            _say(f"  {line}")
            changed.set()

        options = ReplayOptions(
            match=match,
            pace=pace,
            ignore=tuple(ignore or ()),
            match_on=matchers,
            map_paths=tuple(mappings),
            on_event=on_event,
        )
        server = serve_cassette(cassette, options, listen_host=host, listen_port=port)
        for warning in cassette.warnings:
            _say(f"warning: {warning}")
        kind = "script cassette" if cassette.kind == "script" else "recording"
        _say(
            f"replaying {file} ({kind}, {len(cassette.model_entries)} model responses, "
            f"{len(cassette.other_entries)} other; match {match}, pace {pace})"
        )
        base = client_base_url(server.url, cassette.upstream_prefix)
        _say(f"listening on {server.url} (point clients at {base})")
        _say("Ctrl-C to stop" if not exit_when_done else "stops when every model response was served")
        try:
            _wait(server, changed, stop, exit_when_done)
        finally:
            server.stop()
    report = server.report
    _say(report.summary())
    for problem in report.problems():
        _say(f"  {problem}")
    if report_path is not None:
        text = json.dumps(report.as_dict(), indent=2, ensure_ascii=False) + "\n"
        try:  # owner-only: the report quotes (redacted) request bodies
            write_private(report_path, lambda stream: stream.write(text), inputs=[file])
        except ConfigError as err:
            raise ConfigError(f"--report: {err}") from None
    return not report.problems()


def _finished(server: ReplayServer) -> bool:
    report = server.report
    failed = bool(report.exhausted) or (report.match == "strict" and bool(report.mismatches))
    return (report.remaining == 0 or failed) and report.in_flight == 0


def _wait(
    server: ReplayServer, changed: threading.Event, stop: threading.Event, exit_when_done: bool
) -> None:
    """Block until `stop` (SIGINT/SIGTERM), or (with `exit_when_done`) until the replay is over."""
    while not stop.is_set():
        if exit_when_done and _finished(server):
            return
        changed.wait(0.2)  # bounded, so signals are seen promptly
        changed.clear()


def replay_command(
    file: Annotated[Path, typer.Argument(help="A ctxscope recording (.jsonl) or a script cassette (.json).")],
    listen: Annotated[str, typer.Option("--listen", help="HOST:PORT to listen on (port 0 = any).")] = (
        DEFAULT_LISTEN
    ),
    match: Annotated[
        str, typer.Option("--match", help="strict: requests must match the recording; sequential: in order.")
    ] = "strict",
    pace: Annotated[
        str, typer.Option("--pace", help="recorded: SSE events keep their recorded timing; fast: at once.")
    ] = "fast",
    ignore: Annotated[
        list[str] | None,
        typer.Option("--ignore", help="JSON path left out of matching, e.g. 'input[*].id' (repeatable)."),
    ] = None,
    exit_when_done: Annotated[
        bool,
        typer.Option("--exit-when-done", help="Stop once all model responses were served."),
    ] = False,
    report: Annotated[
        Path | None, typer.Option("--report", help="Write what the replay did as JSON to this file.")
    ] = None,
    match_on: Annotated[
        str,
        typer.Option(
            "--match-on", help="Matchers a request must pass, comma-separated (method,path,query,body)."
        ),
    ] = ",".join(DEFAULT_MATCH_ON),
    map_path: Annotated[
        list[str] | None,
        typer.Option("--map-path", help="OLD=NEW: recorded directory OLD stands for live NEW (repeatable)."),
    ] = None,
    allow_remote: Annotated[
        bool,
        typer.Option("--allow-remote", help="Allow a --listen address other machines can reach."),
    ] = False,
) -> None:
    """Serve a recording or a script cassette as the model backend, for any client (Codex, SDKs, harness)."""
    try:
        ok = run_replay(
            file,
            listen,
            match,
            pace,
            list(ignore or []),
            exit_when_done,
            report,
            match_on,
            list(map_path or []),
            allow_remote,
        )
    except CtxscopeError as err:
        print(f"error: {err}", file=sys.stderr)
        raise typer.Exit(2) from None
    if exit_when_done and not ok:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    """Add the `replay` command to the ctxscope app."""
    app.command("replay")(replay_command)

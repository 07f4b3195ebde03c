"""`ctxscope promote`: turn one turn of a recording into a cassette for a regression test.

A long session holds many requests; the test a person wants is usually "the client still builds turn
N the same way". This writes a cassette holding the recording's exchanges up to and including turn
N (every exchange that started before it, so side requests and `GET /models` come along), through
the same writer as a capture: redacted, deduplicated, SSE kept byte for byte. A test then replays it
strictly with the `ctxscope_cassette` marker, and a changed request fails the test with the context
that changed (docs/cassettes.md). The command prints that test.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer

from proxy.errors import ConfigError

__all__ = ["PromoteResult", "promote", "register", "pytest_snippet"]


@dataclass
class PromoteResult:
    cassette: Path
    turn: int
    exchanges: int
    model_requests: int


def promote(recording: Path, turn: int, out: Path, *, force: bool = False) -> PromoteResult:
    """Write the exchanges of `recording` through turn `turn` to the cassette `out`."""
    from inspector.analysis.analyse import analyse_recording
    from proxy.files import refuse_same_file
    from proxy.store.reader import read_recording
    from proxy.store.writer import RecordingWriter

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


def pytest_snippet(result: PromoteResult, test_dir: Path | None = None) -> str:
    """A pytest test replaying the cassette (its path relative to `test_dir` when it lies below it)."""
    where = result.cassette
    if test_dir is not None and where.resolve().is_relative_to(test_dir.resolve()):
        where = where.resolve().relative_to(test_dir.resolve())
    name = re.sub(r"\W+", "_", result.cassette.stem).strip("_").lower() or "cassette"
    return (
        f'@pytest.mark.ctxscope_cassette("{where}", past_end="allow")\n'
        f"def test_{name}(ctxscope_cassette):\n"
        f'    # Run your client against ctxscope_cassette.url + "/v1"; it must send these '
        f"{result.model_requests} requests again.\n"
        f"    # A changed request fails the test with the context that changed.\n"
    )


def promote_command(
    file: Annotated[Path, typer.Argument(help="A ctxscope recording (.jsonl).")],
    turn: Annotated[int, typer.Option("--turn", "-t", help="The last turn the cassette holds (1-based).")],
    out: Annotated[
        Path | None,
        typer.Option("--out", "-o", help="The cassette to write (default: cassettes/<file>-turn<N>.jsonl)."),
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="Replace --out if it exists.")] = False,
) -> None:
    """Make a cassette of a recording up to turn N, and print the pytest test that replays it."""
    target = out or Path("cassettes") / f"{file.stem}-turn{turn}.jsonl"
    result = promote(file, turn, target, force=force)
    print(
        f"wrote {result.cassette}: {result.exchanges} exchanges, {result.model_requests} model requests "
        f"(turn {result.turn} is the last)\n"
    )
    print(pytest_snippet(result, Path.cwd()), end="")


def register(app: typer.Typer) -> None:
    app.command("promote")(promote_command)

"""One account of a recording: the checks every fixture and every real-client capture must pass.

The batch analysis equals the incremental one (fed an exchange at a time and asked for its result
at every step, as `inspect --follow` does) as a whole object; `info`, the `diff` report and the TUI's
timeline give the same threads, turns and side requests.
"""

from __future__ import annotations

from pathlib import Path

from ctxscope.inspector.analysis import Analysis, IncrementalAnalysis, analyse_recording
from ctxscope.inspector.info import info_document
from ctxscope.inspector.reports import diff_report
from ctxscope.inspector.tui.viewmodel.session import Counts, Inspector
from ctxscope.proxy.store import read_recording
from ctxscope.proxy.store.summary import summarise


def assert_one_account(path: Path) -> Analysis:
    """Check `path` tells one story in every view; returns its analysis."""
    recording = read_recording(path)
    batch = analyse_recording(path)
    follow = IncrementalAnalysis(source=str(path), header=recording.header)
    for exchange in recording.exchanges:
        follow.add(exchange)
        follow.result()
    step = follow.extend([], warnings=recording.warnings)
    assert step == batch, "the incremental analysis differs from the batch analysis"
    for ours, theirs in zip(step.turns, batch.turns, strict=True):  # the state as published, too
        assert ours.state.model_dump() == theirs.state.model_dump()

    grouping = IncrementalAnalysis()
    for exchange in recording.exchanges:
        grouping.add(exchange)
    info = info_document(summarise(recording), grouping.grouping())
    report = diff_report(batch)
    report_counts = Counts(
        threads=sum(1 for t in report.threads if t.side is None),
        turns=sum(1 for t in report.turns if t.side is None),
        side_requests=sum(report.side_requests.values()),
    )
    info_counts = Counts(info["threads"], info["turns"], sum(info["side_requests"].values()))
    tui = Inspector(batch, other_requests=batch.other_requests).counts()
    assert info_counts == report_counts == tui, (info_counts, report_counts, tui)
    return batch

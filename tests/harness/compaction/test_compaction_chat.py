"""An automatic compaction is shown in the chat as a manual one is (one line), and a call the model
makes again after a mid-turn compaction is said to have run already."""

from __future__ import annotations

import io
from pathlib import Path

from ctxscope.harness.output import InteractivePrinter
from ctxscope.harness.repl import run_repl
from ctxscope.harness.runtime import AgentRuntime
from tests.harness.compaction.test_compaction import BIG, SMALL, options, setup
from tests.harness.harness_support import write_script


def test_an_automatic_mid_turn_compaction_prints_one_line_and_a_repeat_is_told(
    tmp_path: Path, ctxscope_home: Path
) -> None:
    repo = setup(tmp_path, ctxscope_home)
    list_dir = {"function_call": {"name": "list_dir", "arguments": {"path": "."}}}
    script = write_script(
        tmp_path / "s.json",
        [
            {"output": [list_dir], "usage": BIG},  # over the limit: the next step compacts first
            {"text": "Summary: listed the files.", "usage": SMALL},
            {"output": [list_dir], "usage": SMALL},  # the model lists them again
            {"text": "Done.", "usage": SMALL},
            {"text": "Summary again.", "usage": SMALL},
        ],
    )
    out, err = io.StringIO(), io.StringIO()
    lines = iter(["list the files", "/compact", "/quit"])
    with AgentRuntime(options(repo, script, tmp_path / "cap.jsonl"), emit=InteractivePrinter(out, err)) as runtime:
        run_repl(runtime, read=lambda _p: next(lines), err=err)
    said = err.getvalue().splitlines()
    auto = [s for s in said if s.startswith("compacted mid-turn automatically")]
    manual = [s for s in said if s.startswith("compacted: ")]
    assert len(auto) == 1 and auto[0].endswith("(window 1)")
    assert len(manual) == 1 and manual[0].endswith("(window 2)")
    assert said.count('note: list_dir {"path": "."} ran again: it had already run before this turn\'s compaction') == 1

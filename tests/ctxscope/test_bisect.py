"""`ctxscope bisect`: delta debugging over a recorded harness turn, against a real loopback upstream
whose answer depends on the context it is sent (a line of AGENTS.md, a tool being offered)."""

from __future__ import annotations

import json
import random
import threading
from pathlib import Path

import pytest

from ctxscope.bisect.ddmin import ddmin, worst_case_tests
from ctxscope.demo import run_demo
from ctxscope.inspector.analysis.units import merge_requests, request_units
from ctxscope.proxy.store import read_recording
from ctxscope.proxy.testing import (
    FakeUpstream,
    JsonReply,
    RecordedRequest,
    Reply,
    SseReply,
    function_call,
    response_stream,
    text_message,
    usage,
)
from tests.cli_support import run_cli

RULE = "Keep functions small and typed."


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo session (7 turns), recorded by the harness through its capture proxy."""
    root = tmp_path_factory.mktemp("demo")
    return run_demo(root / "work", root / "demo.jsonl").recording


def _config(tmp_path: Path, url: str) -> Path:
    config = tmp_path / "config.toml"
    config.write_text(f'[providers.local]\nbase_url = "{url}/v1"\n')  # no env_key: sends no key
    return config


def _calls_when(needle: str, *, noise: float = 0.0, seed: int = 7) -> tuple[list[int], object]:
    """A handler: exec_command when `needle` is in the request's input, a message otherwise."""
    rng = random.Random(seed)
    lock = threading.Lock()
    seen: list[int] = []

    def handler(request: RecordedRequest) -> Reply:
        body = request.json()
        present = needle in json.dumps(body.get("input"), ensure_ascii=False)
        with lock:
            seen.append(len(body.get("input") or []))
            if noise and rng.random() < noise:
                present = not present
        if present:
            stream = response_stream(function_call("exec_command", {"cmd": "ls"}), usage=usage(1000, 10))
        else:
            stream = response_stream(text_message("Nothing to run."), usage=usage(900, 5))
        return SseReply(stream)

    return seen, handler


def test_the_agents_md_line_the_answer_depends_on_is_named(recording: Path, tmp_path: Path) -> None:
    seen, handler = _calls_when(RULE)
    capture = tmp_path / "bisect.jsonl"
    with FakeUpstream(handler=handler) as upstream:  # type: ignore[arg-type]
        result = run_cli(
            "bisect", str(recording), "--turn", "1", "--until", "tool:exec_command", "--format", "json",
            "--config", str(_config(tmp_path, upstream.url)), "--provider", "local",
            "--capture", str(capture),
        )  # fmt: skip
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["recorded"] is True and doc["baseline"] is True
    assert [u["id"] for u in doc["found"]] == [f"fragment:agents_md:{tmp_path_root(recording)}"]
    # Within ddmin's bound for the units it could remove (plus the baseline), and every request recorded.
    n = len(doc["units"])
    assert doc["requests"] <= worst_case_tests(n) + 1
    assert doc["requests"] == len(seen) == len(read_recording(capture).model_requests())
    assert doc["requests"] < 2 * n, "one cause among ~30 units takes a logarithmic number of requests"
    assert doc["input_tokens"] > 0 and doc["output_tokens"] > 0


def tmp_path_root(recording: Path) -> str:
    """The demo repo's path, as the AGENTS.md fragment of turn 1 names it."""
    body = read_recording(recording).model_requests()[0].request_body
    ids = [u.id for u in request_units(body).units if u.id.startswith("fragment:agents_md:")]
    assert len(ids) == 1
    return ids[0].split("fragment:agents_md:", 1)[1]


def test_text_output_names_the_fragment_and_the_cost(recording: Path, tmp_path: Path) -> None:
    _, handler = _calls_when(RULE)
    with FakeUpstream(handler=handler) as upstream:  # type: ignore[arg-type]
        result = run_cli(
            "bisect", str(recording), "-t", "1", "--until", "tool:exec_command", "--no-capture",
            "--config", str(_config(tmp_path, upstream.url)), "--provider", "local",
        )  # fmt: skip
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "removing 1 unit flips it (tool:exec_command then does not hold):" in out
    assert "  - agents_md:" in out and "# AGENTS.md instructions for" in out
    assert "requests: " in out and "tokens spent: input " in out


def test_a_noisy_model_with_repeat_still_finds_the_unit(recording: Path, tmp_path: Path) -> None:
    # One answer in five is flipped at random; asking five times and taking the majority sees through it.
    _, handler = _calls_when(RULE, noise=0.2, seed=3)
    with FakeUpstream(handler=handler) as upstream:  # type: ignore[arg-type]
        result = run_cli(
            "bisect", str(recording), "-t", "1", "--until", "tool:exec_command", "--repeat", "5",
            "--budget", "400", "--format", "json", "--no-capture",
            "--config", str(_config(tmp_path, upstream.url)), "--provider", "local",
        )  # fmt: skip
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert [u["id"] for u in doc["found"]] == [f"fragment:agents_md:{tmp_path_root(recording)}"]
    assert doc["requests"] % 5 == 0


def test_a_tool_being_offered_is_found_and_a_rejected_edit_is_no_flip(
    recording: Path, tmp_path: Path
) -> None:
    # The model calls update_plan only when it is offered; a request without its prompt is rejected.
    def handler(request: RecordedRequest) -> Reply:
        body = request.json()
        if "Now add a test for it." not in json.dumps(body.get("input")):
            return JsonReply({"error": {"message": "input must hold a user message"}}, status=400)
        names = [t.get("name") for t in body.get("tools", [])]
        if "update_plan" in names:
            return SseReply(response_stream(function_call("update_plan", {"plan": []})))
        return SseReply(response_stream(text_message("Done.")))

    with FakeUpstream(handler=handler) as upstream:
        result = run_cli(
            "bisect", str(recording), "-t", "5", "--until", "tool:update_plan", "--format", "json",
            "--no-capture", "--config", str(_config(tmp_path, upstream.url)), "--provider", "local",
        )  # fmt: skip
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert [u["id"] for u in doc["found"]] == ["tool:update_plan"]
    assert all(a["verdict"] is not True for a in doc["attempts"] if "tool:update_plan" not in a["changed"])
    rejected = [a for a in doc["attempts"] if a["verdict"] is None and a["changed"]]
    assert rejected and all("400" in a["errors"][0] for a in rejected), "rejections are reported as such"


def test_status_failed_is_a_predicate_not_a_rejection(recording: Path, tmp_path: Path) -> None:
    # The backend fails the response (status failed) unless the permissions fragment is there.
    def handler(request: RecordedRequest) -> Reply:
        if "<permissions instructions>" in request.body.decode():
            return SseReply(response_stream(text_message("fine")))
        return SseReply(response_stream(text_message(""), failed=("invalid_prompt", "no permissions")))

    with FakeUpstream(handler=handler) as upstream:
        result = run_cli(
            "bisect", str(recording), "-t", "1", "--until", "status:failed", "--format", "json",
            "--no-capture", "--config", str(_config(tmp_path, upstream.url)), "--provider", "local",
        )  # fmt: skip
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["baseline"] is False
    assert [u["id"] for u in doc["found"]] == ["fragment:permissions"]


def test_two_recordings_name_the_one_difference_that_flips(recording: Path, tmp_path: Path) -> None:
    # BAD: the same session where AGENTS.md lost its rule and the prompt's wording changed.
    rec = read_recording(recording)
    lines = recording.read_text(encoding="utf-8")
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        lines.replace(RULE, "Prefer long functions.").replace("Follow $demo-skill", "Use $demo-skill")
    )
    assert len(read_recording(bad).model_requests()) == len(rec.model_requests())
    _, handler = _calls_when(RULE)
    with FakeUpstream(handler=handler) as upstream:  # type: ignore[arg-type]
        result = run_cli(
            "bisect", str(recording), str(bad), "-t", "1", "--until", "tool:exec_command", "--format", "json",
            "--no-capture", "--config", str(_config(tmp_path, upstream.url)), "--provider", "local",
        )  # fmt: skip
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    labels = [u["label"] for u in doc["units"]]
    assert len(labels) == 2, labels  # the AGENTS.md text and the user message
    assert len(doc["found"]) == 1 and doc["found"][0]["id"].startswith("~fragment:agents_md:")
    assert "changed" in doc["found"][0]["label"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-t", "1"], "say what to look for: --until PREDICATE or --until-python EXPR"),
        (["-t", "1", "--until", "calls:x"], "--until 'calls:x': write tool:NAME"),
        (["-t", "1", "--until", "text~("], "not a regular expression"),
        (["-t", "1", "--until-python", "calls ="], "not a Python expression"),
        (["-t", "99", "--until", "tool:x"], "there is no turn 99"),
        (["-t", "1", "--until", "tool:x", "--repeat", "0"], "ask between 1 and 15 times"),
        (["-t", "1", "--until", "tool:x", "--format", "xml"], "--format 'xml': use text or json"),
    ],
)
def test_bad_input_is_one_line(recording: Path, tmp_path: Path, args: list[str], message: str) -> None:
    before = recording.read_bytes()
    result = run_cli(
        "bisect", str(recording), *args, "--no-capture",
        "--config", str(_config(tmp_path, "http://127.0.0.1:9")), "--provider", "local",
    )  # fmt: skip
    assert result.returncode == 2, result.stdout + result.stderr
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert recording.read_bytes() == before


def test_units_round_trip_and_keep_calls_with_their_outputs(recording: Path) -> None:
    for exchange in read_recording(recording).model_requests():
        body = exchange.request_body
        cut = request_units(body)
        assert cut.render([u.id for u in cut.units]) == body
        for unit in cut.units:
            if unit.section != "history":
                continue
            rendered = cut.render([u.id for u in cut.units if u.id != unit.id])
            call_ids = {i.get("call_id") for i in rendered["input"] if i.get("type", "").endswith("call")}
            outputs = {i.get("call_id") for i in rendered["input"] if i.get("type", "").endswith("_output")}
            assert outputs <= call_ids, f"removing {unit.label} left an output without its call"


def test_merge_applies_every_difference_to_reach_the_other_request(recording: Path) -> None:
    requests = [e.request_body for e in read_recording(recording).model_requests()]
    for good, bad in zip(requests, requests[1:], strict=False):
        merge = merge_requests(good, bad)
        assert merge.apply([]) == good
        applied = merge.apply([d.id for d in merge.differences])
        assert applied["input"] == bad["input"] and applied["tools"] == bad["tools"]
        assert applied["model"] == bad["model"]


def test_ddmin_is_one_minimal_and_within_its_bound() -> None:
    units = [f"u{i}" for i in range(40)]
    single = ddmin(units, lambda s: "u17" in s)
    assert single.found == ["u17"] and single.tests <= 2 * 6 + 2
    pair = ddmin(units, lambda s: "u3" in s and "u30" in s)
    assert pair.found == ["u3", "u30"] and pair.tests <= worst_case_tests(40)
    assert ddmin(units, lambda s: False).found is None
    rejected = ddmin(units, lambda s: None if len(s) > 20 else "u5" in s)
    assert rejected.found == ["u5"]
    capped = ddmin(units, lambda s: "u5" in s, budget=3)
    assert capped.exhausted and capped.tests == 3


PLANTED = "Run `make check` before every commit."
LONG_AGENTS = "\\n".join(
    ["Use four spaces.", "Prefer pathlib over os.path.", "No global state.", PLANTED, "Write docstrings.",
     "Pin dependencies.", "Explain changes in one sentence."]
)  # fmt: skip


def test_bisect_goes_down_to_the_planted_line_of_a_long_agents_md(recording: Path, tmp_path: Path) -> None:
    # The demo session with a longer AGENTS.md (the recording's JSON text, edited in place); the model
    # calls exec_command only while the planted line is in the context.
    long = tmp_path / "long.jsonl"
    text = recording.read_text(encoding="utf-8")
    assert "Keep functions small and typed. Explain changes in one sentence." in text
    long.write_text(text.replace("Keep functions small and typed. Explain changes in one sentence.", LONG_AGENTS))
    _, handler = _calls_when(PLANTED)
    with FakeUpstream(handler=handler) as upstream:  # type: ignore[arg-type]
        result = run_cli(
            "bisect", str(long), "--turn", "1", "--until", "tool:exec_command", "--format", "json",
            "--no-capture", "--config", str(_config(tmp_path, upstream.url)), "--provider", "local",
        )  # fmt: skip
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    fragment = f"fragment:agents_md:{tmp_path_root(recording)}"
    assert len(doc["found"]) == 1, doc["found"]
    found = doc["found"][0]
    assert found["id"].startswith(f"{fragment}@"), found  # a line of the fragment, not the whole file
    assert found["label"].endswith(json.dumps(PLANTED)), found
    assert doc["requests"] < 30, "the file, then its 6 lines: both logarithmic"


def test_resend_and_bisect_send_one_body_on_a_previous_response_id_chain(tmp_path: Path) -> None:
    # chain.jsonl's turn 2 sent 1 item and previous_response_id resp_1; both commands send the context
    # whole (the 5 items rebuilt, no id), the same body, to an upstream that logs what it got.
    chain = Path(__file__).parents[1] / "fixtures" / "inspector" / "chain.jsonl"
    recorded = read_recording(chain).model_requests()[1].request_body
    assert recorded["previous_response_id"] == "resp_1" and len(recorded["input"]) == 1
    with FakeUpstream() as upstream:
        upstream.reply(*(SseReply(response_stream(text_message("ok"))) for _ in range(2)))
        config = str(_config(tmp_path, upstream.url))
        resent = run_cli("resend", str(chain), "--turn", "2", "--no-capture", "--config", config, "--provider", "local")
        assert resent.returncode == 0, resent.stderr
        assert "its 4 earlier item(s) are sent in the body instead" in resent.stdout
        bisected = run_cli(
            "bisect", str(chain), "--turn", "2", "--until", "tool:x", "--budget", "1", "--no-capture",
            "--config", config, "--provider", "local",
        )  # fmt: skip
        assert bisected.returncode == 0, bisected.stderr
        bodies = [r.json() for r in upstream.requests]
    assert len(bodies) == 2 and bodies[0] == bodies[1]
    assert "previous_response_id" not in bodies[0] and len(bodies[0]["input"]) == 5


def test_bisect_never_captures_into_an_input(recording: Path, tmp_path: Path) -> None:
    result = run_cli(
        "bisect", str(recording), "--turn", "1", "--until", "tool:x", "--capture", str(recording),
        "--config", str(_config(tmp_path, "http://127.0.0.1:9")), "--provider", "local",
    )  # fmt: skip
    assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1, result.stderr

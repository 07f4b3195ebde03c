"""Normalisation of volatile values: what two runs of the same client differ in, and what they don't."""

from __future__ import annotations

import json

import pytest

from ctxscope.proxy.replay.normalise import IGNORED, Normaliser, find_cwds, parse_json_path


def test_item_ids_uuids_dates_and_redactions_become_placeholders() -> None:
    n = Normaliser()
    text = (
        "msg_68a1b2c3d4 rs_0f9e8d7c fc_a1b2c3d4-e5 call_Xy12ab 123e4567-e89b-12d3-a456-426614174000 "
        "2026-11-29T10:11:12.5Z 2026-11-29 <redacted:api_key:abc123>"
    )
    assert n.text(text) == ("<id:msg> <id:rs> <id:fc> <id:call> <uuid> <datetime> <date> <redacted:api_key>")


def test_words_that_look_like_prefixes_are_kept() -> None:
    n = Normaliser()
    assert n.text("exec_command msg_ rs_x fc_abc") == "exec_command msg_ rs_x fc_abc"


def test_volatile_keys_anywhere_and_inside_json_in_string_metadata() -> None:
    n = Normaliser()
    body = {
        "prompt_cache_key": "thread-1",
        "client_metadata": {
            "x-codex-installation-id": "inst-9",
            "x-codex-window-id": "thread-1:2",
            "x-codex-turn-metadata": json.dumps(
                {"turn_id": "t-1", "request_kind": "turn", "session_id": "s"}
            ),
        },
    }
    out = n.body(body)
    assert out == {
        "prompt_cache_key": "<prompt_cache_key>",
        "client_metadata": {
            "x-codex-installation-id": "<x-codex-installation-id>",
            "x-codex-window-id": "<thread>:2",
            "x-codex-turn-metadata": {
                "turn_id": "<turn_id>",
                "request_kind": "turn",
                "session_id": "<session_id>",
            },
        },
    }


def test_the_window_number_still_counts() -> None:
    n = Normaliser()
    a = n.body({"x-codex-window-id": "abc:1"})
    b = n.body({"x-codex-window-id": "xyz:2"})
    assert a != b


def test_client_versions_and_codex_tool_output_details() -> None:
    n = Normaliser()
    assert n.text("codex_cli_rs/0.169.0 (Linux; x86_64)") == "codex_cli_rs/<version> (Linux; x86_64)"
    out = n.text("Chunk ID: a1b2\nWall time: 0.1234 seconds\nProcess exited with code 0")
    assert out == "Chunk ID: <id>\nWall time: <n>\nProcess exited with code 0"
    # counted over an output whose paths differ in length from checkout to checkout
    counted = n.text("Original token count: 18\nOutput:\n/a/repo")
    assert counted == "Original token count: <n>\nOutput:\n/a/repo"
    assert n.body({"client_version": "1.2.3", "versions": "kept"}) == {
        "client_version": "<client_version>",
        "versions": "kept",
    }


def test_environment_context_date_and_timezone() -> None:
    n = Normaliser()
    text = "<environment_context><current_date>Sat Nov 29</current_date><timezone>Europe/Paris</timezone>"
    assert n.text(text) == "<environment_context><current_date><date></current_date><timezone><tz></timezone>"


def test_each_side_maps_its_own_working_directory() -> None:
    recorded = Normaliser(cwds={"/home/ann/src/proj"})
    live = Normaliser(cwds={"/srv/ci/checkout"})
    a = recorded.text("<cwd>/home/ann/src/proj</cwd> edit /home/ann/src/proj/a.py")
    b = live.text("<cwd>/srv/ci/checkout</cwd> edit /srv/ci/checkout/a.py")
    assert a == b == "<cwd><cwd></cwd> edit <cwd>/a.py"
    # a sibling directory with the same prefix is not the working directory
    assert recorded.text("/home/ann/src/project2/x") == "/home/ann/src/project2/x"


def test_temp_paths_including_pytest_tmp_dirs() -> None:
    n = Normaliser()
    a = n.text("/tmp/pytest-of-ann/pytest-12/test_run0/repo/a.py and /tmp/tmpab12cd34/x")
    b = n.text("/tmp/pytest-of-ci/pytest-3/test_run0/repo/a.py and /tmp/tmpzz99yy00/x")
    assert a == b == "<tmp>/repo/a.py and <tmp>/x"


def test_the_text_around_a_path_is_kept() -> None:
    # Codex's permissions part lists its writable roots in backticks, TMPDIR's value among them: the
    # placeholders take the paths and leave every backtick, comma and full stop where it was.
    n = Normaliser(cwds={"/work/w/repo"})
    text = "The writable roots are `/tmp`, `$TMPDIR`, `/tmp/user-tmp`, `/work/w/repo`."
    assert n.text(text) == "The writable roots are `/tmp`, `$TMPDIR`, `<tmp>`, `<cwd>`."
    assert n.text("see /tmp/abc. Then (/tmp/x/y), [/tmp/z]; /tmp/q: done") == (
        "see <tmp>. Then (<tmp>/y), [<tmp>]; <tmp>: done"
    )
    assert n.text("/tmp/a.b.c and /tmp/pytest-of-ann/pytest-1/t0/repo.") == "<tmp> and <tmp>/repo."


def test_find_cwds_reads_environment_context_and_metadata() -> None:
    body = {
        "input": [
            {"content": [{"text": "<environment_context>\n  <cwd>/repo/one</cwd>\n</environment_context>"}]}
        ],
        "client_metadata": {"x-codex-turn-metadata": json.dumps({"cwd": "/repo/two/"})},
    }
    assert find_cwds(body) == {"/repo/one", "/repo/two"}


def test_learned_cwd_applies_to_later_text() -> None:
    n = Normaliser()
    n.learn({"text": "<cwd>/work/x</cwd>"})
    assert n.text("cat /work/x/README.md") == "cat <cwd>/README.md"


@pytest.mark.parametrize(
    ("path", "segments"),
    [
        ("metadata.run", ["metadata", "run"]),
        ("$.input[3].content[0].text", ["input", 3, "content", 0, "text"]),
        ("input[*].id", ["input", "*", "id"]),
        ('client_metadata["x.y"]', ["client_metadata", "x.y"]),
        ("client_metadata.x-codex-window-id", ["client_metadata", "x-codex-window-id"]),
    ],
)
def test_parse_json_path(path: str, segments: list[str | int]) -> None:
    assert parse_json_path(path) == segments


def test_bad_json_path_is_refused() -> None:
    with pytest.raises(ValueError):
        parse_json_path("input[")


def test_ignored_paths_are_replaced_after_normalisation() -> None:
    n = Normaliser(ignore=("metadata.run", "input[*].note", "tools[9].name"))
    body = {"metadata": {"run": 7, "keep": 1}, "input": [{"note": "a"}, {"note": "b", "x": 1}], "tools": []}
    assert n.body(body) == {
        "metadata": {"run": IGNORED, "keep": 1},
        "input": [{"note": IGNORED}, {"note": IGNORED, "x": 1}],
        "tools": [],
    }


def test_normalising_does_not_change_the_input() -> None:
    body = {"input": [{"id": "msg_12345678", "text": "/tmp/abc/x"}]}
    before = json.dumps(body)
    Normaliser().body(body)
    assert json.dumps(body) == before


def test_moments_in_time_by_key_and_paths_used_as_keys() -> None:
    n = Normaliser(cwds={"/home/a/repo"})
    meta = {"turn_started_at_unix_ms": 1795981314084, "created_at": 1, "started_at": "x", "format": "keep"}
    assert n.body(meta) == {
        "turn_started_at_unix_ms": "<turn_started_at_unix_ms>",
        "created_at": "<created_at>",
        "started_at": "<started_at>",
        "format": "keep",
    }
    workspaces = {"/home/a/repo": {"has_changes": False}, "/tmp/tmpab12cd/x": 1}
    assert n.body(workspaces) == {"<cwd>": {"has_changes": False}, "<tmp>/x": 1}


def test_codex_websocket_frame_times_are_volatile() -> None:
    # Codex 0.169 over the socket: a send time in client_metadata (epoch ms) and a creation time per
    # message (epoch s); both differ on every run, so strict replay of the default Codex needs them gone.
    frame = {
        "client_metadata": {"x-codex-ws-stream-request-start-ms": "1795981314084", "session_id": "s"},
        "input": [
            {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": "hi"}],
                "internal_chat_message_metadata_passthrough": {
                    "turn_id": "t1",
                    "create_time": 1795981314.084,
                    "content_item_kinds": ["user.text"],
                },
            }
        ],
    }
    out = Normaliser().body(frame)
    assert (
        out["client_metadata"]["x-codex-ws-stream-request-start-ms"] == "<x-codex-ws-stream-request-start-ms>"
    )
    passthrough = out["input"][0]["internal_chat_message_metadata_passthrough"]
    assert passthrough == {
        "turn_id": "<turn_id>",
        "create_time": "<create_time>",
        "content_item_kinds": ["user.text"],
    }

"""`PrefixList` (issue 36): lists that extend one another share one backing list, and a reader that
asks for it (`Decoder(shared_inputs=True)`, the inspector's live feed) gets each request's input as
a `SharedInput`: a thread's items held once, read exactly as the real lists `read_recording` gives."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from benchmarks.bench_analysis import build, write
from ctxscope.proxy.responses.vocabulary import is_compaction_trigger
from ctxscope.proxy.store import SharedInput, read_recording
from ctxscope.proxy.store.follow import RecordingFollower
from ctxscope.proxy.store.prefix_list import PrefixList
from tests.inspector.test_growth_golden import _branching


def test_a_list_built_on_another_shares_its_storage_until_it_diverges() -> None:
    first = PrefixList(None, 0, ["a", "b"])
    second = PrefixList(first, 2, ["c"])
    third = PrefixList(second, 3, ["d"])
    assert (list(first), list(second), list(third)) == (["a", "b"], ["a", "b", "c"], ["a", "b", "c", "d"])
    assert first.shares_with(second) and second.shares_with(third)
    # a sibling of `third` appending the very object `third` holds next still shares
    same = PrefixList(second, 3, [third[3]])
    assert same.shares_with(third) and same == third
    # one that appends something else copies its own prefix; the others are untouched
    other = PrefixList(second, 3, ["x"])
    assert not other.shares_with(third)
    assert list(other) == ["a", "b", "c", "x"] and list(third) == ["a", "b", "c", "d"]
    # a shorter keep is a slice bound, as `del list[keep:]` reads it
    cut = PrefixList(third, -2, ["y"])
    assert list(cut) == ["a", "b", "y"] and cut.keep == 2 and cut.base is third
    with pytest.raises(TypeError):
        PrefixList(third, "2")


def test_it_reads_as_a_list_does() -> None:
    values = list(range(10))
    view = PrefixList(PrefixList(None, 0, values), 7, [70, 80])
    expected = values[:7] + [70, 80]
    assert len(view) == 9 and list(view) == expected and view[:] == expected
    for index in range(-9, 9):
        assert view[index] == expected[index]
    for index in (9, -10):
        with pytest.raises(IndexError):
            view[index]
    assert view[2:8:3] == expected[2:8:3] and view[::-1] == expected[::-1]
    assert list(reversed(view)) == expected[::-1]
    assert view == expected and expected == view and view != expected[:-1] and view != tuple(expected)
    assert view + [1] == [*expected, 1] and [1] + view == [1, *expected]
    assert 70 in view and 8 not in view and view.index(80) == 8 and view.count(0) == 1
    assert repr(view) == f"PrefixList({expected!r})"
    with pytest.raises(TypeError):
        hash(view)
    with pytest.raises(TypeError):
        json.dumps(view)  # a JSON encoder is handed `list(view)`, never a silent empty list
    assert json.loads(json.dumps(list(view))) == expected


def test_a_reader_on_another_thread_sees_only_its_own_items_while_a_sibling_grows() -> None:
    root = PrefixList(None, 0, range(1000))
    snapshot = PrefixList(root, 1000)
    stop = threading.Event()
    seen: list[int] = []

    def read() -> None:
        while not stop.is_set():
            seen.append(sum(snapshot))

    reader = threading.Thread(target=read)
    reader.start()
    tip = root
    for n in range(300):  # each extends the backing list in place
        tip = PrefixList(tip, len(tip), [n])
    stop.set()
    reader.join(10)
    assert tip.shares_with(snapshot) and len(tip) == 1300
    assert seen and set(seen) == {sum(range(1000))}


def test_shared_inputs_equal_the_readers_lists_and_are_held_once(tmp_path: Path) -> None:
    """The inspector's reader (`shared_inputs`) on a growing session and a branching one: every
    input equal to `read_recording`'s, naming the same base and keep, and a growing thread's inputs
    one backing list."""
    for name, bodies in (("growing", build(60)), ("branching", _branching(40))):
        path = tmp_path / f"{name}.jsonl"
        write(bodies, path)
        plain = read_recording(path).exchanges
        follower = RecordingFollower(path, shared_inputs=True)
        shared = follower.poll()
        assert len(shared) == len(plain) == len(bodies)
        ids = {e.id: n for n, e in enumerate(plain)}
        for a, b in zip(plain, shared, strict=True):
            items, view = a.request_body["input"], b.request_body["input"]
            assert isinstance(view, SharedInput) and not isinstance(view, list)
            assert view == items and list(view) == items and view.added() == items.added()
            assert view.keep == items.keep
            assert (view.base is None) == (items.base is None)
            if view.base is not None:
                base_of = next(e for e in plain if e.request_body["input"] is items.base)
                assert shared[ids[base_of.id]].request_body["input"] is view.base
        if name == "growing":
            inputs = [e.request_body["input"] for e in shared]
            assert all(inputs[0].shares_with(x) for x in inputs[1:])


def test_a_compaction_trigger_is_seen_in_a_shared_input() -> None:
    trigger = [{"type": "message", "role": "user", "content": "hi"}, {"type": "compaction_trigger"}]
    assert is_compaction_trigger({"input": SharedInput(None, 0, trigger)})
    assert not is_compaction_trigger({"input": SharedInput(None, 0, trigger[:1])})
    assert not is_compaction_trigger({"input": "compaction_trigger"})

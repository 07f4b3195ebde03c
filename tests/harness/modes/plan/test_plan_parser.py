"""The `<proposed_plan>` stream parser on its own: every split of the text gives the same result."""

from __future__ import annotations

import pytest

from ctxscope.harness.modes.plan import ProposedPlanParser, Segment, split_proposed_plan

ANSWER = "Looked at the repo.\n<proposed_plan>\n# Add greet\n1. add greet()\n</proposed_plan>\nSay go.\n"


def _stream(text: str, size: int) -> tuple[str, str, ProposedPlanParser]:
    parser = ProposedPlanParser()
    segments: list[Segment] = []
    for start in range(0, len(text), size):
        segments += parser.feed(text[start : start + size])
    segments += parser.finish()
    visible = "".join(s.text for s in segments if s.kind == "text")
    plan = "".join(s.text for s in segments if s.kind == "plan")
    return visible, plan, parser


@pytest.mark.parametrize("size", [1, 2, 3, 5, 7, 16, 1000])
def test_any_chunking_gives_the_same_split(size: int) -> None:
    visible, plan, parser = _stream(ANSWER, size)
    assert visible == "Looked at the repo.\nSay go.\n"
    assert plan == parser.plan == "# Add greet\n1. add greet()\n"
    assert (parser.extra_blocks, parser.unclosed) == (0, False)


def test_a_partial_tag_is_held_back_until_the_line_decides() -> None:
    parser = ProposedPlanParser()
    assert parser.feed("Intro\n<propos") == [Segment("text", "Intro\n")]
    assert parser.feed("ed_plan>") == []  # still could be the tag line
    assert parser.feed("\n# P\n</pro") == [Segment("plan", "# P\n")]
    assert parser.feed("posed_plan>\nafter") == [Segment("text", "after")]
    assert parser.plan == "# P\n"


def test_a_tag_that_is_not_alone_on_its_line_is_plain_text() -> None:
    text = "Use <proposed_plan> tags.\nx <proposed_plan>\n<proposed_plan> y\n"
    split = split_proposed_plan(text)
    assert (split.visible, split.plan) == (text, None)
    # A released line start is not re-read as a line start once the rest arrives.
    parser = ProposedPlanParser()
    assert parser.feed("ab") == [Segment("text", "ab")]
    assert parser.feed("<proposed_plan>\n") == [Segment("text", "<proposed_plan>\n")]
    assert parser.plan is None


def test_tags_with_surrounding_spaces_still_count() -> None:
    split = split_proposed_plan("  <proposed_plan>  \nplan\n\t</proposed_plan>\n")
    assert (split.visible, split.plan) == ("", "plan\n")


def test_only_the_first_block_of_an_answer_is_the_plan() -> None:
    second = "<proposed_plan>\n# Second\n</proposed_plan>\n"
    split = split_proposed_plan(ANSWER + second)
    assert split.plan == "# Add greet\n1. add greet()\n"
    assert split.extra_blocks == 1
    assert split.visible == "Looked at the repo.\nSay go.\n" + second


def test_an_unclosed_block_is_not_a_plan_and_is_shown() -> None:
    text = "Intro\n<proposed_plan>\n# Half\nstep"
    visible, plan, parser = _stream(text, 4)
    assert parser.plan is None and parser.unclosed
    assert plan == "# Half\nstep"  # it streamed as plan deltas while it looked like one
    assert visible == text  # and was released whole at the end
    assert split_proposed_plan(text).visible == text


def test_text_without_a_block_passes_unchanged() -> None:
    for text in ["", "plain", "a\nb\n", "<", "</proposed_plan>\n"]:
        assert split_proposed_plan(text).visible == text

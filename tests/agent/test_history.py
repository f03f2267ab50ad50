"""The history: compaction that clips what it keeps when keeping it alone is over the budget, and
calls a cancelled turn left open."""

from __future__ import annotations

import json

from skillshelf.agent.history import (
    AssistantMessage,
    ToolCall,
    ToolOutput,
    ToolResults,
    UserMessage,
    clip_to_budget,
    close_open_calls,
    history_tokens,
)


def test_one_message_over_the_budget_is_clipped_to_it_with_its_ends_and_a_count() -> None:
    task = "START " + "x" * 800_000 + " END"
    [clipped], count = clip_to_budget([UserMessage(text=task)], 1000)
    assert count == 1 and isinstance(clipped, UserMessage)
    assert clipped.text.startswith("START ") and clipped.text.endswith(" END")
    cut = len(task) - len(clipped.text.split("\n... [")[0]) - len(clipped.text.rsplit("] ...\n", 1)[1])
    assert f"[{cut} characters cut from this message to fit the context]" in clipped.text
    assert history_tokens([clipped]) <= 1000


def test_an_oversized_tool_call_argument_is_clipped_and_the_call_kept() -> None:
    call = ToolCall(id="c1", name="write_file", arguments={"path": "a.txt", "content": "y" * 2_000_000})
    history = [
        UserMessage(text="task"),
        AssistantMessage(tool_calls=(call,)),
        ToolResults(outputs=(ToolOutput(call_id="c1", name="write_file", output="wrote"),)),
    ]
    kept, count = clip_to_budget(history, 2000)
    assert count == 1 and kept[0] is history[0] and kept[2] is history[2]
    [clipped_call] = kept[1].tool_calls  # type: ignore[union-attr]
    assert clipped_call.id == "c1" and clipped_call.arguments["path"] == "a.txt"
    assert "characters cut from this message" in clipped_call.arguments["content"]
    assert history_tokens(kept) <= 2000 and json.dumps(dict(clipped_call.arguments))


def test_messages_within_the_budget_are_kept_as_they_are() -> None:
    history = [UserMessage(text="a" * 400), AssistantMessage(text="b" * 400)]
    kept, count = clip_to_budget(history, 1000)
    assert count == 0 and kept == history


def test_only_the_largest_messages_are_clipped() -> None:
    small = UserMessage(text="task " * 100)
    big = ToolResults(outputs=(ToolOutput(call_id="c", name="bash", output="z" * 400_000),))
    kept, count = clip_to_budget([small, AssistantMessage(text="ok"), big], 5000)
    assert count == 1 and kept[0] is small and history_tokens(kept) <= 5000


def test_closing_open_calls_answers_each_call_of_a_cancelled_turn() -> None:
    calls = (ToolCall(id="1", name="bash", arguments={"command": "sleep 9"}), ToolCall(id="2", name="ls"))
    history = [UserMessage(text="go"), AssistantMessage(text="", tool_calls=calls)]
    closed = close_open_calls(history, "error: cancelled")
    assert closed[:2] == history and isinstance(closed[2], ToolResults)
    assert [(o.call_id, o.output, o.is_error) for o in closed[2].outputs] == [
        ("1", "error: cancelled", True),
        ("2", "error: cancelled", True),
    ]
    assert close_open_calls(closed, "error: cancelled") == closed  # nothing left open

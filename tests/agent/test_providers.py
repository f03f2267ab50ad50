"""Providers: a reply without an assistant message is a failed call (AG003), not a crash."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from provider_standins import Replying, anthropic_replying, openai_replying

from skillshelf.errors import ModelCallError


@pytest.mark.parametrize(
    "reply", [SimpleNamespace(choices=[]), SimpleNamespace(choices=None), SimpleNamespace()]
)
def test_an_openai_reply_without_choices_is_a_failed_call_with_a_hint(reply: Any) -> None:
    with pytest.raises(ModelCallError) as caught:
        openai_replying(reply).complete(system="s", history=(), tools=())
    assert caught.value.code == "AG003" and "choices" in str(caught.value) and caught.value.hint


@pytest.mark.parametrize("reply", [SimpleNamespace(content=None), SimpleNamespace()])
def test_an_anthropic_reply_without_content_blocks_is_a_failed_call(reply: Any) -> None:
    with pytest.raises(ModelCallError) as caught:
        anthropic_replying(reply).complete(system="s", history=(), tools=())
    assert caught.value.code == "AG003" and "content" in str(caught.value)


def test_an_anthropic_reply_with_no_blocks_is_an_empty_reply() -> None:
    message = anthropic_replying(SimpleNamespace(content=[])).complete(system="s", history=(), tools=())
    assert message.text == "" and message.tool_calls == () and message.ending == "empty"


def _choice(content: Any, finish: str, refusal: Any = None) -> Any:
    message = SimpleNamespace(content=content, tool_calls=None, refusal=refusal)
    return SimpleNamespace(choices=[SimpleNamespace(message=message, finish_reason=finish)])


@pytest.mark.parametrize(
    ("reply", "ending", "text"),
    [
        (_choice("Half an ans", "length"), "cut_off", "Half an ans"),
        (_choice(None, "stop", refusal="I can't help with that."), "refused", "I can't help with that."),
        (_choice(None, "content_filter"), "refused", ""),
        (_choice(None, "stop"), "empty", ""),
        (_choice("  \n", "stop"), "empty", "  \n"),
        (_choice("All done.", "stop"), "end", "All done."),
    ],
)
def test_an_openai_reply_says_whether_it_was_cut_off_refused_or_empty(
    reply: Any, ending: str, text: str
) -> None:
    message = openai_replying(reply).complete(system="s", history=(), tools=())
    assert (message.ending, message.text) == (ending, text)


def _blocks(stop: str, *texts: str) -> Any:
    return SimpleNamespace(content=[SimpleNamespace(type="text", text=t) for t in texts], stop_reason=stop)


@pytest.mark.parametrize(
    ("reply", "ending"),
    [
        (_blocks("max_tokens", "Half an ans"), "cut_off"),
        (_blocks("refusal", "I won't."), "refused"),
        (_blocks("end_turn"), "empty"),
        (_blocks("end_turn", "All done."), "end"),
    ],
)
def test_an_anthropic_reply_says_whether_it_was_cut_off_refused_or_empty(reply: Any, ending: str) -> None:
    assert anthropic_replying(reply).complete(system="s", history=(), tools=()).ending == ending


class _Failing(Replying):
    def __init__(self, status: int) -> None:
        super().__init__("openai", None)
        self.status = status

    def create(self, **request: Any) -> Any:
        cause = type("APIStatusError", (Exception,), {"status_code": self.status})("boom")
        raise ModelCallError("the call failed", hint="check --base-url", code="AG003") from cause


@pytest.mark.parametrize(("status", "words"), [(429, "wait"), (503, "try again later"), (404, "--base-url")])
def test_a_failed_call_s_hint_fits_its_http_status(status: int, words: str) -> None:
    provider = openai_replying(None)
    provider._client = _Failing(status)  # type: ignore[assignment]
    with pytest.raises(ModelCallError) as caught:
        provider.complete(system="s", history=(), tools=())
    assert caught.value.code == "AG003" and words in caught.value.hint

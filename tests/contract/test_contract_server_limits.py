"""Contract: what a real llama-cpp-python server did that ctxlab took for an answer.

The fake API stands in for the server (no model file here; :mod:`openai_server_rules`).
Seen on the real server and checked here against the fake:

1. a streamed request with ``tool_choice="auto"`` is answered 200 with an empty event
   stream; ctxlab's backend raises a ModelCallError naming the limit, where the SDK's own
   model class returns an empty answer (the broken variant), and an empty *reply* (chunks
   without text) is still an answer;
2. a structured reply cut at ``max_tokens`` (``finish_reason: "length"``) says it was cut
   and how to raise the cap, not that the model ignored the schema; a consolidation of
   standing notes cut there writes nothing and says so (not "the proposal is not JSON");
3. ``GET /models``'s ``owned_by: "me"`` identifies the server.
"""

from __future__ import annotations

import json
from dataclasses import replace

import httpx
import pytest
from agents import Agent, ModelSettings, OpenAIChatCompletionsModel, Runner, SQLiteSession
from openai_server_rules import LLAMA_CPP_PYTHON, LLAMA_CPP_PYTHON_FUNCTION_CALLING
from test_contract_memory_notes import brain as notes_brain

from ctxlab import ConsolidationCut, ConsolidationRejected, LLMConsolidator, MemoryNotes
from ctxlab.core.model_errors import ModelCallError
from ctxlab.core.openai_calls import CUT_AT_MAX_TOKENS, JSON_OBJECT_LIMIT, StructuredOutputError
from ctxlab.course.agent import make_support_agent
from ctxlab.course.backends import compatible_backend
from ctxlab.course.runs import run_conversation
from ctxlab.course.server_check import CompatibleChatModel, check_server
from ctxlab.course.server_limits import (
    LLAMA_CPP_PYTHON as LLAMA_KIND,
)
from ctxlab.course.server_limits import (
    STREAMED_AUTO_TOOL_CHOICE,
    server_kind,
)
from ctxlab.longterm.consolidation import Proposal
from ctxlab.memory.llm_extract import LLMStateExtractor

from conftest import arun
from contract_runs import MODEL
from openai_fake_api import FAKE_BASE_URL, FakeOpenAI, Reply, ScriptedBrain, cut_at

ASK = "Hi, my laptop SN-4Q7K-22981 blinks red. Please look it up."


def auto_agent(fake: FakeOpenAI, *, bare: bool = False) -> Agent:
    """The support agent with tool_choice="auto" (the README's tip) on ``fake``."""
    if bare:
        model = OpenAIChatCompletionsModel(model=MODEL, openai_client=fake.async_client())
    else:
        model = CompatibleChatModel(model=MODEL, openai_client=fake.async_client())
    return make_support_agent(model, model_settings=ModelSettings(tool_choice="auto"))


# ---------------------------------------------------------------------------- 1. empty streams


def test_the_fake_answers_streamed_auto_with_an_empty_stream_like_the_server():
    fake = FakeOpenAI(rules=LLAMA_CPP_PYTHON_FUNCTION_CALLING)
    client = fake.sync_client()
    tool = {"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}
    response = client.chat.completions.with_raw_response.create(
        model=MODEL, messages=[{"role": "user", "content": "hi"}], tools=[tool],
        tool_choice="auto", stream=True)
    assert response.http_response.status_code == 200 and response.http_response.content == b""
    plain = client.chat.completions.create(model=MODEL, messages=[{"role": "user",
                                           "content": "hi"}], tools=[tool], stream=True)
    assert len(list(plain)) > 1  # without tool_choice the stream has chunks (tools dropped)


@pytest.mark.parametrize("rules", [LLAMA_CPP_PYTHON, LLAMA_CPP_PYTHON_FUNCTION_CALLING])
def test_an_empty_stream_is_a_named_limit_not_an_empty_answer(rules):
    fake = FakeOpenAI(rules=rules)
    agent = auto_agent(fake)
    with pytest.raises(ModelCallError) as info:
        arun(run_conversation(agent, [ASK], SQLiteSession("s1"), streamed=True))
    error = info.value
    assert error.limit == STREAMED_AUTO_TOOL_CHOICE == "streamed tool_choice=auto"
    assert error.status == 200 and error.caller == "agent"
    assert str(error).startswith(f"{FAKE_BASE_URL}/chat/completions answered the agent's "
                                 "streamed request (gpt-4.1-mini) with HTTP 200 and an empty "
                                 "event stream")
    assert "server limit: streamed tool_choice=auto" in str(error)
    assert "run this agent without streaming (Runner.run)" in str(error)
    # the same agent, not streamed, works: the limit is the stream's
    records = arun(run_conversation(agent, [ASK], SQLiteSession("s2")))
    assert records[0].reply


def test_the_sdks_own_model_class_takes_the_empty_stream_for_an_empty_answer():
    """The broken variant: what the issue saw (3 of 3 streamed turns came back empty)."""
    fake = FakeOpenAI(rules=LLAMA_CPP_PYTHON_FUNCTION_CALLING)
    records = arun(run_conversation(auto_agent(fake, bare=True), [ASK], SQLiteSession("s3"),
                                    streamed=True))
    assert records[0].reply == "" and records[0].tool_calls == []


def test_a_reply_with_no_text_is_an_answer_not_an_empty_stream():
    fake = FakeOpenAI(brain=ScriptedBrain([Reply(text="")]))
    agent = Agent(name="a", model=CompatibleChatModel(model=MODEL,
                                                      openai_client=fake.async_client()))

    async def drain() -> str:
        result = Runner.run_streamed(agent, "hi")
        async for _ in result.stream_events():
            pass
        return str(result.final_output)

    assert arun(drain()) == ""


def test_an_empty_stream_without_tool_choice_is_named_as_such():
    def empty(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/models"):
            return httpx.Response(200, json={"data": []})
        return httpx.Response(200, content=b"", headers={"content-type": "text/event-stream"})

    backend = compatible_backend(FAKE_BASE_URL, MODEL, http_client=httpx.AsyncClient(
        transport=httpx.MockTransport(empty)))
    agent = make_support_agent(backend)
    with pytest.raises(ModelCallError) as info:
        arun(run_conversation(agent, ["hi"], SQLiteSession("s4"), streamed=True))
    assert info.value.limit == "an empty event stream (HTTP 200, no event)"
    assert "streamed tool_choice=auto" not in str(info.value)


# ---------------------------------------------------------------------------- 2. cut replies


def test_the_fake_cuts_a_reply_at_max_tokens_with_finish_reason_length():
    long = Reply(text=" ".join(["word"] * 200), output_tokens=200)
    cut = cut_at(long, 20)
    assert cut.finish_reason == "length" and cut.output_tokens <= 20
    assert long.text.startswith(cut.text) and cut.text
    assert cut_at(long, 500) == long and cut_at(long, None) == long
    fake = FakeOpenAI(brain=ScriptedBrain([long]))
    reply = fake.sync_client().chat.completions.create(
        model=MODEL, messages=[{"role": "user", "content": "hi"}], max_tokens=20)
    assert reply.choices[0].finish_reason == "length"


def cut_extractor(max_tokens: int) -> tuple[LLMStateExtractor, FakeOpenAI]:
    values = {"user": {"name": "Ana Lima " * 40}}
    fake = FakeOpenAI(rules=LLAMA_CPP_PYTHON, brain=ScriptedBrain([Reply(
        text=json.dumps(values))]))
    return LLMStateExtractor(fake.async_client(), MODEL, api="chat",
                             max_tokens=max_tokens), fake


def test_a_structured_reply_cut_at_the_cap_says_so_and_how_to_raise_it():
    from ctxlab.course.corpora import seed_support_conversation

    extractor, fake = cut_extractor(30)
    with pytest.raises(StructuredOutputError) as info:
        arun(extractor.extract(seed_support_conversation().items[:6]))
    message = str(info.value)
    assert info.value.limit == CUT_AT_MAX_TOKENS
    assert message.startswith("LLMStateExtractor (gpt-4.1-mini): the reply was cut at "
                              "max_tokens=30 (finish_reason \"length\") before the state "
                              "update was complete; raise the cap: LLMStateExtractor(..., "
                              "max_tokens=N) with N above 30")
    assert "did not follow the schema" not in message
    assert fake.bodies("chat/completions")[-1]["max_tokens"] == 30


def test_a_reply_that_fits_the_cap_but_breaks_the_schema_still_blames_the_schema():
    """The broken variant of the cut message: a reply that was not cut must not be
    reported as cut."""
    from ctxlab.course.corpora import seed_support_conversation

    fake = FakeOpenAI(rules=LLAMA_CPP_PYTHON, brain=ScriptedBrain([Reply(text="not json")]))
    extractor = LLMStateExtractor(fake.async_client(), MODEL, api="chat")
    with pytest.raises(StructuredOutputError) as info:
        arun(extractor.extract(seed_support_conversation().items[:6]))
    assert info.value.limit == JSON_OBJECT_LIMIT and "was cut" not in str(info.value)


class UncheckedConsolidator(LLMConsolidator):
    """The broken variant: the consolidator as it was, handing on a cut reply unchecked."""

    async def propose(self, durable, session):
        self.calls += 1
        return await self.caller.ask_json(self.messages(durable, session),
                                          Proposal.model_json_schema(), "standing_notes")


STANDING = ("From now on, email only, never call me.",
            "From now on, always ship to my office on Baker Street 221.",
            "Remember that my account is under the name Ana Lima from now on.")


def consolidate_on(rules, max_tokens: int, consolidator=LLMConsolidator):
    """Three standing notes saved in one session, consolidated by a model on a server with
    ``rules`` under a reply cap of ``max_tokens``: (notebook before, after, the error)."""
    fake = FakeOpenAI(rules=rules, brain=notes_brain)
    notes = MemoryNotes(consolidator=consolidator(fake.async_client(), MODEL, api="chat",
                                                  max_tokens=max_tokens))

    async def go():
        for text in STANDING:
            await notes.save("ana", "s1", text, at="2026-03-02")
        before = await notes.book("ana")
        try:
            await notes.end_session("ana", "s1", at="2026-03-02")
        except ConsolidationRejected as exc:
            return before, await notes.book("ana"), exc
        return before, await notes.book("ana"), None

    before, after, error = arun(go())
    assert fake.bodies("chat/completions")[-1]["max_tokens"] == max_tokens
    return before, after, error


def says_it_was_cut(error: BaseException | None, cap: int) -> bool:
    """The message says what happened (cut at the cap, nothing written) and what to do."""
    message = str(error)
    return (message.startswith(f"LLMConsolidator ({MODEL}): the model's proposal was cut at "
                               f"max_tokens={cap} (finish_reason \"length\")")
            and "Nothing was written" in message and "consolidated again" in message
            and f"LLMConsolidator(..., max_tokens=N) with N above {cap}" in message)


@pytest.mark.parametrize("rules", [None, LLAMA_CPP_PYTHON], ids=["openai", "llama-cpp"])
def test_a_consolidation_cut_at_the_cap_says_so_and_writes_nothing(rules):
    before, after, error = consolidate_on(rules, 40)
    assert isinstance(error, ConsolidationCut) and isinstance(error, StructuredOutputError)
    assert error.limit == CUT_AT_MAX_TOKENS
    assert says_it_was_cut(error, 40), str(error)
    assert "not JSON" not in str(error) and "Ana Lima" not in str(error)
    assert after == before and len(after.session_notes("s1")) == len(STANDING)
    # with room for the whole list the same model's answer is taken
    _, kept, error = consolidate_on(rules, 2000)
    assert error is None and [n.text for n in kept.durable] == list(STANDING)


def test_the_check_catches_a_consolidator_that_hands_on_a_cut_reply():
    before, after, error = consolidate_on(None, 40, UncheckedConsolidator)
    assert isinstance(error, ConsolidationRejected) and after == before  # still fails closed
    assert not says_it_was_cut(error, 40), "the old message should not say it was cut"
    assert "the proposal is not JSON" in str(error)


# ---------------------------------------------------------------------------- 3. owned_by


def test_owned_by_me_identifies_llama_cpp_python():
    fake = FakeOpenAI(rules=LLAMA_CPP_PYTHON)
    found = check_server(FAKE_BASE_URL, MODEL, http_client=httpx.Client(
        transport=httpx.MockTransport(fake)))
    assert found.owners == ("me",) and found.kind == LLAMA_KIND
    plain = check_server(FAKE_BASE_URL, MODEL, http_client=httpx.Client(
        transport=httpx.MockTransport(FakeOpenAI())))
    assert plain.owners == ("fake",) and plain.kind is None
    assert server_kind(["me", "library"]) is None and server_kind([]) is None
    other = FakeOpenAI(rules=replace(LLAMA_CPP_PYTHON, owned_by="vllm"))
    assert check_server(FAKE_BASE_URL, MODEL, http_client=httpx.Client(
        transport=httpx.MockTransport(other))).kind is None

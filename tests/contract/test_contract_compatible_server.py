"""Contract: ctxlab on a server with ``llama-cpp-python[server]``'s stricter rules.

The fake API follows that server's rules (:mod:`openai_server_rules`: roles and content
forms, ``json_object`` only, no usage chunk in streams, an 8,192-token window, tools only
with a named ``tool_choice``), and the SDK's real model classes send the requests. Checked
here, each with the exact request bodies:

1. the state and recall messages of a ContextManager go out as memory blocks,
   ``{"role": "user", "content": str}`` (quoted data, never the operator's voice; lesson
   05b's cell 16 included); the old developer form is refused;
2. LLMStateExtractor and SummaryJudge fall back from ``json_schema`` to ``json_object``
   with the schema in the prompt, validate the reply, or name the server's limit;
3. a streamed run's usage, which the server does not send, is counted and marked;
4. every model call (agent, summarizer, extractor, judge) turns an API error into an
   error naming the URL, the model, the limit and what to do.
"""

from __future__ import annotations

import json
import socket
from dataclasses import replace

import httpx
import pytest
from agents import OpenAIResponsesModel, Runner, SQLiteSession
from openai_server_rules import LLAMA_CPP_PYTHON

from ctxlab import ContextManager, Recall, StateMemory, TrimmingSession
from ctxlab.context import RETRIEVED_HEADER
from ctxlab.context import sources as context_sources
from ctxlab.core.memory_frame import MEMORY_HEADINGS, is_memory_block
from ctxlab.core.model_errors import CONTEXT_ADVICE, ContextOverflowError, ModelCallError
from ctxlab.core.openai_calls import JSON_OBJECT_LIMIT, StructuredOutputError
from ctxlab.core.tokens import count_request_tokens
from ctxlab.course.agent import SUPPORT_TOOLS, make_support_agent
from ctxlab.course.backends import compatible_backend
from ctxlab.course.corpora import load_zh_support, seed_support_conversation, support_chat_script
from ctxlab.course.runs import ask_after, format_tokens, run_conversation, run_each
from ctxlab.eval.judge import JudgeVerdict, SummaryJudge
from ctxlab.memory.llm_extract import LLMStateExtractor, StateUpdate, strict_schema
from ctxlab.memory.render import STATE_HEADER_ZH
from ctxlab.summarizers import LLMSummarizer
from ctxlab.viz.plots.lessons import plot_run_cost

from conftest import arun
from contract_runs import MODEL, agent_bodies
from openai_fake_api import FAKE_BASE_URL, FakeOpenAI, Reply, ScriptedBrain

ITEMS = seed_support_conversation().items
FRIDGE = next(c for c in load_zh_support() if c.id == "zh-01-fridge-bcd123")
QUESTION = "对了，我冰箱的型号是多少来着？"
CHAT_URL = f"{FAKE_BASE_URL}/chat/completions"


def llama(**changes) -> FakeOpenAI:
    """The fake API with llama-cpp-python's rules (``changes``: rules changed)."""
    return FakeOpenAI(rules=replace(LLAMA_CPP_PYTHON, **changes))


@pytest.fixture
def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def backend_on(fake: FakeOpenAI):
    return compatible_backend(FAKE_BASE_URL, MODEL,
                              http_client=httpx.AsyncClient(transport=httpx.MockTransport(fake)))


def chat_bodies(fake: FakeOpenAI) -> list[dict]:
    return fake.bodies("chat/completions")


# ---------------------------------------------------------------------------- 1. state, recall


def test_the_rules_refuse_what_the_server_refuses():
    """The fake is only worth something if it refuses what llama-cpp-python refuses, in its
    words: these answers are the ones the real server gave here (see the rules module)."""
    base = {"model": "m", "messages": [{"role": "user", "content": "q"}]}
    assert LLAMA_CPP_PYTHON.problem(base) is None
    developer = {**base, "messages": [
        {"role": "system", "content": "sys"},
        {"role": "developer", "content": [{"type": "text", "text": "state"}]},
        {"role": "user", "content": "hi"}]}
    status, error = LLAMA_CPP_PYTHON.problem(developer)
    message = error["error"]["message"]
    assert status == 500 and error["error"]["type"] == "internal_server_error"
    assert message.startswith("11 validation errors:\n  {'type': 'literal_error', 'loc': "
                              "('body', 'messages', 1, 'ChatCompletionRequestSystemMessage', "
                              "'role'), 'msg': \"Input should be 'system'\", 'input': "
                              "'developer'")
    listed = {**base, "messages": [{"role": "system", "content": [{"type": "text", "text": "s"}]},
                                   {"role": "user", "content": "q"}]}
    assert LLAMA_CPP_PYTHON.problem(listed)[1]["error"]["message"].startswith(
        "10 validation errors:")
    parts = {**base, "messages": [{"role": "user", "content": [{"type": "text", "text": "q"}]}]}
    assert LLAMA_CPP_PYTHON.problem(parts) is None  # a user message may have parts
    schema = {**base, "response_format": {"type": "json_schema", "json_schema": {
        "name": "x", "schema": {"type": "object"}}}}
    assert "Input should be 'text' or 'json_object'\", 'input': 'json_schema'" in \
        LLAMA_CPP_PYTHON.problem(schema)[1]["error"]["message"]
    assert LLAMA_CPP_PYTHON.problem({**base, "response_format": {"type": "json_object"}}) is None
    null_call = {**base, "messages": [
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c", "content": "{}"}]}
    assert LLAMA_CPP_PYTHON.problem(null_call)[1]["error"]["message"].startswith(
        "7 validation errors:")
    long = {**base, "messages": [{"role": "user", "content": "word " * 9000}],
            "max_tokens": 1024}
    status, error = LLAMA_CPP_PYTHON.problem(long)
    assert status == 400 and error["error"]["code"] == "context_length_exceeded"
    assert error["error"]["message"] == (
        "This model's maximum context length is 8192 tokens. However, you requested 10029 "
        "tokens (9005 in the messages, 1024 in the completion). Please reduce the length of "
        "the messages or completion.")


@pytest.mark.parametrize("streamed", [False, True], ids=["run", "streamed"])
def test_state_and_recall_go_out_as_a_user_memory_block_with_string_content(streamed):
    fake = llama()
    agent = make_support_agent(backend_on(fake))
    session = TrimmingSession("llama-cm", max_turns=2)
    manager = ContextManager(6000, state=StateMemory(session=session),
                             retriever=Recall(session=session), session=session)
    messages = support_chat_script()[0][:6]
    arun(run_conversation(agent, messages, session, run_config=manager.run_config(),
                          streamed=streamed))
    assert fake.rejections == [] and all(r.status == 200 for r in fake.requests)
    sent = [m for body in agent_bodies(fake, "chat") for m in body["messages"]]
    state = [m for m in sent if "Conversation state" in str(m.get("content"))]
    recalled = [m for m in sent if RETRIEVED_HEADER in str(m.get("content"))]
    assert state and recalled
    for message in state + recalled:  # the exact form: two keys, a string
        assert list(message) == ["role", "content"] and message["role"] == "user"
        assert isinstance(message["content"], str) and is_memory_block(message)
    assert {m["role"] for m in sent} <= {"system", "user", "assistant", "tool"}


def test_the_old_developer_form_is_what_the_server_refused(monkeypatch):
    """The broken variant: injected context as a typed developer message (what ctxlab sent
    before) is turned by the SDK's converter into a developer message with list content,
    which the server answers with HTTP 500; the agent's error says so."""
    monkeypatch.setattr(context_sources, "context_message",
                        lambda text, **_: context_sources.developer_message(text))
    fake = llama()
    agent = make_support_agent(backend_on(fake))
    session = TrimmingSession("llama-old", max_turns=2)
    manager = ContextManager(6000, retriever=Recall(session=session), session=session)
    messages = support_chat_script()[0][:6]
    with pytest.raises(ModelCallError) as info:
        arun(run_conversation(agent, messages, session, run_config=manager.run_config()))
    assert info.value.status == 500 and info.value.url == CHAT_URL
    assert "Input should be" in str(info.value) and "agent (gpt-4.1-mini)" in str(info.value)
    refused = next(b for b in agent_bodies(fake, "chat")
                   if any(m["role"] == "developer" for m in b["messages"]))
    developer = next(m for m in refused["messages"] if m["role"] == "developer")
    assert isinstance(developer["content"], list)


def test_lesson_05b_cell_16_state_and_recall_on_the_server():
    fake = llama()
    agent = make_support_agent(backend_on(fake))
    managers = {
        "state": lambda s: ContextManager(8000, state=StateMemory(session=s), session=s),
        "recall": lambda s: ContextManager(8000, retriever=Recall(session=s), session=s),
    }
    for label, make_manager in managers.items():
        record = arun(ask_after(agent, FRIDGE.items, QUESTION,
                                lambda label=label: TrimmingSession(f"fridge-{label}",
                                                                    max_turns=3),
                                make_manager))
        assert record.reply
    assert fake.rejections == []
    bodies = agent_bodies(fake, "chat")
    state = [m for m in bodies[0]["messages"] if STATE_HEADER_ZH in str(m.get("content"))]
    assert state == [{"role": "user", "content": state[0]["content"]}]
    assert state[0]["content"].startswith(MEMORY_HEADINGS["zh"])
    assert "BCD-123" in state[0]["content"]
    recalled = [m for b in bodies for m in b["messages"]
                if RETRIEVED_HEADER in str(m.get("content"))]
    assert recalled and all(set(m) == {"role", "content"} and m["role"] == "user"
                            for m in recalled)


def test_the_memory_block_also_fits_the_responses_model():
    fake = FakeOpenAI()
    agent = make_support_agent(OpenAIResponsesModel(model=MODEL,
                                                    openai_client=fake.async_client()))
    session = TrimmingSession("responses-cm", max_turns=2)
    manager = ContextManager(6000, state=StateMemory(session=session),
                             retriever=Recall(session=session), session=session)
    arun(run_conversation(agent, support_chat_script()[0][:6], session,
                          run_config=manager.run_config()))
    assert fake.rejections == []
    sent = [i for b in fake.bodies("responses") for i in b["input"]]
    injected = [i for i in sent if RETRIEVED_HEADER in str(i.get("content"))
                or "Conversation state" in str(i.get("content"))]
    assert injected and all(i == {"role": "user", "content": i["content"]} for i in injected)


# ---------------------------------------------------------------------------- 2. structured output


def test_the_extractor_falls_back_to_json_object_with_the_schema_in_the_prompt():
    fake = llama()
    extractor = LLMStateExtractor(fake.async_client(), MODEL, api="chat")
    patch = arun(extractor.extract(ITEMS[:6]))
    assert patch is not None and extractor.json_mode == "json_object"
    first, second = chat_bodies(fake)
    assert first["response_format"]["type"] == "json_schema"
    assert fake.requests[0].status == 500 and fake.requests[1].status == 200
    schema = strict_schema(StateUpdate)
    assert second == {
        "model": MODEL, "max_tokens": 600, "response_format": {"type": "json_object"},
        "messages": [
            {"role": "system", "content": extractor.prompt + (
                "\n\nReply with one JSON object and nothing else: no prose, no code fence. It "
                "must follow this JSON schema exactly (every listed key present, no other "
                "keys):\n" + json.dumps(schema, ensure_ascii=False))},
            {"role": "user", "content": first["messages"][1]["content"]}]}
    arun(extractor.extract(ITEMS[6:10]))  # remembered: one request, json_object at once
    assert len(chat_bodies(fake)) == 3
    assert chat_bodies(fake)[2]["response_format"] == {"type": "json_object"}


def test_the_judge_falls_back_too_and_validates_the_reply():
    verdict = {name: {"score": 4, "rationale": "ok"} for name in
               ("key_details", "format", "no_invention", "superseded")} | {"overall": 4}
    brain = ScriptedBrain([Reply(text="```json\n" + json.dumps(verdict) + "\n```")])
    fake = FakeOpenAI(rules=LLAMA_CPP_PYTHON, brain=brain)
    judge = SummaryJudge(fake.async_client(), MODEL, api="chat")
    result = arun(judge.judge(ITEMS[:12], "The customer reported a red light."))
    assert result == JudgeVerdict.model_validate(verdict) and judge.json_mode == "json_object"
    body = chat_bodies(fake)[-1]
    assert body["response_format"] == {"type": "json_object"}
    assert json.dumps(strict_schema(JudgeVerdict), ensure_ascii=False) in \
        body["messages"][0]["content"]


@pytest.mark.parametrize("reply", ["not json at all", '{"overall": 9}', '{"user": 3}'])
def test_a_reply_that_ignores_the_schema_names_the_server_limit(reply):
    fake = FakeOpenAI(rules=LLAMA_CPP_PYTHON, brain=ScriptedBrain([Reply(text=reply)]))
    extractor = LLMStateExtractor(fake.async_client(), MODEL, api="chat")
    judge = SummaryJudge(fake.async_client(), MODEL, api="chat")
    with pytest.raises(StructuredOutputError) as info:
        arun(extractor.extract(ITEMS[:6]))
    assert info.value.limit == JSON_OBJECT_LIMIT
    assert "not a valid state update (server limit: no response_format json_schema" in \
        str(info.value)
    with pytest.raises(StructuredOutputError, match="not a valid verdict \\(server limit"):
        arun(judge.judge(ITEMS[:12], "A summary."))


def test_a_server_with_json_schema_gets_no_fallback_and_no_limit_in_errors():
    """The broken variant of the fallback: where the server constrains the reply, a bad
    reply is the model's fault and the error must not blame the server."""
    fake = FakeOpenAI(brain=ScriptedBrain([Reply(text="not json")]))
    extractor = LLMStateExtractor(fake.async_client(), MODEL, api="chat")
    with pytest.raises(StructuredOutputError) as info:
        arun(extractor.extract(ITEMS[:6]))
    assert info.value.limit is None and "server limit" not in str(info.value)
    assert extractor.json_mode == "json_schema" and len(chat_bodies(fake)) == 1


def test_a_server_without_structured_output_is_named():
    fake = llama(response_formats=("text",))
    extractor = LLMStateExtractor(fake.async_client(), MODEL, api="chat")
    with pytest.raises(ModelCallError) as info:
        arun(extractor.extract(ITEMS[:6]))
    assert info.value.limit == "no structured output (neither json_schema nor json_object)"
    assert str(info.value).startswith(f"{CHAT_URL} refuses both response_format json_schema")
    assert extractor.json_mode == "json_schema"  # nothing worked: nothing remembered
    assert [b["response_format"]["type"] for b in chat_bodies(fake)] == ["json_schema",
                                                                        "json_object"]


# ---------------------------------------------------------------------------- 3. streamed usage


def test_streamed_usage_the_server_does_not_send_is_counted_and_marked():
    fake = llama()
    agent = make_support_agent(backend_on(fake))
    message = "Hi, my ticket is TCK-48213. A red light keeps blinking on my laptop."
    streamed = arun(run_conversation(agent, [message], SQLiteSession("u1"), streamed=True))
    plain = arun(run_conversation(agent, [message], SQLiteSession("u2")))
    body = agent_bodies(fake, "chat")[0]
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    call = streamed[0].calls[0]
    expected = count_request_tokens(agent.instructions, [{"role": "user", "content": message}],
                                    SUPPORT_TOOLS)["total"]
    assert call.usage_estimated and streamed[0].usage_estimated
    assert call.input_tokens == expected and call.output_tokens > 0
    assert not plain[0].usage_estimated  # the server reports usage when not streaming
    assert plain[0].calls[0].input_tokens > 0
    # wherever the figure is shown, it says so
    assert format_tokens(call.input_tokens, call.usage_estimated) == f"~{expected:,}"
    assert format_tokens(plain[0].input_tokens, plain[0].usage_estimated)[0].isdigit()
    figure = plot_run_cost({"streamed": streamed})
    assert figure.axes[0].get_ylabel() == "input tokens (~ estimated)"
    assert plot_run_cost({"run": plain}).axes[0].get_ylabel() == "input tokens billed"


def test_without_the_estimate_the_stream_reports_zero():
    """The broken variant: the SDK's own model class on the same server reports 0/0."""
    from agents import ModelSettings, OpenAIChatCompletionsModel

    fake = llama()
    bare = OpenAIChatCompletionsModel(model=MODEL, openai_client=fake.async_client())
    agent = make_support_agent(bare, model_settings=ModelSettings(include_usage=True))
    records = arun(run_conversation(agent, ["Hello"], SQLiteSession("u3"), streamed=True))
    assert (records[0].input_tokens, records[0].output_tokens) == (0, 0)
    assert not records[0].usage_estimated


# ---------------------------------------------------------------------------- 4. errors


def callers(fake: FakeOpenAI):
    client = fake.async_client()
    agent = make_support_agent(backend_on(fake))
    long_items = ITEMS * 8

    async def agent_run():
        session = SQLiteSession("overflow")
        await run_conversation(agent, ["x " * 9000], session)

    async def agent_stream():
        await run_conversation(agent, ["x " * 9000], SQLiteSession("o2"), streamed=True)

    return {
        "agent": agent_run,
        "agent streamed": agent_stream,
        "LLMSummarizer": lambda: LLMSummarizer(client, MODEL, api="chat").summarize(long_items),
        "LLMStateExtractor": lambda: LLMStateExtractor(client, MODEL, api="chat",
                                                       json_mode="json_object").extract(
            long_items),
        "SummaryJudge": lambda: SummaryJudge(client, MODEL, api="chat",
                                             json_mode="json_object").judge(long_items, "s"),
    }


@pytest.mark.parametrize("caller", ["agent", "agent streamed", "LLMSummarizer",
                                    "LLMStateExtractor", "SummaryJudge"])
def test_every_model_call_reports_a_context_overflow_with_what_to_do(caller):
    fake = llama()
    with pytest.raises(ContextOverflowError) as info:
        arun(callers(fake)[caller]())
    error = info.value
    assert error.context_window == 8192 and error.requested > 8192
    assert error.url == CHAT_URL and error.model == MODEL
    assert f"What to do: {CONTEXT_ADVICE}" in str(error)
    assert "server limit: context window of 8,192 tokens" in str(error)
    assert error.caller == caller.split()[0]


@pytest.mark.parametrize("caller", ["agent", "LLMSummarizer", "LLMStateExtractor",
                                    "SummaryJudge"])
def test_every_model_call_names_the_url_when_nothing_answers(caller, closed_port):
    from openai import AsyncOpenAI

    url = f"http://127.0.0.1:{closed_port}/v1"
    client = AsyncOpenAI(base_url=url, api_key="x", max_retries=0)
    calls = {
        "agent": lambda: Runner.run(make_support_agent(compatible_backend(url, MODEL)), "hi"),
        "LLMSummarizer": lambda: LLMSummarizer(client, MODEL).summarize(ITEMS[:4]),
        "LLMStateExtractor": lambda: LLMStateExtractor(client, MODEL).extract(ITEMS[:4]),
        "SummaryJudge": lambda: SummaryJudge(client, MODEL).judge(ITEMS[:4], "s"),
    }
    with pytest.raises(ModelCallError) as info:
        arun(calls[caller]())
    message = str(info.value)
    assert message.startswith(f"cannot reach {url}/chat/completions (")
    assert "is the server running?" in message and "does the URL end in /v1?" in message


@pytest.mark.parametrize("caller", ["agent", "LLMSummarizer", "LLMStateExtractor",
                                    "SummaryJudge"])
def test_every_model_call_names_the_model_on_a_404(caller):
    fake = FakeOpenAI(models=["qwen2.5:7b"])  # answers 404 for gpt-4.1-mini, as Ollama does
    client = fake.async_client()
    calls = {
        "agent": lambda: Runner.run(make_support_agent(backend_on(fake)), "hi"),
        "LLMSummarizer": lambda: LLMSummarizer(client, MODEL).summarize(ITEMS[:4]),
        "LLMStateExtractor": lambda: LLMStateExtractor(client, MODEL).extract(ITEMS[:4]),
        "SummaryJudge": lambda: SummaryJudge(client, MODEL).judge(ITEMS[:4], "s"),
    }
    with pytest.raises(ModelCallError) as info:
        arun(calls[caller]())
    assert str(info.value).startswith(f"{CHAT_URL} answered 404 Not Found (The model")
    assert f"CTXLAB_MODEL='{MODEL}'" in str(info.value) and info.value.status == 404


def test_an_overflowing_run_stops_alone_and_the_others_still_run():
    """Lesson 03's three runs on an 8k window: the full history overflows, trimming does
    not; run_each keeps each run on its own and prints what to do. (The fake's replies are
    shorter than a real model's and its tools are dropped, as the server drops them, so its
    window is made smaller to overflow at a similar turn.)"""
    fake = llama(context_window=1400)
    agent = make_support_agent(backend_on(fake))
    messages = support_chat_script()[0]
    printed: list[str] = []
    runs = arun(run_each(agent, messages, {
        "full history": lambda: SQLiteSession("full"),
        "trim 3 turns": lambda: TrimmingSession("t3", max_turns=3),
    }, echo=printed.append))
    assert list(runs) == ["trim 3 turns"] and len(runs["trim 3 turns"]) == len(messages)
    failure = runs.failed["full history"]
    assert isinstance(failure.error, ContextOverflowError)
    assert failure.turn == len(failure.records) + 1 > 1
    assert [r.turn for r in failure.records] == list(range(1, failure.turn))
    assert printed == [str(failure)]
    assert printed[0].startswith(f"full history: stopped at turn {failure.turn} after ")
    assert "What to do:" in printed[0]


# ---------------------------------------------------------------------------- tool-call history


def test_a_history_with_tool_calls_goes_out_with_empty_string_content():
    """Lesson 05b cells 6 and 18 failed on the real server: the fridge conversation holds
    tool calls, which the SDK sends as an assistant message with content null; the server
    refused it (HTTP 500). The same message with content "" was accepted there."""
    fake = llama()
    agent = make_support_agent(backend_on(fake))
    record = arun(ask_after(agent, FRIDGE.items, QUESTION,
                            lambda: SQLiteSession("fridge-tools")))
    assert record.reply and fake.rejections == []
    calls = [m for m in agent_bodies(fake, "chat")[0]["messages"]
             if m["role"] == "assistant" and m.get("tool_calls")]
    assert calls and all(m["content"] == "" for m in calls)  # the exact form
    assert sum(len(m["tool_calls"]) for m in calls) == \
        sum(item.get("type") == "function_call" for item in FRIDGE.items)
    # the form fits the openai request types too: the default fake (the API's rules) takes it
    plain = FakeOpenAI()
    arun(ask_after(make_support_agent(backend_on(plain)), FRIDGE.items, QUESTION,
                   lambda: SQLiteSession("fridge-tools-api")))
    assert plain.rejections == []


def test_the_sdk_form_with_content_null_is_what_the_server_refused():
    """The broken variant: the SDK's own model class sends content null and is refused."""
    from agents import OpenAIChatCompletionsModel

    fake = llama()
    bare = OpenAIChatCompletionsModel(model=MODEL, openai_client=fake.async_client())
    with pytest.raises(Exception, match="Input should be a valid string"):
        arun(ask_after(make_support_agent(bare), FRIDGE.items, QUESTION,
                       lambda: SQLiteSession("fridge-null")))
    refused = chat_bodies(fake)[-1]
    assert any(m["role"] == "assistant" and m.get("tool_calls") and m["content"] is None
               for m in refused["messages"])

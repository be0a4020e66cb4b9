"""ContextManager: section order, drop order, honest token counts, and the SDK filter."""

from __future__ import annotations

import json
import warnings

import pytest
from agents import Agent, Runner, set_tracing_disabled
from agents.run_config import CallModelData, ModelInputData
from agents.testing import ScriptedModel, assistant_message, function_call

from ctxlab import (
    SECTIONS,
    OfflineSupportModel,
    SummarizingSession,
    TrimmingSession,
    count_request_tokens,
    item_text,
    make_support_agent,
    sent_tokens,
    validate_items,
)
from ctxlab.context import (
    RETRIEVED_HEADER,
    SHORTENED_MARK,
    ContextBudgetWarning,
    ContextManager,
    RequestCounter,
    RetrievedBlock,
    compose_filters,
    shrink_turn,
    split_model_input,
)
from ctxlab.context.compaction import COMPACTED_MARK, ToolOutputCompactor
from ctxlab.course.agent import SUPPORT_TOOLS
from ctxlab.course.offline import catalog
from ctxlab.sessions import TokenBudgetWarning

from conftest import arun, assistant, call, output, reasoning, user

set_tracing_disabled(True)

BULKY = json.dumps(catalog.device_record("C02XK1ZJG8WP"))


def turn(n: int, *, tool: bool = False) -> list[dict]:
    items = [user(f"question {n} about the laptop")]
    if tool:
        items += [call(f"c{n}", name="lookup_device", serial="C02XK1ZJG8WP"),
                  output(f"c{n}", BULKY)]
    items.append(assistant(f"Answer {n}. " + "More detail follows here. " * 12))
    return items


def history(n_turns: int, tool_every: int = 3) -> list[dict]:
    items = [{"role": "developer", "content": "Support policy: be brief."}]
    for n in range(1, n_turns + 1):
        items += turn(n, tool=n % tool_every == 0)
    return items


def exact_total(result, tools=()) -> int:
    return count_request_tokens(result.instructions, result.items, tools)["total"]


# ---------------------------------------------------------------------------- assembly


def test_sections_come_in_the_documented_order_and_add_up_exactly():
    manager = ContextManager(100_000)
    result = manager.assemble(
        "What was my serial?",
        history=history(4),
        instructions="You are support.",
        tools=SUPPORT_TOOLS,
        state="user: name Dana | issue: serial C02XK1ZJG8WP",
        summary="Earlier: the laptop overheats.",
        retrieved=[RetrievedBlock("[turn 1] user: hello", 0.8, "turn 1")],
    )
    order = [s for n, s in enumerate(result.item_sections)
             if n == 0 or s != result.item_sections[n - 1]]
    assert order[:4] == ["instructions", "structured_state", "summary", "recent_turns"]
    assert order[-2:] == ["retrieved_memory", "new_input"]
    assert item_text(result.items[-1]) == "What was my serial?"
    assert RETRIEVED_HEADER in item_text(result.items[-2])
    assert validate_items(result.items) == []
    assert set(result.sections) == set(SECTIONS)
    assert result.total == sent_tokens(result.sections) == exact_total(result, SUPPORT_TOOLS)
    assert result.tool_tokens == count_request_tokens(None, [], SUPPORT_TOOLS)["tools"] > 0
    assert result.sections["tool_outputs"] > 0 and result.dropped == ()


def test_tool_schemas_count_towards_the_instructions_section():
    manager = ContextManager(10_000)
    bare = manager.assemble("hi", instructions="Help.")
    tooled = manager.assemble("hi", instructions="Help.", tools=SUPPORT_TOOLS)
    assert tooled.sections["instructions"] - bare.sections["instructions"] == tooled.tool_tokens


def test_retrieved_memory_goes_first_least_relevant_block_first():
    blocks = [RetrievedBlock("[turn 1] " + "alpha " * 60, 0.9, "turn 1"),
              RetrievedBlock("[turn 2] " + "beta " * 60, 0.6, "turn 2")]
    full = ContextManager(100_000).assemble("new question", history=history(3), retrieved=blocks)
    budget = full.total - 20  # one block must go, nothing else
    result = ContextManager(budget).assemble("new question", history=history(3), retrieved=blocks)
    kept = item_text(result.items_in("retrieved_memory")[0])
    assert "alpha" in kept and "beta" not in kept
    assert result.dropped == ("retrieved turn 2 (score 0.60)",)
    assert result.total <= budget


def test_then_oldest_whole_turns_then_summary_then_state():
    hist = history(5)
    kwargs = dict(history=hist, state="state: serial C02XK1ZJG8WP", summary="summary text",
                  retrieved=["[turn 0] recalled"])
    full = ContextManager(100_000).assemble("new question", **kwargs)
    per_turn = [t for t in split_model_input(hist, has_new_input=False).turns]
    counter = RequestCounter()
    first_turn = counter.items(per_turn[0])
    retrieved = full.sections["retrieved_memory"]
    result = ContextManager(full.total - retrieved - first_turn).assemble("new question", **kwargs)
    assert result.sections["retrieved_memory"] == 0
    assert [d.split(" ")[0] for d in result.dropped] == ["retrieved", "earlier"]
    assert "question 1 " not in " ".join(item_text(i) for i in result.items)
    assert "question 2 " in " ".join(item_text(i) for i in result.items)
    assert result.sections["summary"] and result.sections["structured_state"]
    floor_only = ContextManager(result.floor + full.sections["structured_state"]).assemble(
        "new question", **kwargs)
    assert floor_only.sections["recent_turns"] == floor_only.sections["summary"] == 0
    assert floor_only.sections["structured_state"] == full.sections["structured_state"]
    assert floor_only.dropped[-1].startswith("summary")
    bare = ContextManager(floor_only.floor).assemble("new question", **kwargs)
    assert bare.dropped[-1].startswith("structured state")
    assert bare.total == bare.floor


def test_dropping_never_orphans_a_tool_pair_and_keeps_the_preamble():
    hist = history(9, tool_every=2)
    for budget in range(300, 6_000, 350):
        result = ContextManager(budget).assemble("last question", history=hist)
        assert validate_items(result.items) == []
        assert result.total <= budget
        assert item_text(result.items[0]) == "Support policy: be brief."
        assert result.item_sections[0] == "instructions"


def test_new_input_alone_over_budget_is_sent_with_a_warning():
    hist = history(3)
    huge = "please read this log " + "x " * 600
    with pytest.warns(ContextBudgetWarning, match="sent anyway"):
        result = ContextManager(50).assemble(huge, history=hist, instructions="Help.",
                                             state="some state")
    assert result.over_budget and result.warning
    assert [item_text(i) for i in result.items] == ["Support policy: be brief.", huge]
    assert result.total == result.floor
    assert issubclass(ContextBudgetWarning, TokenBudgetWarning)


def test_role_aware_keeps_users_shortens_assistants_and_previews_tool_outputs():
    hist = history(6, tool_every=2)
    plain = ContextManager(1_400).assemble("next question", history=hist)
    aware = ContextManager(1_400, role_aware=True).assemble("next question", history=hist)
    assert validate_items(aware.items) == []
    assert aware.total <= 1_400 and aware.shortened
    users = lambda r: [item_text(i) for i in r.items if i.get("role") == "user"]  # noqa: E731
    assert len(users(aware)) > len(users(plain))  # more turns survive
    for text in users(aware)[:-1]:
        assert text.startswith("question ") and text.endswith("about the laptop")
    texts = [item_text(i) for i in aware.items]
    assert any(t.endswith(SHORTENED_MARK) for t in texts)
    assert any(t.startswith(COMPACTED_MARK) for t in texts)
    roomy = ContextManager(aware.total + 2_500, role_aware=True).assemble("next", history=hist)
    newest_earlier = split_model_input(hist, has_new_input=False).turns[-1]
    assert roomy.shortened and 0 not in roomy.shortened  # counted back: 0 = the newest
    assert all(item in roomy.items for item in newest_earlier)  # protected turn verbatim


def test_role_aware_keeps_protected_turns_verbatim_and_drops_older_ones_first():
    hist = [*history(4), *turn(5, tool=True)]  # the newest earlier turn holds the record
    protected = ContextManager(2_300, role_aware=True).assemble("next", history=hist)
    assert BULKY in [i.get("output") for i in protected.items]  # verbatim
    assert protected.total <= 2_300
    assert protected.dropped[-1].startswith("every earlier turn before the newest ")
    unprotected = ContextManager(2_300, role_aware=True, protect_recent_turns=0).assemble(
        "next", history=hist)
    assert BULKY not in [i.get("output") for i in unprotected.items]  # shortened instead
    assert len(unprotected.items) > len(protected.items) and unprotected.total <= 2_300
    tiny = ContextManager(400, role_aware=True).assemble("next", history=hist)
    assert tiny.total <= 400 and validate_items(tiny.items) == []  # protected ones go too


def test_shrink_turn_drops_reasoning_and_the_ids_that_depended_on_it():
    items = [user("hi"), reasoning("rs_1"), {**call("c1", name="lookup_device"), "id": "fc_1"},
             output("c1", BULKY), reasoning("rs_2"), assistant("A long answer. " * 40, "msg_1")]
    short = shrink_turn(items, RequestCounter(), assistant_max_tokens=20)
    assert [i.get("type", "message") for i in short] == [
        "message", "function_call", "function_call_output", "message"]
    assert "id" not in short[1] and "id" not in short[3]
    assert validate_items(short) == []
    assert items[2]["id"] == "fc_1" and items[3]["output"] == BULKY  # inputs untouched


def test_summary_pair_of_a_summarizing_session_is_recognised():
    session = SummarizingSession(keep_last_n_turns=1, context_limit=2)

    async def go():
        for n in range(1, 5):
            await session.add_items(turn(n))
        return await session.get_items()

    view = arun(go())
    assert session.summary is not None
    manager = ContextManager(100_000, session=session)
    result = arun(manager.assemble_input([*view, user("and now?")]))
    assert result.sections["summary"] > 0
    assert result.items_in("summary")[0]["content"] == session.summary.shadow


def test_sources_may_be_sync_or_async_and_get_the_new_input_text():
    seen: list[str] = []

    async def retriever(query: str):
        seen.append(query)
        return [RetrievedBlock("[turn 1] user: my serial is C02XK1ZJG8WP", 0.7, "turn 1")]

    manager = ContextManager(10_000, state=lambda: "state line", retriever=retriever)
    result = arun(manager.assemble_input([*turn(1), user("what was my serial?")]))
    assert seen == ["what was my serial?"]
    assert result.sections["structured_state"] and result.sections["retrieved_memory"]
    assert manager.last is result


def test_a_failing_source_does_not_fail_the_call():
    def broken_state():
        raise RuntimeError("redis is down")

    async def broken_retriever(query: str):
        raise TimeoutError("index busy")

    manager = ContextManager(10_000, state=broken_state, retriever=broken_retriever)
    result = arun(manager.assemble_input([*turn(1), user("still there?")]))
    assert item_text(result.items[-1]) == "still there?"
    assert result.sections["structured_state"] == result.sections["retrieved_memory"] == 0
    assert [e.split(":")[0] for e in manager.source_errors] == ["state", "retriever"]


def test_bad_arguments_raise_clear_value_errors():
    with pytest.raises(ValueError, match="max_tokens"):
        ContextManager(0)
    with pytest.raises(ValueError, match="max_tokens"):
        ContextManager("100")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="state must be callable"):
        ContextManager(100, state="not callable")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="new_input"):
        ContextManager(100).assemble(42)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="retrieved entry 0"):
        ContextManager(100).assemble("hi", retrieved=[3])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="compose filters"):
        ContextManager(100).run_config(call_model_input_filter=lambda d: d)


# ---------------------------------------------------------------------------- under the Runner


QUESTIONS = [
    "Hi, my laptop C02XK1ZJG8WP overheats badly",
    "Can you look up the device details?",
    "Is it still under warranty?",
    "My ticket is TCK-48213, any update on the ticket status?",
    "The fan is loud and it smells hot",
    "What was my ticket number?",
]


def test_runner_never_sends_more_than_the_budget_and_usage_matches_the_count():
    budget = 2_900
    agent = make_support_agent(OfflineSupportModel())
    session = TrimmingSession("budget", max_turns=1_000)
    manager = ContextManager(budget)

    async def go():
        usage: list[int] = []
        for n in range(40):
            result = await Runner.run(agent, QUESTIONS[n % len(QUESTIONS)], session=session,
                                      run_config=manager.run_config())
            usage += [r.usage.input_tokens for r in result.raw_responses]
        return usage

    usage = arun(go())
    assembled = list(manager.calls)
    assert len(usage) == len(assembled) > 40  # tool loops add model calls within one run
    assert [a.total for a in assembled] == usage  # the count is what the backend reports
    assert max(usage) <= budget
    assert any(a.dropped for a in assembled)  # the budget did bite
    assert all(validate_items(a.items) == [] for a in assembled)
    assert all(a.items[-1] for a in assembled)
    raw = arun(session.raw_items())
    assert sum(1 for i in raw if i.get("type") == "function_call_output") >= 13
    assert BULKY in [i.get("output") for i in raw]  # the stored log is untouched


def test_the_filter_sees_every_call_inside_one_runs_tool_loop():
    model = ScriptedModel([
        [function_call("lookup_device", {"serial": "C02XK1ZJG8WP"}, call_id="call_a")],
        [function_call("lookup_device", {"serial": "C02XK1ZJG8WP"}, call_id="call_b")],
        [assistant_message("done", item_id="msg_a")],
    ])
    agent = Agent(name="s", instructions="Help.", model=model, tools=list(SUPPORT_TOOLS))
    history_items = [item for n in range(1, 6) for item in turn(n, tool=n % 2 == 0)]
    manager = ContextManager(6_000)
    arun(Runner.run(agent, [*history_items, user("look it up twice")],
                    run_config=manager.run_config()))
    assert len(manager.calls) == len(model.calls) == 3
    for assembled, sent in zip(manager.calls, model.calls, strict=True):
        assert len(sent.input) == len(assembled.items)
        assert assembled.total <= 6_000
        assert assembled.sections["tool_outputs"] < 2 * RequestCounter().text(BULKY) + 20
    assert manager.calls[0].dropped == ()  # room for both bulky outputs of the history
    assert manager.calls[-1].dropped  # not once the run's own two lookups came in
    assert [s for s in manager.calls[-1].item_sections[-5:]] == [
        "new_input", "recent_turns", "tool_outputs", "recent_turns", "tool_outputs"]


def test_compose_filters_runs_left_to_right_and_checks_results():
    seen: list[int] = []

    def count(data: CallModelData) -> ModelInputData:
        seen.append(len(data.model_data.input))
        return data.model_data

    composed = compose_filters(ToolOutputCompactor(min_tokens=50), count, ContextManager(10_000))
    data = CallModelData(model_data=ModelInputData(input=[*turn(1, tool=True), user("next")],
                                                   instructions="Help."),
                         agent=Agent(name="a", tools=[]), context=None)
    result = arun(composed(data))
    assert seen == [5] and COMPACTED_MARK in result.input[2]["output"]
    with pytest.raises(ValueError, match="not ModelInputData"):
        arun(compose_filters(lambda d: None)(data))
    with pytest.raises(ValueError, match="at least one"):
        compose_filters()


def test_warning_category_can_be_filtered_by_the_session_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error", TokenBudgetWarning)
        with pytest.raises(ContextBudgetWarning):
            ContextManager(10).assemble("a much longer question than ten tokens allows here")


def test_everything_together_under_the_runner_stays_valid_and_within_budget():
    from ctxlab.memory import Recall, StateMemory

    budget = 3_000
    session = SummarizingSession(keep_last_n_turns=2, context_limit=4, session_id="all")
    memory, recall = StateMemory(session=session), Recall(session=session, threshold=0.3)
    manager = ContextManager(budget, state=memory, retriever=recall, session=session,
                             compactor=ToolOutputCompactor(), role_aware=True)
    agent = make_support_agent(OfflineSupportModel())
    questions = [*QUESTIONS, "What serial number did I give you?", "Any update on the ticket?"]

    async def go():
        usage: list[int] = []
        for n in range(16):
            result = await Runner.run(agent, questions[n % len(questions)], session=session,
                                      run_config=manager.run_config())
            usage += [r.usage.input_tokens for r in result.raw_responses]
        return usage

    usage = arun(go())
    assembled = list(manager.calls)
    assert [a.total for a in assembled] == usage and max(usage) <= budget
    assert all(validate_items(a.items) == [] for a in assembled)
    seen = {s for a in assembled for s, t in a.sections.items() if t}
    assert {"summary", "structured_state", "retrieved_memory", "tool_outputs"} <= seen
    assert memory.state.issue.ticket_id == "TCK-48213" and recall.indexed_turns


def test_a_long_history_is_read_from_its_newest_end_only():
    class Counting(list):
        """A history that counts how many of its items are read."""

        reads = 0

        def __getitem__(self, index):
            Counting.reads += 1 if isinstance(index, int) else len(range(*index.indices(len(self))))
            return super().__getitem__(index)

    hist = Counting([*history(2000), user("the newest question")])
    result = arun(ContextManager(1_500).assemble_input(hist, instructions="Help."))
    assert result.total <= 1_500 and validate_items(result.items) == []
    assert result.dropped[-1].startswith("every earlier turn before the newest ")
    assert Counting.reads < 200  # of ~8,000 items: only the tail (and the first item) read

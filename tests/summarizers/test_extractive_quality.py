"""The offline default summarizer keeps identifiers: >= 95% of the facts it folds."""

from __future__ import annotations

import statistics

from ctxlab import (
    SummarizingSession,
    count_tokens,
    identifier_values,
    item_text,
    load_tau_bench,
    runner_batches,
    seed_router_flow,
    seed_support_conversation,
)

from conftest import arun


async def fold(conversation, keep=2, limit=4):
    session = SummarizingSession(keep, limit, session_id=conversation.id)
    for batch in runner_batches(conversation.items):
        await session.add_items(batch)
    record = session.summary
    if record is None:
        return None
    folded = "\n".join(item_text(i) for i in conversation.items[record.items[0]:record.items[1]])
    return record, folded


def measure(conversations):
    facts = kept = ids = ids_kept = 0
    tokens = []
    for conversation in conversations:
        result = arun(fold(conversation))
        if result is None:
            continue
        record, folded = result
        values = [f.value for f in conversation.facts if f.value in folded]
        facts += len(values)
        kept += sum(v in record.text for v in values)
        found = identifier_values(folded)
        ids += len(found)
        ids_kept += sum(v in record.text for v in found)
        tokens.append(count_tokens(record.text))
    return facts, kept, ids, ids_kept, tokens


def test_tau_bench_facts_survive_extractive_summaries():
    facts, kept, ids, ids_kept, tokens = measure(load_tau_bench())
    assert facts > 500 and len(tokens) > 150
    assert kept / facts >= 0.95, f"{kept}/{facts} ground-truth facts kept"
    assert ids_kept / ids >= 0.95, f"{ids_kept}/{ids} identifier-like values kept"
    print(f"\ntau-bench: {kept}/{facts} facts, {ids_kept}/{ids} identifiers kept; "
          f"median summary {statistics.median(tokens)} tokens")


def test_seed_conversations_keep_every_identifier():
    facts, kept, ids, ids_kept, _tokens = measure([seed_router_flow(),
                                                  seed_support_conversation()])
    assert facts >= 3 and kept == facts
    assert ids_kept / ids >= 0.95

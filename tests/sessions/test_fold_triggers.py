"""Folds that trigger on tokens or a share of the model's window, summarizer input bounded in
tokens (a long span folded in chunks), and periodic rebuilds from the raw log."""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctxlab import SummarizingSession, item_text, validate_items
from ctxlab.core.tokens import get_token_counter
from ctxlab.policies.summarize import SummarizeParams, parse_summarize, spell_summarize
from ctxlab.sessions import get_strategy
from ctxlab.summarizers import ExtractiveSummarizer

from conftest import arun, assistant, call, output, user
from strategies import batches, hard_history, history

COUNT = get_token_counter()


class ShortSummarizer:
    """Answers with a short summary and records the token size of every input."""

    name = "short"

    def __init__(self) -> None:
        self.inputs: list[int] = []
        self.calls: list[list[dict[str, Any]]] = []

    async def summarize(self, items: list[dict[str, Any]], *, previous_summary: str | None = None):
        self.calls.append(items)
        self.inputs.append(COUNT.count_items(items))
        return f"S{len(self.calls)}: {len(items)} items"


def words(n: int, tag: str) -> str:
    return " ".join(f"{tag}{i}" for i in range(n))


def long_turns(n: int, size: int = 120) -> list[list[dict[str, Any]]]:
    return [[user(words(size, f"u{t}_")), assistant(words(size, f"a{t}_"))] for t in range(n)]


# ------------------------------------------------------------------------- the spec


@pytest.mark.parametrize(("spec", "expected", "canonical"), [
    ("2/4", {"keep_last_n_turns": 2, "context_limit": 4}, "2/4"),
    ("2@7200", {"keep_last_n_turns": 2, "context_limit": None, "fold_at_tokens": 7200},
     "2@7200"),
    ("2@45%/16k", {"keep_last_n_turns": 2, "context_limit": None, "fold_at_share": 0.45,
                   "model_window": 16384}, "2@45%/16384"),
    ("1/6@3000", {"keep_last_n_turns": 1, "context_limit": 6, "fold_at_tokens": 3000},
     "1/6@3000"),
    ("0@40%/128000", {"keep_last_n_turns": 0, "context_limit": None, "fold_at_share": 0.4,
                      "model_window": 128000}, "0@40%/128000"),
])
def test_the_spec_names_every_trigger_and_spells_back(spec, expected, canonical):
    kwargs = parse_summarize(spec)
    assert kwargs == expected
    assert spell_summarize(kwargs) == f"summarize:{canonical}"
    assert parse_summarize(canonical) == kwargs
    SummarizeParams(**kwargs)  # valid


def test_a_share_of_the_window_is_the_seed_articles_threshold():
    params = SummarizeParams(**parse_summarize("2@45%/16k"))
    assert params.fold_tokens == int(0.45 * 16384) == 7372
    both = SummarizeParams(keep_last_n_turns=1, context_limit=None, fold_at_tokens=5000,
                           fold_at_share=0.45, model_window=16384)
    assert both.fold_tokens == 5000  # the lower threshold fires first


@pytest.mark.parametrize(("spec", "message"), [
    ("2", "expected summarize:K/L"),
    ("3/2", "need 0 <= K <= L"),
    ("2@0", "T \\(tokens\\) or P%/W must be >= 1"),
    ("2@150%/16k", "P must be a percentage in \\(0, 100\\]"),
    ("2@45%", "T \\(tokens\\) or P%/W must be a whole number"),
    ("x/4", "K must be a whole number"),
])
def test_bad_specs_say_what_is_wrong(spec, message):
    with pytest.raises(ValueError, match=message):
        parse_summarize(spec)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"context_limit": None}, "needs a fold trigger"),
    ({"fold_at_share": 0.4}, "fold_at_share and model_window go together"),
    ({"fold_at_share": 1.5, "model_window": 8000}, "fold_at_share must be a number in"),
    ({"max_input_tokens": 10}, "max_input_tokens must be an integer >= 256"),
    ({"rebuild_every": 0}, "rebuild_every must be an integer >= 1"),
])
def test_bad_params_are_refused_before_anything_changes(kwargs, message):
    with pytest.raises(ValueError, match=message):
        SummarizeParams(**kwargs)
    session = SummarizingSession(keep_last_n_turns=1, context_limit=2)
    with pytest.raises(ValueError, match=message):
        session.set_params(**kwargs)
    assert session.params == SummarizeParams(1, 2)


# ------------------------------------------------------------------------ triggers


def test_a_token_trigger_folds_when_the_view_passes_t_tokens_and_not_before():
    turns = long_turns(6)
    per_turn = COUNT.count_items(turns[0])
    threshold = per_turn * 3 + per_turn // 2  # three turns fit, four do not
    summarizer = ShortSummarizer()
    session = get_strategy("summarize").make(
        "tok", **parse_summarize(f"1@{threshold}"), summarizer=summarizer)

    async def go():
        for n, turn in enumerate(turns[:3], 1):
            await session.add_items(turn)
            assert session.summary is None, n  # under the threshold: no fold
        await session.add_items(turns[3])  # four turns: over it
        assert session.summary is not None and session.summary.turns == (1, 3)
        view = await session.get_items()
        assert validate_items(view) == []
        assert len(summarizer.calls) == 1

    arun(go())


def test_a_share_trigger_folds_at_that_share_of_the_window():
    turns = long_turns(8, size=40)
    session = SummarizingSession(keep_last_n_turns=1, context_limit=None, fold_at_share=0.45,
                                 model_window=2048, summarizer=ShortSummarizer())

    async def go():
        shown = []
        for turn in turns:
            await session.add_items(turn)
            shown.append(COUNT.count_items(await session.get_items()))
        assert session.summaries_applied >= 1
        assert max(shown) <= 0.45 * 2048 + COUNT.count_items(turns[0])  # folded in time

    arun(go())


def test_turns_or_tokens_whichever_comes_first():
    short = [[user(f"q{t}"), assistant(f"a{t}")] for t in range(5)]
    session = SummarizingSession(keep_last_n_turns=1, context_limit=3, fold_at_tokens=10_000,
                                 summarizer=ShortSummarizer())

    async def go():
        for turn in short:
            await session.add_items(turn)
        assert session.summaries_applied == 1  # the turn trigger fired (tokens never did)

    arun(go())


def test_a_failing_fold_under_a_token_trigger_says_which_trigger_fired():
    class Down:
        def summarize(self, items):
            raise RuntimeError("down")

    session = SummarizingSession(keep_last_n_turns=1, context_limit=None, fold_at_tokens=300,
                                 summarizer=Down())

    async def go():
        for turn in long_turns(3):
            await session.add_items(turn)
        with pytest.warns(UserWarning, match=r"tokens are shown, over fold_at_tokens=300: "
                                             r"the summarizer failed \(RuntimeError: down\)"):
            await session.get_items()

    arun(go())


# ------------------------------------------------------------- bounded summarizer input


def test_a_long_span_is_folded_in_chunks_within_the_bound():
    summarizer = ShortSummarizer()
    turns = long_turns(12)
    session = SummarizingSession(keep_last_n_turns=1, context_limit=None, fold_at_tokens=2500,
                                 max_input_tokens=700, summarizer=summarizer)

    async def go():
        for turn in turns:
            await session.add_items(turn)
        await session.flush()
        assert summarizer.inputs and max(summarizer.inputs) <= 700
        record = session.summary
        assert record is not None and record.calls > 1  # one fold, several calls
        # each call after the first reads the summary so far, then the next chunk
        assert all(item_text(c[1]).startswith("S") for c in summarizer.calls[1:])

    arun(go())


def test_an_item_larger_than_the_bound_is_shortened_for_the_summarizer_only():
    summarizer = ShortSummarizer()
    huge = output("c1", words(3000, "log"))
    items = [user("q1"), call("c1", "dump_logs"), huge, assistant("a1"), user("q2"),
             assistant("a2")]
    session = SummarizingSession(keep_last_n_turns=1, context_limit=1, max_input_tokens=600,
                                 summarizer=summarizer)

    async def go():
        await session.add_items(items)
        assert max(summarizer.inputs) <= 600
        assert any("tokens cut to fit the summarizer's input" in item_text(it)
                   for c in summarizer.calls for it in c)
        assert await session.raw_items() == items  # the stored output is untouched

    arun(go())


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_every_summarizer_call_stays_within_the_bound(data):
    """Any history, any batches, a small bound: no call reads more than the bound (with a
    summarizer whose summaries stay short), every view stays valid, nothing is lost."""
    bound = data.draw(st.integers(256, 700))
    summarizer = ShortSummarizer()
    session = SummarizingSession(
        keep_last_n_turns=data.draw(st.integers(0, 2)), context_limit=None,
        fold_at_tokens=data.draw(st.integers(60, 600)), max_input_tokens=bound,
        summarizer=summarizer, rebuild_every=data.draw(st.sampled_from([None, 2, 3])))
    items = data.draw(st.one_of(history(), hard_history()))
    padded = [dict(it, output=it["output"] * 20) if isinstance(it.get("output"), str) else it
              for it in items]

    async def go():
        for part in batches(data.draw, padded):
            await session.add_items(part)
        await session.flush()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert validate_items(await session.get_items()) == []
        assert all(size <= bound for size in summarizer.inputs), (bound, summarizer.inputs)
        assert await session.raw_items() == padded

    arun(go())


# --------------------------------------------------------------- periodic rebuilds


def test_every_nth_fold_rebuilds_from_the_raw_log():
    summarizer = ShortSummarizer()
    session = SummarizingSession(keep_last_n_turns=1, context_limit=1, rebuild_every=3,
                                 summarizer=summarizer)

    async def go():
        records = []
        for t in range(8):
            await session.add_items([user(f"q{t}"), assistant(f"a{t}")])
            if session.summary is not None and (not records or records[-1] is not session.summary):
                records.append(session.summary)
        kinds = [(r.generation, r.incremental, r.items[0]) for r in records]
        assert [k[1] for k in kinds][:6] == [False, True, False, True, True, False]
        for generation, incremental, first in kinds:
            assert first == 0  # a rebuild covers everything from the first item
            if generation % 3 == 0:
                assert not incremental
        rebuilt = [c for c in summarizer.calls if not item_text(c[0]).startswith("S")]
        assert len(rebuilt) >= 2  # these calls read raw turns, no previous summary

    arun(go())


def test_a_fold_made_in_chunks_reports_every_call_in_its_usage():
    class Metered(ShortSummarizer):
        async def summarize(self, items, *, previous_summary=None):
            from ctxlab.summarizers import SummaryResult

            text = await super().summarize(items, previous_summary=previous_summary)
            return SummaryResult(text, input_tokens=COUNT.count_items(items), output_tokens=7)

    summarizer = Metered()
    session = SummarizingSession(keep_last_n_turns=1, context_limit=None, fold_at_tokens=2000,
                                 max_input_tokens=500, summarizer=summarizer)

    async def go():
        for turn in long_turns(10):
            await session.add_items(turn)
        record = session.summary
        assert record is not None and record.calls > 1
        folds = session.summaries_applied
        assert record.output_tokens == 7 * record.calls
        assert len(summarizer.calls) >= record.calls and folds >= 1
        meta = (await session.get_full_history())[1]["metadata"]
        assert meta["calls"] == record.calls

    arun(go())


def test_the_offline_summarizer_folds_in_chunks_too():
    session = SummarizingSession(keep_last_n_turns=1, context_limit=None, fold_at_tokens=1500,
                                 max_input_tokens=400, summarizer=ExtractiveSummarizer())

    async def go():
        for turn in long_turns(6, size=60):
            await session.add_items(turn)
        assert session.summary is not None
        assert validate_items(await session.get_items()) == []

    arun(go())


@pytest.mark.parametrize("kind", ["chat", "responses"])
def test_an_llm_summarizers_transcript_is_bounded_in_tokens_too(kind):
    """LLMSummarizer cuts tool outputs by characters; the fold engine bounds what it is
    handed in tokens, so every request's transcript stays within the bound (plus the few
    tokens of its role labels), on both APIs, whatever the history's size."""
    from contract_runs import ENDPOINT, summarizer_on
    from openai_fake_api import FakeOpenAI

    fake = FakeOpenAI()
    bound = 600
    session = SummarizingSession(keep_last_n_turns=1, context_limit=None, fold_at_tokens=1500,
                                 max_input_tokens=bound, summarizer=summarizer_on(fake, kind))
    items = [*[it for turn in long_turns(5, size=80) for it in turn],
             user("the logs"), call("c9", "dump_logs"), output("c9", words(2500, "log")),
             assistant("done"), user("and now?"), assistant("ok")]

    async def go():
        await session.add_items(items)
        assert session.summary is not None and session.summary.calls > 1

    arun(go())
    bodies = fake.bodies(ENDPOINT[kind])
    assert len(bodies) == session.summary.calls
    for body in bodies:
        messages = body.get("messages") or body.get("input")  # the last holds the transcript
        transcript = messages[-1]["content"]
        inside = transcript[transcript.index("<transcript>") + 12:
                            transcript.index("</transcript>")]
        assert COUNT.count(inside) <= bound + 60, COUNT.count(inside)

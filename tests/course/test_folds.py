"""watch_folds: when a summarizing session folds, and the tokens it showed around the fold."""

from __future__ import annotations

from ctxlab import SummarizingSession, TrimmingSession
from ctxlab.course.folds import watch_folds
from ctxlab.eval import load_cases

from conftest import arun

CASE = load_cases("planted:1:60-60:3")[0]


def test_a_token_trigger_folds_the_turn_the_history_passes_the_threshold():
    session = SummarizingSession(keep_last_n_turns=2, context_limit=None, fold_at_tokens=1500,
                                 session_id="tokens")
    watch = arun(watch_folds(session, CASE.items))
    assert len(watch.turns) == CASE.n_turns and watch.n_folds >= 1
    for fold in watch.folds:
        before = watch.turns[fold.turn - 2]
        assert before.tokens <= 1500 < fold.peak  # the turn that crossed it, not earlier
        assert fold.tokens < 1500
    for turn in watch.turns:  # between folds the history only grows
        assert turn.folds or turn.tokens <= 1500
    assert watch.summarizer_calls == watch.n_folds  # every fold metered
    assert watch.summarizer_input_tokens > 0 and watch.summarizer_output_tokens > 0
    assert watch.largest == max(f.peak for f in watch.folds)


def test_the_token_counts_are_the_sessions_view():
    session = SummarizingSession(keep_last_n_turns=2, context_limit=4, session_id="turns")
    watch = arun(watch_folds(session, CASE.items))
    view = arun(session.get_items())
    assert watch.turns[-1].tokens == session.token_counter.count_items(view)
    assert watch.n_folds == session.summaries_applied == 1 + (CASE.n_turns - 5) // 3
    assert [t.turn for t in watch.folds][:3] == [5, 8, 11]


def test_a_session_that_never_folds_shows_the_whole_history():
    session = TrimmingSession("never", max_turns=10_000)
    watch = arun(watch_folds(session, CASE.items))
    assert watch.n_folds == 0 and watch.summarizer_calls == 0 and not watch.folds
    assert watch.turns[-1].tokens == session.token_counter.count_items(arun(session.get_items()))
    tokens = [t.tokens for t in watch.turns]
    assert tokens == sorted(tokens) and watch.shown_total == sum(tokens)


def test_coverage_names_the_summarys_turns_or_why_there_is_none():
    folded = SummarizingSession(keep_last_n_turns=2, context_limit=4, session_id="cov")
    watch = arun(watch_folds(folded, CASE.items))
    start, end = folded.summary.turns
    assert watch.summary_turns == (start, end) and watch.summarizer_failures == 0
    assert watch.coverage() == f"the summary covers turns {start}-{end}"
    never = arun(watch_folds(TrimmingSession("never2", max_turns=10_000), CASE.items))
    assert never.coverage() == "no summary: the conversation never reached the fold trigger"


def test_coverage_when_every_summarizer_call_fails_says_so_instead_of_raising():
    """A real server whose window is smaller than the fold's request (lesson 03 on an 8k
    llama.cpp server): every fold fails, the session keeps every turn, the line says why."""

    class Overflowing:
        async def summarize(self, items, previous=None):
            raise RuntimeError("the request does not fit the model's context window")

    session = SummarizingSession(keep_last_n_turns=2, context_limit=4,
                                 summarizer=Overflowing(), session_id="overflow")
    watch = arun(watch_folds(session, CASE.items))
    assert session.summary is None and watch.n_folds == 0
    assert watch.summarizer_failures == watch.summarizer_calls > 0
    assert watch.coverage() == (f"no summary: {watch.summarizer_failures} summarizer calls "
                                "failed (the warning above says why), so every turn stayed "
                                "in the view")


OVERFLOW = ("LLMSummarizer (m): the request does not fit the model's context window (HTTP "
            "400; server limit: context window of 8,192 tokens) " + "x " * 400 +
            "What to do: give the model at least 16k tokens of context")


class _Overflowing:
    """What LLMSummarizer raises on a server whose window is too small (ctxlab's own error:
    its advice survives the scrubbing that keeps stored content out of logs)."""

    async def summarize(self, items, previous=None):
        from ctxlab.core.model_errors import ContextOverflowError

        raise ContextOverflowError(OVERFLOW, "http://127.0.0.1:9/v1/chat/completions",
                                   limit="context window of 8,192 tokens", status=400)


def test_failed_folds_make_one_warning_line_with_the_count_and_the_fix(caplog):
    """Lesson 03 on the 8k server printed one ~1,100-character warning per failed fold;
    now one line says how many, why and what to do, and each one is at DEBUG."""
    import logging

    session = SummarizingSession(keep_last_n_turns=2, context_limit=4,
                                 summarizer=_Overflowing(), session_id="grouped")
    with caplog.at_level(logging.WARNING, logger="ctxlab.summarizing"):
        watch = arun(watch_folds(session, CASE.items))
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    failures = watch.summarizer_failures
    assert failures > 1 and len(warnings) == 1
    line = warnings[0].getMessage()
    assert line.startswith(f"{failures} folds failed in 'grouped' (all: context window of "
                           "8,192 tokens); every unfolded turn stayed in the view. What to "
                           "do: give the model at least 16k tokens of context")
    assert len(line) < 400 and "x x x" not in line
    caplog.clear()
    with caplog.at_level(logging.DEBUG, logger="ctxlab.summarizing"):
        arun(watch_folds(SummarizingSession(keep_last_n_turns=2, context_limit=4,
                                            summarizer=_Overflowing(), session_id="dbg"),
                         CASE.items))
    debug = [r.getMessage() for r in caplog.records if r.levelno == logging.DEBUG and
             "failed (ContextOverflowError" in r.getMessage()]
    # every failure's details, at DEBUG: the cause and the advice (the error's text is
    # scrubbed and cut like every logged cause, so no stored content rides along)
    assert len(debug) == failures
    assert all("server limit: context window of 8,192 tokens" in m and
               "What to do: give the model at least 16k tokens of context" in m for m in debug)


def test_without_grouping_every_failed_fold_is_its_own_warning(caplog):
    """The broken variant: the same chat stored without watch_folds' grouping."""
    import logging

    from ctxlab.eval.replay import runner_batches

    session = SummarizingSession(keep_last_n_turns=2, context_limit=4,
                                 summarizer=_Overflowing(), session_id="ungrouped")

    async def store() -> None:
        for batch in runner_batches(CASE.items):
            await session.add_items(batch)
        await session.flush()

    with caplog.at_level(logging.WARNING, logger="ctxlab.summarizing"):
        arun(store())
    assert len([r for r in caplog.records if r.levelno >= logging.WARNING]) > 1


def test_a_run_with_failing_folds_prints_one_line_not_a_warning_per_view(caplog):
    """Lesson 03's run_each on the 8k server: every view after the first failed fold
    repeated the ~1,100-character error in a TokenBudgetWarning. Now one line."""
    import logging
    import warnings

    from agents import set_tracing_disabled

    from ctxlab.course.agent import make_support_agent
    from ctxlab.course.backends import offline_backend
    from ctxlab.course.corpora import support_chat_script
    from ctxlab.course.runs import run_conversation, run_each
    from ctxlab.sessions import TokenBudgetWarning

    set_tracing_disabled(True)
    agent = make_support_agent(offline_backend())
    messages = support_chat_script()[0][:8]

    def session(name: str) -> SummarizingSession:
        return SummarizingSession(keep_last_n_turns=1, context_limit=2,
                                  summarizer=_Overflowing(), session_id=name)

    with warnings.catch_warnings(record=True) as escaped, \
            caplog.at_level(logging.WARNING, logger="ctxlab.summarizing"):
        warnings.simplefilter("always")
        runs = arun(run_each(agent, messages, {"s": lambda: session("grouped-run")},
                             echo=None))
    assert len(runs["s"]) == 8
    assert [w for w in escaped if issubclass(w.category, TokenBudgetWarning)] == []
    lines = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(lines) == 1, lines
    assert "folds failed in 'grouped-run' (all: context window of 8,192 tokens), and " in \
        lines[0] and "views went over the fold limit while it waited" in lines[0]
    # the broken variant: the same turns without the grouping warn on every view
    with warnings.catch_warnings(record=True) as loud:
        warnings.simplefilter("always")
        arun(run_conversation(agent, messages, session("loud")))
    assert len([w for w in loud if issubclass(w.category, TokenBudgetWarning)]) > 2

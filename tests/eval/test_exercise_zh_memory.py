"""Lesson 05b's exercise check: memory for the Chinese fridge chat after a late change of
phone number, at most half the full history's cost with every model call counted.

It must reject the memories the lesson itself printed (``trim 3 + state``, ``summarize
2/4``), degenerate settings (folding at every turn, no window) and duck-typed fakes that
hand the model the answers; each rejection is a test here, and the fakes are shown to fool
the model first, so the check is what stops them."""

from __future__ import annotations

from typing import Any

from agents import SQLiteSession, set_tracing_disabled

from ctxlab import (
    ContextManager,
    FirstLastSession,
    OfflineSupportModel,
    Recall,
    StateMemory,
    SummarizingSession,
    TrimmingSession,
    make_support_agent,
)
from ctxlab.course.runs import ask_after
from ctxlab.eval.exercises import (
    ZH_EXERCISE_QUESTIONS,
    ZH_EXERCISE_RATIO,
    check_zh_memory_setup,
    zh_exercise_history,
)
from ctxlab.memory import StatePatch
from ctxlab.summarizers import SummaryResult

from conftest import arun

set_tracing_disabled(True)

#: What a fake hands the model instead of remembering anything.
ANSWERS = "手机号 13600001234；型号 BCD-123；客户要求：只能周末上门。"


def verdict(make_session, make_manager=None, **options):
    return arun(check_zh_memory_setup(make_session, make_manager, **options))


def with_state(session, **render):
    return ContextManager(8000, state=StateMemory(session=session, render_options=render or None),
                          session=session)


def fools_the_model(make_session, make_manager=None) -> bool:
    """Whether the agent answers all three questions right under this setup (what a naive
    check, answers and tokens only, would accept)."""
    agent = make_support_agent(OfflineSupportModel())
    history = zh_exercise_history()
    for question, expected, _ in ZH_EXERCISE_QUESTIONS:
        record = arun(ask_after(agent, history, question, make_session, make_manager))
        if expected not in record.reply:
            return False
    return True


def test_the_history_ends_with_the_new_phone_number_and_two_unrelated_turns():
    history = zh_exercise_history()
    users = [item["content"] for item in history if item.get("role") == "user"]
    assert len(users) == 15 and "13600001234" in users[-3]
    assert ZH_EXERCISE_QUESTIONS[0][0] == "你们记的我的手机号是多少？"
    assert ZH_EXERCISE_RATIO == 0.5


# ---------------------------------------------------------------------------- passing


def test_a_leaner_memory_than_the_lessons_passes():
    one_turn = verdict(lambda: TrimmingSession("ex-1", max_turns=1), with_state)
    assert one_turn.passed is True and "已计入每一次模型调用" in one_turn.message
    assert str(one_turn).startswith("✓ 通过：")
    two_turns = verdict(lambda: TrimmingSession("ex-2", max_turns=2),
                        lambda s: with_state(s, max_milestones=0, max_superseded=0))
    assert two_turns.passed is True


# ---------------------------------------------------------------------------- the lesson's own


def test_the_lessons_own_state_memory_is_rejected_on_its_cost():
    result = verdict(lambda: TrimmingSession("ex-state", max_turns=3), with_state)
    assert result.passed is False and "三个问题都答对了" in result.message
    assert "目标是不超过 50%" in result.message


def test_the_lessons_own_summary_is_rejected_because_folds_are_model_calls():
    result = verdict(lambda: SummarizingSession(2, 4, session_id="ex-sum"))
    assert result.passed is False and "摘要压缩 4 次" in result.message


# ---------------------------------------------------------------------------- degenerate


def test_folding_at_every_turn_is_priced_and_rejected():
    folding = verdict(lambda: SummarizingSession(0, 1, session_id="ex-fold"))
    assert folding.passed is False and "摘要压缩 7 次" in folding.message
    # the deliberately wrong check that leaves folds out reports a far smaller cost: the
    # folds' price is what the verdict's figure stands on
    unpriced = verdict(lambda: SummarizingSession(0, 1, session_id="ex-fold-free"),
                       count_folds=False)
    assert "摘要压缩 7 次" not in unpriced.message
    assert _share(unpriced.message) < _share(folding.message) - 20


def _share(message: str) -> int:
    return int(message.split("的 ")[1].split("%")[0])


def test_degenerate_settings_are_refused():
    assert verdict(None).passed is None
    wrong_type = verdict("TrimmingSession")
    assert wrong_type.passed is False and "应该是一个函数" in wrong_type.message
    no_window = verdict(lambda: TrimmingSession("ex-bad", max_turns=0))
    assert no_window.passed is False and "max_turns" in no_window.message
    full = verdict(lambda: SQLiteSession("ex-full"))
    assert full.passed is False and "的 100%" in full.message


def test_memories_that_forget_are_refused_with_what_they_forgot():
    trimmed = verdict(lambda: TrimmingSession("ex-trim", max_turns=3))
    assert trimmed.passed is False
    assert "BCD-123" in trimmed.message and "只能周末上门" in trimmed.message
    recall = verdict(lambda: TrimmingSession("ex-recall", max_turns=3),
                     lambda s: ContextManager(8000, retriever=Recall(session=s), session=s))
    assert recall.passed is False and "只能周末上门" in recall.message


def test_a_window_that_keeps_the_old_number_but_not_the_new_one():
    # the first five turns (the old number is in turn 4) and the last one: the change of
    # number in turn 13 is out of view, so the old number is presented as current
    result = verdict(lambda: FirstLastSession("ex-first", first_turns=5, last_turns=1))
    assert result.passed is False and "旧号码 13912345678" in result.message


# ---------------------------------------------------------------------------- duck-typed fakes


class AnswerSheet:
    """Quacks like a session, stores nothing, and hands the model the answers."""

    session_id = "fake"
    session_settings = None

    async def get_items(self, limit: int | None = None) -> list[dict[str, Any]]:
        return [{"role": "developer", "content": ANSWERS}]

    async def add_items(self, items: list[dict[str, Any]]) -> None:
        return None

    async def pop_item(self) -> None:
        return None

    async def clear_session(self) -> None:
        return None


class SneakyTrimming(TrimmingSession):
    """A real session whose view is replaced by the answers."""

    async def get_items(self, limit: int | None = None) -> list[dict[str, Any]]:
        return [{"role": "developer", "content": ANSWERS}]


class ScriptedExtractor:
    """An extractor that "extracts" hand-written values, whatever the conversation says."""

    async def extract(self, items, *, state=None, turn=None) -> StatePatch:
        return StatePatch(values={"user.phone": "13600001234", "issue.device_model": "BCD-123"},
                          constraints=["只能周末上门。"], language="zh")


class CannedSummarizer:
    """A summarizer that writes the answers instead of summarizing."""

    def summarize(self, items) -> SummaryResult:
        return SummaryResult(ANSWERS)


def test_a_duck_typed_session_is_rejected():
    assert fools_the_model(AnswerSheet)
    result = verdict(AnswerSheet)
    assert result.passed is False and "MemorySession" in result.message


def test_a_session_that_overrides_its_view_is_rejected():
    assert fools_the_model(lambda: SneakyTrimming("ex-sneaky", max_turns=1))
    result = verdict(lambda: SneakyTrimming("ex-sneaky", max_turns=1))
    assert result.passed is False and "改写了 get_items" in result.message


def test_a_hand_written_state_source_is_rejected():
    def answers(*_args: Any, **_kwargs: Any) -> dict[str, Any]:
        return {"role": "developer", "content": ANSWERS}

    def manager(session):
        return ContextManager(8000, state=answers, session=session)

    assert fools_the_model(lambda: TrimmingSession("ex-src", max_turns=1), manager)
    result = verdict(lambda: TrimmingSession("ex-src", max_turns=1), manager)
    assert result.passed is False and "状态来源" in result.message


def test_a_scripted_extractor_is_rejected():
    def manager(session):
        return ContextManager(8000, state=StateMemory(ScriptedExtractor(), session=session),
                              session=session)

    assert fools_the_model(lambda: TrimmingSession("ex-ext", max_turns=1), manager)
    result = verdict(lambda: TrimmingSession("ex-ext", max_turns=1), manager)
    assert result.passed is False and "状态提取器" in result.message


def test_a_canned_summarizer_is_rejected():
    def make():
        return SummarizingSession(0, 1, CannedSummarizer(), session_id="ex-canned")

    assert fools_the_model(make)
    result = verdict(make)
    assert result.passed is False and "摘要器" in result.message


def test_a_callback_that_could_rewrite_the_request_is_rejected():
    def rewrite(assembled):
        assembled.items.insert(0, {"role": "developer", "content": ANSWERS})

    def manager(session):
        return ContextManager(8000, session=session, on_assemble=rewrite)

    result = verdict(lambda: TrimmingSession("ex-cb", max_turns=1), manager)
    assert result.passed is False and "on_assemble" in result.message


def test_a_duck_typed_manager_is_rejected():
    class Manager:
        def run_config(self, **options: Any) -> Any:
            from agents import RunConfig

            return RunConfig(**options)

    result = verdict(lambda: TrimmingSession("ex-mgr", max_turns=1), lambda s: Manager())
    assert result.passed is False and "ContextManager" in result.message


def test_a_state_filled_in_advance_is_rejected():
    def manager(session):
        memory = StateMemory(session=session)
        memory.state.apply(StatePatch(values={"user.phone": "13600001234",
                                              "issue.device_model": "BCD-123"},
                                      constraints=["只能周末上门。"], language="zh"), turn=1)
        return ContextManager(8000, state=memory, session=session)

    assert fools_the_model(lambda: TrimmingSession("ex-pre", max_turns=1), manager)
    result = verdict(lambda: TrimmingSession("ex-pre", max_turns=1), manager)
    assert result.passed is False and "事先填好" in result.message


def test_a_state_that_reads_another_session_is_rejected():
    def manager(session):
        other = TrimmingSession("ex-other", max_turns=1)
        return ContextManager(8000, state=StateMemory(session=other), session=session)

    result = verdict(lambda: TrimmingSession("ex-own", max_turns=1), manager)
    assert result.passed is False and "另一个会话" in result.message

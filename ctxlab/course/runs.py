"""Run a scripted conversation through the real Agents SDK Runner and measure each turn.

:func:`run_conversation` sends user messages one run at a time (as a chat UI would), with a
session, and records per turn: the reply, the tool calls, the usage of every model call,
and what every model call was sent, split into the parts a context window is made of
(instructions and tool schemas, history, tool results, retrieved memory, new input).
It observes through ``RunConfig(call_model_input_filter=...)`` and changes nothing in what
the model is sent. A session with a summarizer (a :class:`~ctxlab.SummarizingSession`)
gets it wrapped in a :class:`~ctxlab.summarizers.metered.MeteredSummarizer`, so every fold
the turn triggered is recorded with its tokens and counted in the turn's totals.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from agents import Agent, RunConfig, Runner
from agents.run_config import CallModelData, ModelInputData

from ..core.display import display_width, grid, pad
from ..core.items import clone, is_output, item_kind, item_text
from ..core.tokens import ITEM_OVERHEAD_TOKENS, get_token_counter, tool_schema_text
from ..summarizers.metered import SummaryCall, metered
from .usage_estimate import usage_is_estimated

#: The parts of one model call, in the order a context window is usually laid out.
WINDOW_PARTS: tuple[str, ...] = (
    "instructions", "history", "tool_results", "retrieved", "new_input",
)


@dataclass(frozen=True)
class ModelCallRecord:
    """One model call: what was sent, split into parts, and what it cost."""

    instructions: str | None
    items: list[dict[str, Any]]
    parts: dict[str, int]
    input_tokens: int | None = None
    output_tokens: int | None = None
    #: True when the server reported no usage for this call and ctxlab counted it
    #: (o200k_base; see :mod:`ctxlab.course.usage_estimate`).
    usage_estimated: bool = False

    @property
    def sent_tokens(self) -> int:
        return sum(self.parts.values())


@dataclass(frozen=True)
class TurnRecord:
    """One user turn: the question, the reply, every model call it took, and the
    summarizer calls (folds) its session made while storing it."""

    turn: int
    user: str
    reply: str
    calls: list[ModelCallRecord]
    tool_calls: list[str] = field(default_factory=list)
    summary_calls: list[SummaryCall] = field(default_factory=list)

    @property
    def agent_input_tokens(self) -> int:
        """Input tokens of the agent's model calls (tool loop included)."""
        return sum(c.input_tokens or 0 for c in self.calls)

    @property
    def summary_input_tokens(self) -> int:
        return sum(c.input_tokens for c in self.summary_calls)

    @property
    def summary_output_tokens(self) -> int:
        return sum(c.output_tokens for c in self.summary_calls)

    @property
    def input_tokens(self) -> int:
        """Input tokens billed for the turn: every model call, the agent's (tool loop
        included) and the summarizer's."""
        return self.agent_input_tokens + self.summary_input_tokens

    @property
    def spent_tokens(self) -> int:
        """Every token the turn costs in model calls: the agent's input and the tokens the
        summarizer read and wrote (:func:`spent_tokens`)."""
        return self.input_tokens + self.summary_output_tokens

    @property
    def output_tokens(self) -> int:
        """Output tokens billed for the turn: the agent's replies and tool calls, and the
        summaries written."""
        return sum(c.output_tokens or 0 for c in self.calls) + self.summary_output_tokens

    @property
    def usage_estimated(self) -> bool:
        """True when any call's usage was counted by ctxlab (the server reported none)."""
        return any(c.usage_estimated for c in self.calls)

    @property
    def first_call_parts(self) -> dict[str, int]:
        """Parts of the turn's first model call (what memory decided to send)."""
        return dict(self.calls[0].parts) if self.calls else dict.fromkeys(WINDOW_PARTS, 0)


def spent_tokens(records: Iterable[TurnRecord]) -> int:
    """The course's one pricing of a run in tokens: the input of every agent call (tool
    loop included) plus what every summarizer call read and wrote. A fold is a model call
    like any other, so a summarizing memory pays for both sides of it (the agent's own
    replies are the same whatever the memory, so they are left out). The evaluation's
    ``spent_tokens`` counts the same."""
    return sum(record.spent_tokens for record in records)


def format_tokens(value: int, estimated: bool = False) -> str:
    """``value`` with thousands separators, marked ``~`` when it is an estimate (a server
    that reported no usage: see :attr:`TurnRecord.usage_estimated`)."""
    return f"{'~' if estimated else ''}{value:,}"


def token_source(records: Iterable[TurnRecord], backend: Any = None) -> str:
    """One line saying where the token figures of ``records`` come from, for a cost table:
    reported by the model (the offline model counts exactly, o200k_base), counted by ctxlab
    because the server reported none (``~``), or missing: calls that reported 0 tokens (a
    streamed run through the SDK's own model class on a server that sends no usage), whose
    cost is unknown, not zero."""
    calls = [call for record in records for call in record.calls]
    total = len(calls)
    zero = sum(1 for c in calls if not c.input_tokens and not c.output_tokens)
    counted = sum(1 for c in calls if c.usage_estimated)
    if zero:
        return (f"token source: {zero} of {total} model calls reported 0 tokens (a streamed "
                "run through the SDK's own model class on a server that sends no usage): "
                "their cost is unknown, not zero; ctxlab's backend (choose_backend) counts them")
    if counted:
        return (f"token source: {counted} of {total} model calls counted by ctxlab (o200k_base, "
                "marked ~): the server reported no usage, so these are estimates of its count")
    name = getattr(backend, "name", None)
    where = {"offline": "the offline model, which counts exactly (o200k_base)",
             "openai": "the OpenAI API",
             "openai-compatible": f"the server at {getattr(backend, 'base_url', '?')}"}.get(
                 name or "", "the model")
    return f"token source: all {total} model calls reported by {where}"


def window_parts(
    instructions: str | None,
    items: Sequence[Mapping[str, Any]],
    tools: Iterable[Any] = (),
    *,
    new_input_start: int | None = None,
    retrieved: Callable[[Mapping[str, Any]], bool] | None = None,
) -> dict[str, int]:
    """Tokens of one model call by part.

    ``instructions`` includes the tool schemas. ``new_input_start`` is the index where this
    run's input begins (default: the last user message); items before it are history, and
    tool outputs anywhere are tool results. ``retrieved`` marks items a memory strategy
    injected from storage (default: none).
    """
    counter = get_token_counter()
    parts = dict.fromkeys(WINDOW_PARTS, 0)
    if instructions:
        parts["instructions"] += counter.count(instructions) + ITEM_OVERHEAD_TOKENS
    parts["instructions"] += sum(counter.count(tool_schema_text(t)) for t in tools)
    if new_input_start is None:
        users = [i for i, it in enumerate(items) if item_kind(it) == "user"]
        new_input_start = users[-1] if users else len(items)
    for index, item in enumerate(items):
        tokens = counter.count_item(item)
        if retrieved is not None and retrieved(item):
            parts["retrieved"] += tokens
        elif is_output(item):
            parts["tool_results"] += tokens
        elif index >= new_input_start and item_kind(item) == "user":
            parts["new_input"] += tokens
        else:
            parts["history"] += tokens
    return parts


class ModelInputRecorder:
    """A ``call_model_input_filter`` that records every model input (optionally wrapping
    another filter, whose output is what gets recorded and sent)."""

    def __init__(self, inner: Callable[[CallModelData[Any]], Any] | None = None,
                 retrieved: Callable[[Mapping[str, Any]], bool] | None = None):
        self.inner = inner
        self.retrieved = retrieved
        self.calls: list[ModelCallRecord] = []

    async def __call__(self, data: CallModelData[Any]) -> ModelInputData:
        result = data.model_data
        if self.inner is not None:
            produced = self.inner(data)
            result = await produced if inspect.isawaitable(produced) else produced
        tools = await data.agent.get_all_tools(_EmptyContext()) if hasattr(
            data.agent, "get_all_tools") else []
        items = [clone(i) for i in result.input]
        self.calls.append(ModelCallRecord(
            result.instructions, items,
            window_parts(result.instructions, items, tools, retrieved=self.retrieved),
        ))
        return result


class _EmptyContext:
    """Stands in for the run context when listing an agent's tools (no context needed)."""

    context = None


async def run_conversation(
    agent: Agent[Any],
    user_messages: Iterable[str],
    session: Any,
    *,
    run_config: RunConfig | None = None,
    streamed: bool = False,
    max_turns: int = 10,
) -> list[TurnRecord]:
    """Send each message in its own ``Runner.run`` with ``session``; record every turn
    (the session's summarizer is metered: see the module docstring)."""
    meter = metered(session)
    if meter is not None:
        meter.drain()  # folds made before this run belong to no turn of it
    config = run_config or RunConfig()
    recorder = ModelInputRecorder(inner=config.call_model_input_filter)
    config = replace(config, call_model_input_filter=recorder)
    records: list[TurnRecord] = []
    for number, message in enumerate(user_messages, start=1):
        if not isinstance(message, str) or not message.strip():
            raise ValueError(f"user message {number} must be a non-empty string")
        before = len(recorder.calls)
        if streamed:
            result = Runner.run_streamed(agent, message, session=session, run_config=config,
                                         max_turns=max_turns)
            async for _ in result.stream_events():
                pass
        else:
            result = await Runner.run(agent, message, session=session, run_config=config,
                                      max_turns=max_turns)
        calls = recorder.calls[before:]
        responses: list[Any] = list(result.raw_responses)
        calls = [
            replace(c, input_tokens=r.usage.input_tokens, output_tokens=r.usage.output_tokens,
                    usage_estimated=usage_is_estimated(r))
            if r is not None else c
            for c, r in zip(calls, responses + [None] * (len(calls) - len(responses)),
                            strict=False)
        ]
        tool_calls = [
            getattr(item.raw_item, "name", "") for item in result.new_items
            if getattr(item, "type", "") == "tool_call_item"
        ]
        folds = meter.drain() if meter is not None else []
        records.append(TurnRecord(number, message, str(result.final_output), calls, tool_calls,
                                  folds))
    return records


@dataclass(frozen=True)
class RunFailure:
    """A run of :func:`run_each` that stopped: at which turn, why, and the turns it finished."""

    label: str
    turn: int
    error: Exception
    records: list[TurnRecord]

    def __str__(self) -> str:
        return (f"{self.label}: stopped at turn {self.turn} after {len(self.records)} "
                f"finished turns: {self.error}")


class Runs(dict[str, list[TurnRecord]]):
    """The runs of :func:`run_each` that finished, by label (what :func:`probe_table` and
    the plots take); :attr:`failed` holds the ones that stopped, by label."""

    def __init__(self) -> None:
        super().__init__()
        self.failed: dict[str, RunFailure] = {}


async def run_each(
    agent: Agent[Any],
    user_messages: Sequence[str],
    sessions: Mapping[str, Callable[[], Any]],
    *,
    run_config: RunConfig | None = None,
    streamed: bool = False,
    max_turns: int = 10,
    echo: Callable[[str], Any] | None = print,
) -> Runs:
    """Run the same conversation once per memory, each on its own: ``sessions`` maps a
    label to a function that makes that run's session.

    A run whose model call fails with a :class:`~ctxlab.core.model_errors.ModelCallError`
    (a context overflow on a small window, a server error) stops there; the others still
    run. Its failure (the turn, the error, which says what to do, and the turns finished)
    goes to :attr:`Runs.failed` and is passed to ``echo`` (``print``; None: silent). Any
    other exception is a bug and propagates. A run's failed folds are logged as one warning
    line (:func:`~ctxlab.course.folds.grouped_fold_warnings`).
    """
    from ..core.model_errors import ModelCallError
    from .folds import grouped_fold_warnings

    messages = list(user_messages)
    runs = Runs()
    for label, make_session in sessions.items():
        if not callable(make_session):
            raise ValueError(f"sessions[{label!r}] must be a function that makes a session, "
                             f"got {type(make_session).__name__}")
        session = make_session()
        records: list[TurnRecord] = []
        try:
            with grouped_fold_warnings():  # one line for the run's failed folds
                for number, message in enumerate(messages, start=1):
                    done = await run_conversation(agent, [message], session,
                                                  run_config=run_config, streamed=streamed,
                                                  max_turns=max_turns)
                    records.append(replace(done[0], turn=number))
        except ModelCallError as error:
            failure = RunFailure(label, len(records) + 1, error, records)
            runs.failed[label] = failure
            if echo is not None:
                echo(str(failure))
            continue
        runs[label] = records
    return runs


def recalled(records: Sequence[TurnRecord], probe: Any) -> bool:
    """True when the reply at the probe's turn contains the expected value verbatim."""
    if probe.turn > len(records):
        raise ValueError(f"probe at turn {probe.turn}, but only {len(records)} turns were run")
    return probe.expected in records[probe.turn - 1].reply


def obtained(records: Sequence[TurnRecord], probe: Any) -> bool:
    """True when the probe's value entered the conversation before the probe's turn: the
    customer said it, a tool returned it or the agent stated it. A memory strategy can only
    *forget* what was obtained; a fact it never got (the agent asked a different question,
    never called the tool that returns it) is a knock-on effect of earlier forgetting."""
    for record in records[: probe.turn - 1]:
        if probe.expected in record.user or probe.expected in record.reply:
            return True
        for call in record.calls:
            if any(probe.expected in item_text(item) for item in call.items):
                return True
    return False


#: How :func:`probe_table` marks each outcome (plain characters every font has).
PROBE_MARKS = {"recalled": "✓ recalled", "forgot": "✗ forgot",
               "never obtained": "○ never obtained"}


def probe_outcome(records: Sequence[TurnRecord], probe: Any) -> str:
    """``recalled``, ``forgot`` (it was in the conversation, the reply lacks it) or
    ``never obtained`` (it never entered this run's conversation at all)."""
    if recalled(records, probe):
        return "recalled"
    return "forgot" if obtained(records, probe) else "never obtained"


def answered_by(agent: Agent[Any]) -> str:
    """Who answers an agent's questions, as tables name it: the offline model and how it
    reads its window (the default perfect reader or a realistic one), or the real model."""
    label = getattr(agent.model, "reader_label", None)
    if label is not None:
        return f"the offline model, {label}"
    name = getattr(agent.model, "model", None) or agent.model
    return f"the real model {name}"


def probe_table(records_by_label: Mapping[str, Sequence[TurnRecord]], probes: Sequence[Any],
                *, reader: str | None = None, answered: str | None = None) -> str:
    """A text table: one row per probe, one column per run (✓ recalled, ✗ forgot, ○ never
    obtained: see :func:`probe_outcome`). ``answered`` says who answered (printed above the
    table: :func:`answered_by`); ``reader`` is the older form, the offline model's reader
    label alone (``agent.model.reader_label``)."""
    labels = list(records_by_label)
    marks = [[PROBE_MARKS[probe_outcome(records_by_label[label], probe)] for label in labels]
             for probe in probes]
    totals = [sum(recalled(records_by_label[label], p) for p in probes) for label in labels]
    # one space between the run columns (a mark is up to 16 wide), so five runs fit a notebook
    lines = grid(["turn", "fact", *labels],
                 [*([str(p.turn), p.fact, *row] for p, row in zip(probes, marks, strict=True)),
                  ["", "total", *(f"{t}/{len(probes)}" for t in totals)]],
                 [">", "<", *("^" * len(labels))], gap=1,
                 widths=[4, 5, *(max(len(m) for m in PROBE_MARKS.values())
                                 for _ in labels)])
    if answered:
        lines.insert(0, f"answers by {answered}")
    elif reader:
        lines.insert(0, f"answers by the offline model, {reader}")
    return "\n".join(lines)


def find_chances(records_by_label: Mapping[str, Sequence[TurnRecord]], probes: Sequence[Any],
                 tools: Sequence[Any] = ()) -> str:
    """A text table: for each probe and run, the chance that the realistic reader
    (:mod:`ctxlab.course.offline.reader`) finds the probe's value in what the model was sent
    at the probe's turn (the best-placed mention counts; "not in view" when it is absent),
    and per run the expected number of facts found. It reads the recorded calls only (no
    model is asked), and it is the same for every seed. ``tools`` are the agent's tools
    (their schemas come before the history)."""
    from .offline.reader import Layout, chance_of

    labels = list(records_by_label)
    width = max(14, *(display_width(label) for label in labels))  # a Chinese label too
    header = f"{'turn':>4}  {'fact':<10}  " + "  ".join(pad(label, width, "^") for label in labels)
    lines = ["chance that the realistic reader finds each fact (Liu et al. 2024)",
             header, "-" * display_width(header)]
    expected = dict.fromkeys(labels, 0.0)
    for probe in probes:
        cells = []
        for label in labels:
            call = records_by_label[label][probe.turn - 1].calls[0]
            layout = Layout.of(call.instructions, call.items, tools)
            found = chance_of(probe.expected, call.items, layout)
            expected[label] += found
            cells.append(f"{found:.0%}" if found else "not in view")
        lines.append(f"{probe.turn:>4}  {probe.fact:<10}  "
                     + "  ".join(pad(cell, width, "^") for cell in cells))
    lines.append(f"{'':>4}  {'expected':<10}  " + "  ".join(
        pad(f"{expected[label]:.1f}/{len(probes)}", width, "^") for label in labels))
    return "\n".join(lines)


async def preload(session: Any, items: Sequence[Mapping[str, Any]]) -> None:
    """Store a recorded conversation in ``session`` the way the Runner would have stored it
    (one ``add_items`` call per user message, tool round and reply), so a question asked
    next continues it."""
    from ..eval.replay import runner_batches  # eval imports this module; import late

    for batch in runner_batches(items):
        await session.add_items(batch)


async def ask_after(
    agent: Agent[Any],
    history: Sequence[Mapping[str, Any]],
    question: str,
    make_session: Callable[[], Any],
    make_manager: Callable[[Any], Any] | None = None,
) -> TurnRecord:
    """Ask ``question`` through the real Runner after ``history``: a fresh session from
    ``make_session()`` holds the history (:func:`preload`), an optional
    ``make_manager(session)`` (a :class:`~ctxlab.context.ContextManager`) shapes every
    model call, and the reply and the calls are recorded (:func:`run_conversation`).
    Each question gets its own session, so asking one never moves another's window."""
    session = make_session()
    await preload(session, history)
    manager = make_manager(session) if make_manager is not None else None
    config = manager.run_config(tracing_disabled=True) if manager is not None else RunConfig(
        tracing_disabled=True)
    records = await run_conversation(agent, [question], session, run_config=config)
    return records[0]


async def answer_table(
    agent: Agent[Any],
    history: Sequence[Mapping[str, Any]],
    questions: Sequence[tuple[str, str, str]],
    memories: Mapping[str, tuple[Callable[[], Any], Callable[[Any], Any] | None]],
    *,
    headings: tuple[str, str] = ("fact", "tokens"),
) -> str:
    """A text table: one row per question ``(label, question, expected value)``, one column
    per memory ``label -> (make_session, make_manager or None)``; a cell is ✓ when the reply
    holds the expected value (:func:`ask_after`), ✗ otherwise. The last row sums the
    tokens all the questions spent (:func:`spent_tokens`: summarizer calls included).
    ``headings`` name the first column and the last row (a Chinese lesson passes its own);
    columns are aligned by display width, so Chinese labels line up too."""
    fact_head, tokens_head = headings
    labels = list(memories)
    width = max(14, *(display_width(label) for label in labels))
    head = max(8, display_width(fact_head), display_width(tokens_head),
               *(display_width(label) for label, _, _ in questions))
    marks: dict[str, list[str]] = {label: [] for label in labels}
    tokens = dict.fromkeys(labels, 0)
    for label, (make_session, make_manager) in memories.items():
        for _, question, expected in questions:
            record = await ask_after(agent, history, question, make_session, make_manager)
            marks[label].append("✓" if expected in record.reply else "✗")
            tokens[label] += record.spent_tokens
    lines = [f"{pad(fact_head, head)}  " + "  ".join(pad(label, width, "^") for label in labels)]
    lines.append("-" * display_width(lines[0]))
    for row, (name, _, _) in enumerate(questions):
        lines.append(f"{pad(name, head)}  " + "  ".join(pad(marks[label][row], width, "^")
                                                       for label in labels))
    lines.append(f"{pad(tokens_head, head)}  " + "  ".join(pad(f"{tokens[label]:,}", width, "^")
                                                          for label in labels))
    return "\n".join(lines)

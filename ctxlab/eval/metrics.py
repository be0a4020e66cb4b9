"""Measure one strategy on one case: what survived, what it cost, whether it was valid.

:func:`evaluate_case` replays the case (:class:`~ctxlab.eval.replay.StrategyReplay`) and
records, per :class:`CaseResult`:

* **fact availability** at every probe: is the expected value verbatim in the model's view?
  A **stale-value error** is a superseded value in the view while its replacement is not;
* **use**, not only presence (:mod:`ctxlab.eval.use`): at every probe, and at **every model
  call** for every fact with a history of values, which value the view presents as
  current: the current one, a superseded one (*stale-as-current*), or none;
* **answers** (optional): the probe asked through the agent, scored by exact match
  (:mod:`ctxlab.eval.answers`);
* **tokens**: exact input tokens of every model call of every turn (tool loops included),
  and what the full history would have sent for the same calls; and every summarizer call
  the strategy made (a fold), with its input and output tokens
  (:class:`~ctxlab.summarizers.metered.MeteredSummarizer`: the summarizer's own figures,
  or the request an LLMSummarizer would send for the fold), in the turn that made it;
* **validity**: :func:`ctxlab.validate_items` on the view of every model call (an invalid
  view is one the Responses API would reject; a probe's view is its turn's view with a
  question instead of the user's message, so it is not validated again);
* **token pressure**: a pinned fact (any fact of the answer key, while it is current) that
  leaves the view *because of a budget*: the session's ledger says an item holding it was
  dropped "over the ... budget", or the transform dropped something to meet its budget and
  the fact was in what the session returned. Each event is reported once, at the turn the
  fact left the view, with the request's tokens before and after the cut;
* **latency** of ``get_items``, ``add_items`` and the transform.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from ..context import RequestCounter
from ..core.items import item_text
from ..core.validate import validate_items
from ..summarizers.metered import MeteredSummarizer, SummaryCall
from .answers import AnswerScope, ProbeAsker, wants_answer
from .cases import EvalCase, KeyFact, RecallProbe
from .replay import ModelCall, StrategyReplay
from .strategies import Strategy, parse_strategy
from .use import UseRecord, UseTracker, read_use

PressureCause = Literal["session budget", "context budget"]

#: How many validity problems a case result keeps verbatim.
KEEP_PROBLEMS = 3


@dataclass(frozen=True)
class ProbeResult:
    """One probe on one strategy: was the value in view, and (if asked) the answer.

    ``superseded`` counts the older values of the fact (a stale error is only possible when
    it is > 0); ``stale`` says one of them was in view while ``expected`` was not. ``use``
    says which value the view presents as current: ``"current"``, ``"stale"`` (a superseded
    value) or ``"missing"`` (:mod:`ctxlab.eval.use`).
    """

    probe: str
    turn: int
    fact: str
    category: str
    expected: str
    from_tool: bool
    available: bool
    stale: bool
    superseded: int = 0
    use: str | None = None
    asked: bool = False
    correct: bool | None = None
    answer_stale: bool | None = None
    reply: str | None = None
    tool_calls: int = 0

    @property
    def passed(self) -> bool:
        """The answer's verdict when the probe was asked, else availability."""
        return bool(self.correct) if self.asked else self.available


@dataclass(frozen=True)
class TurnMetrics:
    """One user turn: model calls, their input tokens, the full history's for the same
    calls, and the first call's tokens (what memory decided to send); and the summarizer
    calls (folds) the turn triggered, with their input and output tokens."""

    turn: int
    calls: int
    tokens: int
    full_tokens: int
    first_call_tokens: int
    summary_calls: int = 0
    summary_input_tokens: int = 0
    summary_output_tokens: int = 0

    @property
    def memory_tokens(self) -> int:
        """Tokens the summarizer read and wrote in this turn."""
        return self.summary_input_tokens + self.summary_output_tokens


@dataclass(frozen=True)
class PressureEvent:
    """A pinned fact that left the view because of a budget (see the module docstring)."""

    turn: int
    fact: str
    value: str
    cause: PressureCause
    tokens_before: int
    tokens_after: int
    detail: str


@dataclass
class CaseResult:
    """Everything measured for one strategy on one case (JSON-ready via :meth:`to_dict`)."""

    case: str
    source: str
    strategy: str
    turns: list[TurnMetrics] = field(default_factory=list)
    probes: list[ProbeResult] = field(default_factory=list)
    pressure: list[PressureEvent] = field(default_factory=list)
    calls: int = 0
    invalid_calls: int = 0
    problems: list[str] = field(default_factory=list)
    over_budget: int = 0
    latency_ms: dict[str, list[float]] = field(default_factory=dict)
    summary: dict[str, Any] | None = None
    use: list[UseRecord] = field(default_factory=list)

    @property
    def tokens(self) -> int:
        """Input tokens of the agent's model calls."""
        return sum(t.tokens for t in self.turns)

    @property
    def summary_calls(self) -> int:
        return sum(t.summary_calls for t in self.turns)

    @property
    def summary_input_tokens(self) -> int:
        return sum(t.summary_input_tokens for t in self.turns)

    @property
    def summary_output_tokens(self) -> int:
        return sum(t.summary_output_tokens for t in self.turns)

    @property
    def spent_tokens(self) -> int:
        """Every token the strategy costs: the agent's input tokens and the tokens its
        summarizer read and wrote."""
        return self.tokens + self.summary_input_tokens + self.summary_output_tokens

    @property
    def full_tokens(self) -> int:
        return sum(t.full_tokens for t in self.turns)

    @property
    def n_turns(self) -> int:
        return len(self.turns)

    def cumulative_tokens(self) -> list[int]:
        """Tokens spent so far after each turn (a running total of ``turns``: the agent's
        input tokens and the summarizer's)."""
        total, out = 0, []
        for t in self.turns:
            total += t.tokens + t.memory_tokens
            out.append(total)
        return out

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CaseResult:
        """The inverse of :meth:`to_dict` (raises KeyError/TypeError on a malformed record)."""
        return cls(
            case=data["case"], source=data["source"], strategy=data["strategy"],
            turns=[TurnMetrics(**t) for t in data.get("turns", [])],
            probes=[ProbeResult(**p) for p in data.get("probes", [])],
            pressure=[PressureEvent(**p) for p in data.get("pressure", [])],
            calls=data.get("calls", 0), invalid_calls=data.get("invalid_calls", 0),
            problems=list(data.get("problems", [])), over_budget=data.get("over_budget", 0),
            latency_ms={k: list(v) for k, v in data.get("latency_ms", {}).items()},
            summary=data.get("summary"),
            use=[UseRecord(**u) for u in data.get("use", [])],
        )


def answer_probe_ids(case: EvalCase, scope: AnswerScope, limit: int | None) -> set[str]:
    """The probes of ``case`` asked through the agent: those ``scope`` allows, at most the
    last ``limit`` of them (the latest questions put memory under the most pressure)."""
    chosen = [p for p in case.probes if wants_answer(p, scope)]
    if limit is not None:
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
            raise ValueError(f"max_answer_probes must be None or an integer >= 0, got {limit!r}")
        chosen = chosen[max(0, len(chosen) - limit):] if limit else []
    return {p.id for p in chosen}


class _PressureTracker:
    """Finds the turns where a pinned fact left the view because of a budget."""

    def __init__(self, facts: Sequence[KeyFact]):
        self.facts = list(facts)
        self.in_view: dict[str, bool] = {}
        self.events: list[PressureEvent] = []

    def check(self, call: ModelCall) -> None:
        text = call.text
        for fact in self.facts:
            if not fact.current_at(call.turn):
                continue
            present = fact.found_in(text)
            was = self.in_view.get(fact.id)
            self.in_view[fact.id] = present
            if present or was is False:
                continue
            event = self._cause(call, fact, fact.found_in(call.session_text))
            if event is not None:
                self.events.append(event)

    @staticmethod
    def _cause(call: ModelCall, fact: KeyFact, in_session: bool) -> PressureEvent | None:
        if in_session:
            if not call.dropped:
                return None
            detail = "; ".join(call.dropped[:3]) + ("; ..." if len(call.dropped) > 3 else "")
            return PressureEvent(call.turn, fact.name, fact.value, "context budget",
                                 call.session_tokens, call.tokens, detail)
        if call.ledger is None:
            return None
        for entry in call.ledger:
            if entry.state == "dropped" and "budget" in entry.reason and fact.found_in(entry.text):
                return PressureEvent(call.turn, fact.name, fact.value, "session budget",
                                     call.full_tokens, call.session_tokens, entry.reason)
        return None


async def evaluate_case(
    case: EvalCase,
    strategy: Strategy | str,
    *,
    instructions: str | None = None,
    tools: Sequence[Any] = (),
    asker: ProbeAsker | None = None,
    scope: AnswerScope = "offline-kinds",
    max_answer_probes: int | None = 4,
    counter: RequestCounter | None = None,
) -> CaseResult:
    """Replay ``case`` through ``strategy`` and measure it (see the module docstring).

    ``asker`` asks the answer probes (None: availability only); ``scope`` and
    ``max_answer_probes`` choose which (see :func:`answer_probe_ids`).
    """
    strategy = parse_strategy(strategy)
    # The ledger only explains drops by a *session* budget (trim:N@T); skip it otherwise.
    ledgers = strategy.params.get("max_tokens") is not None or "base" not in strategy.params
    replay = StrategyReplay.for_case(case, strategy, instructions=instructions, tools=tools,
                                     counter=counter, ledgers=ledgers)
    result = CaseResult(case=case.id, source=case.source, strategy=replay.strategy.name)
    asked = answer_probe_ids(case, scope, max_answer_probes) if asker is not None else set()
    matchers = {f.id: f for f in case.facts}
    tracker = _PressureTracker(case.facts)
    uses = UseTracker(case.facts, [item_text(it) for it in case.items], case.turn_starts)
    per_turn: dict[int, list[ModelCall]] = {}
    meter = getattr(replay.session, "summarizer", None)
    folds: dict[int, list[SummaryCall]] = {}
    async for call in replay.calls():
        if isinstance(meter, MeteredSummarizer):
            folds.setdefault(call.turn, []).extend(meter.drain())
        if call.warning:
            result.over_budget += 1
        if call.probe is None:  # a probe's view is its turn's history plus a question
            _check_call(result, call)
        if call.probe is not None:
            result.probes.append(
                await _probe(call, call.probe, matchers, asker if call.probe.id in asked
                             else None))
            continue
        per_turn.setdefault(call.turn, []).append(call)
        uses.check(call.turn, call.full_count, call.text)
        if call.step == 0 and case.facts:
            tracker.check(call)
    if isinstance(meter, MeteredSummarizer):
        folds.setdefault(0, []).extend(meter.drain())
    result.turns = _turn_metrics(per_turn, folds)
    result.pressure = tracker.events
    result.use = uses.records()
    result.latency_ms = {op: [round(s * 1000, 4) for s in samples]
                         for op, samples in replay.timings.samples.items() if samples}
    result.summary = _final_summary(replay.session)
    return result


def _check_call(result: CaseResult, call: ModelCall) -> None:
    """Count a model call, and whether its items are a valid sequence (the first problems
    are kept)."""
    result.calls += 1
    problems = validate_items(call.items)
    if problems:
        result.invalid_calls += 1
        if len(result.problems) < KEEP_PROBLEMS:
            result.problems.append(f"turn {call.turn} step {call.step}: {problems[0]}")


def _final_summary(session: Any) -> dict[str, Any] | None:
    """The summary a summarizing session holds at the end, or None."""
    record = getattr(session, "summary", None)
    if record is None or not hasattr(record, "text") or not hasattr(record, "items"):
        return None
    return {
        "text": record.text, "turns": list(record.turns), "items": list(record.items),
        "missing_identifiers": list(getattr(record, "missing_identifiers", ())),
    }


def _turn_metrics(per_turn: dict[int, list[ModelCall]],
                  folds: dict[int, list[SummaryCall]]) -> list[TurnMetrics]:
    """One :class:`TurnMetrics` per turn; summarizer calls made after the last turn's model
    calls (or outside any turn) are billed to the last turn."""
    out = []
    for turn, calls in sorted(per_turn.items()):
        last = turn == max(per_turn)
        made = [c for t, done in folds.items() if t == turn or (last and t not in per_turn)
                for c in done]
        out.append(TurnMetrics(
            turn=turn, calls=len(calls), tokens=sum(c.tokens for c in calls),
            full_tokens=sum(c.full_tokens for c in calls), first_call_tokens=calls[0].tokens,
            summary_calls=len(made), summary_input_tokens=sum(c.input_tokens for c in made),
            summary_output_tokens=sum(c.output_tokens for c in made),
        ))
    return out


async def _probe(call: ModelCall, probe: RecallProbe, matchers: dict[str, KeyFact],
                 asker: ProbeAsker | None) -> ProbeResult:
    text = call.text
    fact = matchers[f"{probe.fact}={probe.expected}"]
    available = fact.found_in(text)
    stale = not available and any(
        matchers[f"{probe.fact}={old}"].found_in(text) for old in probe.stale
        if f"{probe.fact}={old}" in matchers
    )
    older = [matchers[f"{probe.fact}={old}"] for old in probe.stale
             if f"{probe.fact}={old}" in matchers]
    base = ProbeResult(
        probe=probe.id, turn=probe.turn, fact=probe.fact, category=probe.category,
        expected=probe.expected, from_tool=probe.from_tool, available=available, stale=stale,
        superseded=len(probe.stale), use=read_use(text, fact, older).use,
    )
    if asker is None:
        return base
    answer = await asker.ask(call.items, probe, fact)
    return ProbeResult(**{**asdict(base), "asked": True, "correct": answer.correct,
                          "answer_stale": answer.stale, "reply": answer.reply,
                          "tool_calls": answer.tool_calls})

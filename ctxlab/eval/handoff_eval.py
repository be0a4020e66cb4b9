"""Score what a receiving agent gets in a handoff, per history mode, on multi-issue chats.

For each planted multi-issue chat (:mod:`ctxlab.eval.multi_issue`) and each mode, the
support agent is run through the real SDK ``Runner`` on a session holding the chat; the
customer resumes issue A and asks for the repair desk; the support agent hands off with the
mode's input filter. What the repair desk's model is sent (recorded with a
``call_model_input_filter``) is scored three ways:

* **first action**: the repair desk checks the warranty of the device it believes is in
  question: right when the serial is issue A's, *leaked* when it is issue B's;
* **answers**: each of A's facts (serial, error code, ticket, firmware) is asked about
  against that view (one question each, never stored), through the Runner; an answer is
  *right* when it holds A's value, *leaked* when it holds B's value of the same kind
  (another issue's fact presented as this one's), *missing* otherwise;
* **view**: how many of A's facts the view holds at all, how many of B's (other-issue
  facts that reach the receiver), and its size in tokens.

The offline model answers with the most recent value of a kind it sees: a reader that
trusts recency, as tired humans and many models do. A strong model may sort out the full
transcript better; the per-issue view does not depend on it.

Which model: :func:`run_handoff` runs on the configured backend (``choose_backend``, as
``make_support_team`` does; :class:`~ctxlab.course.team.OfflineTeamModel` offline), and
when the support agent does not hand off it raises
:class:`~ctxlab.course.actions.ActionNotTaken` saying why (on
``llama-cpp-python[server]``: the named server limit, tools dropped without
``tool_choice``). :func:`score_handoffs` is the planted measurement and stays on the
offline team model unless given ``model=``; :func:`handoff_table` names the model it used.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from agents import Agent, RunConfig, Runner, SQLiteSession

from ..core.display import NOTEBOOK_COLUMNS, wrap
from ..core.tokens import count_items_tokens
from ..handoffs import FullHistory, HandoverSummary, IssueHandover, TrimmedHistory, view_text
from .cases import KIND_QUESTIONS, KeyFact
from .multi_issue import MultiIssueCase

#: The modes the CLI and the lesson compare, in table order.
MODES = ("full", "trim:3", "sdk-nested", "handover", "per-issue")
_QUIET = RunConfig(tracing_disabled=True)


def history_filter(mode: str) -> Any:
    """The handoff input filter of ``mode`` (None for "sdk-nested", which is a RunConfig
    switch, and for the SDK default)."""
    if mode == "full":
        return FullHistory()
    if mode.startswith("trim:"):
        try:
            return TrimmedHistory(int(mode.split(":", 1)[1]))
        except ValueError as exc:
            raise ValueError(f"mode {mode!r}: trim:N needs a whole number N >= 1") from exc
    if mode == "handover":
        return HandoverSummary()
    if mode == "per-issue":
        return IssueHandover()
    if mode == "sdk-nested":
        return None
    raise ValueError(f"unknown handoff mode {mode!r}; use one of: full, trim:N, sdk-nested, "
                     "handover, per-issue")


def _holds(text: str, value: str | None) -> bool:
    return bool(value) and KeyFact("fact", str(value), "fact").found_in(text)


def _verdict(text: str, right: str, wrong: str | None) -> str:
    """right: holds ``right`` and not ``wrong``; leaked: holds ``wrong``; missing: neither."""
    if _holds(text, wrong):
        return "leaked"
    return "right" if _holds(text, right) else "missing"


@dataclass(frozen=True)
class HandoffOutcome:
    """What one handoff gave the receiver, and how it scored."""

    case_id: str
    mode: str
    view: tuple[dict[str, Any], ...]
    action: str  # right / leaked / missing: the serial the repair desk checked
    answers: dict[str, str]  # fact kind -> right / leaked / missing
    kept_in_view: int
    foreign_in_view: int
    facts: int
    tokens: int
    reply: str = ""
    checked: str = ""  # the serial the repair desk checked first ("" when it checked none)


def _model_of(model: Any) -> tuple[Any, Any]:
    """``(model, model settings)`` for a plain ``Agent`` from a Backend, Model or name."""
    from ..course.backends import Backend

    if isinstance(model, Backend):
        return model.model, model.model_settings
    return model, None


async def resume_to_repair(team: Mapping[str, Agent], case: MultiIssueCase, session_id: str,
                           **config: Any) -> tuple[Any, list[list[dict[str, Any]]]]:
    """Run ``case``'s resume turn on ``team`` (its earlier items in a fresh SQLite session
    ``session_id``); the run's result and the repair desk's first model input (in a list:
    empty when the support agent did not hand off). ``config``: more ``RunConfig`` fields."""
    sent: list[list[dict[str, Any]]] = []

    async def record(data: Any) -> Any:
        if data.agent.name == team["repair"].name and not sent:
            sent.append([dict(i) for i in data.model_data.input])
        return data.model_data

    session = SQLiteSession(session_id)
    await session.add_items([dict(i) for i in case.items])
    run_config = RunConfig(tracing_disabled=True, call_model_input_filter=record, **config)
    result = await Runner.run(team["support"], case.resume, session=session,
                              run_config=run_config)
    return result, sent


async def run_handoff(case: MultiIssueCase, mode: str, *, model: Any = None) -> HandoffOutcome:
    """Run the resume turn of ``case`` with handoff mode ``mode`` and score the view, on
    ``model`` (default: the configured backend; see the module docstring)."""
    from ..course.actions import check_action
    from ..course.team import make_support_team
    from ..course.team.agents import team_model

    model = team_model(model)
    team = make_support_team(model, input_filter=history_filter(mode))
    result, sent = await resume_to_repair(team, case, f"handoff-{case.id}",
                                          nest_handoff_history=mode == "sdk-nested")
    check_action(f"{case.id} ({mode}): hand off to the repair desk", happened=bool(sent),
                 result=result, tool="transfer_to_repair_desk",
                 backend=model).require()
    view = sent[0]
    a, b = case.resumed, case.other
    checked = [json.loads(i.raw_item.arguments).get("serial", "") for i in result.new_items
               if getattr(i.raw_item, "name", None) == "check_warranty"]
    action = _verdict(" ".join(checked), a.facts["serial"], b.facts["serial"])
    answers = await _ask(view, case, model)
    text = view_text(view)
    foreign = {v for v in b.facts.values() if v not in a.facts.values()}
    return HandoffOutcome(
        case.id, mode, tuple(view), action, answers,
        kept_in_view=sum(_holds(text, v) for v in a.facts.values()),
        foreign_in_view=sum(_holds(text, v) for v in foreign),
        facts=len(a.facts), tokens=count_items_tokens(view),
        reply=str(result.final_output or ""), checked=checked[0] if checked else "")


class HandoffRuns(dict[str, HandoffOutcome]):
    """:func:`run_handoffs`' outcomes by mode; :attr:`missed` holds, by mode, the verdict
    on a handoff that did not happen (an :class:`~ctxlab.course.actions.ActionCheck` that
    says why)."""

    def __init__(self) -> None:
        super().__init__()
        self.missed: dict[str, Any] = {}


async def run_handoffs(case: MultiIssueCase, modes: Sequence[str], *,
                       model: Any = None) -> HandoffRuns:
    """:func:`run_handoff` for each mode; a mode whose support agent did not hand off goes to
    :attr:`HandoffRuns.missed` with the reason, and the others still run."""
    from ..course.actions import ActionNotTaken

    runs = HandoffRuns()
    for mode in modes:
        try:
            runs[mode] = await run_handoff(case, mode, model=model)
        except ActionNotTaken as missed:
            runs.missed[mode] = missed.check
    return runs


async def _ask(view: Sequence[Mapping[str, Any]], case: MultiIssueCase,
               model: Any) -> dict[str, str]:
    agent_model, settings = _model_of(model)
    asker = Agent(name="Repair desk", instructions="Answer the customer's question.",
                  model=agent_model, **({"model_settings": settings} if settings else {}))
    answers = {}
    for kind, value in case.resumed.facts.items():
        question = {"role": "user", "content": KIND_QUESTIONS[kind]}
        result = await Runner.run(asker, [*[dict(i) for i in view], question],
                                  run_config=_QUIET, max_turns=2)
        answers[kind] = _verdict(str(result.final_output or ""), value,
                                 case.other.facts.get(kind))
    return answers


@dataclass
class ModeScore:
    """Totals of one mode over many chats."""

    mode: str
    chats: int = 0
    probes: int = 0
    right: int = 0
    leaked: int = 0
    missing: int = 0
    action_right: int = 0
    action_leaked: int = 0
    kept_in_view: int = 0
    foreign_in_view: int = 0
    facts: int = 0
    foreign_facts: int = 0
    tokens: int = 0
    outcomes: list[HandoffOutcome] = field(default_factory=list, repr=False)
    model: str = "offline team model"

    def add(self, outcome: HandoffOutcome, foreign_facts: int) -> None:
        self.chats += 1
        self.outcomes.append(outcome)
        verdicts = list(outcome.answers.values())
        self.probes += len(verdicts)
        self.right += verdicts.count("right")
        self.leaked += verdicts.count("leaked")
        self.missing += verdicts.count("missing")
        self.action_right += outcome.action == "right"
        self.action_leaked += outcome.action == "leaked"
        self.kept_in_view += outcome.kept_in_view
        self.foreign_in_view += outcome.foreign_in_view
        self.facts += outcome.facts
        self.foreign_facts += foreign_facts
        self.tokens += outcome.tokens

    def as_dict(self) -> dict[str, Any]:
        share = (lambda n, d: round(n / d, 4) if d else 0.0)  # noqa: E731
        return {"mode": self.mode, "chats": self.chats, "probes": self.probes,
                "right": share(self.right, self.probes), "leaked": share(self.leaked, self.probes),
                "missing": share(self.missing, self.probes),
                "action_right": share(self.action_right, self.chats),
                "action_leaked": share(self.action_leaked, self.chats),
                "kept_in_view": share(self.kept_in_view, self.facts),
                "foreign_in_view": share(self.foreign_in_view, self.foreign_facts),
                "tokens_per_handoff": round(self.tokens / self.chats, 1) if self.chats else 0}


async def score_handoffs(cases: Sequence[MultiIssueCase], modes: Sequence[str] = MODES, *,
                         model: Any = None) -> list[ModeScore]:
    """Every mode on every case, on ``model`` (default: the offline team model, whatever
    backend is configured: the planted measurement; see the module docstring)."""
    from ..course.team import OfflineTeamModel

    for mode in modes:
        history_filter(mode)  # unknown modes fail before anything runs
    label = "offline team model" if model is None else _model_label(model)
    model = model if model is not None else OfflineTeamModel()
    scores = []
    for mode in modes:
        score = ModeScore(mode, model=label)
        for case in cases:
            foreign = len({v for v in case.other.facts.values()
                           if v not in case.resumed.facts.values()})
            score.add(await run_handoff(case, mode, model=model), foreign)
        scores.append(score)
    return scores


def _model_label(model: Any) -> str:
    from ..course.offline import OfflineSupportModel

    if isinstance(model, OfflineSupportModel):
        return "offline team model"
    name = getattr(model, "model_name", None) or getattr(model, "model", None) or model
    return str(name) if isinstance(name, str) else type(model).__name__


def handoff_table(scores: Sequence[ModeScore]) -> str:
    """The scores as a text table (shares in percent, tokens per handoff)."""
    head = (f"{'mode':<12}{'right':>7}{'leaked':>8}{'missing':>9}{'action ok':>11}"
            f"{'action leak':>13}{'A in view':>11}{'B in view':>11}{'tokens':>8}")
    lines = [head, "-" * len(head)]
    for s in scores:
        d = s.as_dict()
        lines.append(f"{s.mode:<12}{d['right']:>7.0%}{d['leaked']:>8.0%}{d['missing']:>9.0%}"
                     f"{d['action_right']:>11.0%}{d['action_leaked']:>13.0%}"
                     f"{d['kept_in_view']:>11.0%}{d['foreign_in_view']:>11.0%}"
                     f"{d['tokens_per_handoff']:>8.0f}")
    chats = scores[0].chats if scores else 0
    model = scores[0].model if scores else "-"
    lines += wrap(f"({chats} planted multi-issue chats, scored on the {model}; "
                  "right/leaked/missing: answers about the resumed issue's facts; action: the "
                  "serial the repair desk checked first)", NOTEBOOK_COLUMNS)
    return "\n".join(lines)

"""What the receiving agent sees: handoff input filters built on the SDK's hooks.

When a support agent hands off (``handoff(agent, input_filter=...)`` or
``RunConfig(handoff_input_filter=...)``), the SDK gives the filter a ``HandoffInputData``:
the run's input history (with a session: the stored conversation plus the new message),
the items generated before the handoff, and the handoff call with its output. What the
filter returns is exactly what the next agent's model is sent. The session still stores
everything: the filter shapes the view, never the log.

Four filters, each a small class whose :attr:`~HistoryFilter.last_view` shows what it sent:

* :class:`FullHistory`: everything (the SDK's default, here checked and recorded);
* :class:`TrimmedHistory`: the last ``turns`` user turns;
* :class:`HandoverSummary`: a case handover summary of everything before the current turn,
  then the current turn verbatim;
* :class:`IssueHandover`: the same, but of the *current issue's* turns only
  (:func:`~ctxlab.handoffs.issues.split_issues`), plus what is true of the customer for
  every issue (their contact details, standing requests), so another issue's serials and
  error codes never reach the receiver as this issue's.

The SDK's own :func:`agents.extensions.handoff_filters.nest_handoff_history` (a transcript
flattened into one assistant message) and ``remove_all_tools`` compose with these as usual.

:class:`IssueFocus` gives one agent the same per-issue view when a customer comes back to an
earlier issue without any handoff (a ``call_model_input_filter``).

Every view is checked with :func:`ctxlab.validate_items`: pairs whole, message forms both SDK
model classes accept (the summary is a plain ``{"role": "assistant", "content": text}``
message after a plain user line, as summarizing sessions send it).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..core.items import item_text, model_safe
from ..core.turns import segment_turns
from ..core.validate import repair, validate_items
from ..facts.instructions import flag_text
from ..memory.state import SupportState
from ..summarizers.base import call_summarizer
from ..summarizers.extractive import ExtractiveSummarizer
from .issues import IssueSplit, split_issues

Item = dict[str, Any]

#: The user line before a handover summary (as a summarizing session's shadow prompt).
HANDOVER_PROMPT = "You are taking over this case. What has happened so far?"
HANDOVER_PROMPT_ZH = "这位客户现在由你接手。之前都处理到哪一步了？"


def handoff_items(data: Any) -> tuple[list[Item], list[Item]]:
    """``(before, handoff)``: the conversation up to the handoff (input history and the
    items generated before it), and the items of the handoff step (the handoff call and
    its output), all as input items."""
    history = data.input_history
    before: list[Item] = ([{"role": "user", "content": history}] if isinstance(history, str)
                          else [dict(item) for item in history])
    before += [dict(item.to_input_item()) for item in data.pre_handoff_items]
    step = [dict(item.to_input_item()) for item in data.new_items]
    return [model_safe(i) for i in before], [model_safe(i) for i in step]


def _last_turn_start(items: Sequence[Mapping[str, Any]]) -> int:
    turns = segment_turns(items).turns
    return turns[-1].start if turns else len(items)


def _language(items: Sequence[Mapping[str, Any]]) -> str:
    from ..facts.language import conversation_language

    return conversation_language(list(items))


class HistoryFilter:
    """Base class: builds the receiver's view from the items before the handoff and the
    handoff step, checks it, records it, and hands it to the SDK."""

    #: Short name used in tables ("full", "trim:3", "handover", "per-issue").
    label = "filter"

    def __init__(self) -> None:
        self.last_view: list[Item] | None = None
        self.views: int = 0

    async def view(self, before: list[Item], step: list[Item]) -> list[Item]:
        raise NotImplementedError

    async def __call__(self, data: Any) -> Any:
        before, step = handoff_items(data)
        view = await self.view(before, step)
        drop = repair(view)  # a view must never be rejected by the API
        if drop:
            view = [item for n, item in enumerate(view) if n not in drop]
        problems = validate_items(view)
        if problems:  # pragma: no cover - repair() covers pairing; shapes come from the SDK
            raise ValueError(f"{self.label} built an invalid view: {problems[0]}")
        self.last_view = view
        self.views += 1
        return data.clone(input_history=tuple(view), pre_handoff_items=(), input_items=())

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.label})"


class FullHistory(HistoryFilter):
    """Everything: the conversation, then the handoff step."""

    label = "full"

    async def view(self, before: list[Item], step: list[Item]) -> list[Item]:
        return before + step


class TrimmedHistory(HistoryFilter):
    """The last ``turns`` user turns (the current one included), then the handoff step."""

    def __init__(self, turns: int = 3):
        super().__init__()
        if isinstance(turns, bool) or not isinstance(turns, int) or turns < 1:
            raise ValueError(f"turns must be an integer >= 1, got {turns!r}")
        self.turns = turns
        self.label = f"trim:{turns}"

    async def view(self, before: list[Item], step: list[Item]) -> list[Item]:
        starts = [t.start for t in segment_turns(before).turns]
        cut = starts[-self.turns] if len(starts) >= self.turns else 0
        return before[cut:] + step


class HandoverSummary(HistoryFilter):
    """A case handover summary of everything before the current turn, then the current
    turn and the handoff step. ``summarizer`` is any ctxlab summarizer (default: the
    offline :class:`~ctxlab.ExtractiveSummarizer`; :class:`~ctxlab.LLMSummarizer` with a
    real model, whose prompt is written as a case handover)."""

    label = "handover"

    def __init__(self, summarizer: Any = None):
        super().__init__()
        self.summarizer = summarizer or ExtractiveSummarizer()

    async def summary(self, earlier: list[Item]) -> str:
        return (await call_summarizer(self.summarizer, earlier, None)).text

    async def view(self, before: list[Item], step: list[Item]) -> list[Item]:
        cut = _last_turn_start(before)
        earlier, current = before[:cut], before[cut:]
        if not earlier:
            return before + step
        return [*summary_pair(await self.summary(earlier), _language(before)), *current, *step]


class IssueHandover(HandoverSummary):
    """A handover of the current issue only (see the module docstring).

    Args:
        summarizer: summarizes the issue's older turns (default: extractive, offline).
        schema: the services the deployment offers (SGD-style ``schema.json``, a
            ``{service: [slots]}`` dict, a :class:`~ctxlab.handoffs.services.ServiceSchema`):
            issues are then services found by the schema's words, not devices.
        verbatim: how many of the issue's last turns are carried word for word (the rest
            summarized); None: every turn of the issue when a schema is given (a service's
            turns are few, and a summary drops values), else none.
        split_replies: with a schema, an agent reply to a turn that asks for two services
            keeps only its sentences about this one (:func:`~ctxlab.handoffs.service_split.
            reply_for`). Off by default: on SGD and CrossWOZ it removes no leak the split
            does not already avoid and loses a value when a name holds another service's
            word ("北京前门建国饭店").
    """

    label = "per-issue"

    def __init__(self, summarizer: Any = None, *, schema: Any = None,
                 verbatim: int | None = None, split_replies: bool = False):
        super().__init__(summarizer)
        if verbatim is not None and (isinstance(verbatim, bool) or not isinstance(verbatim, int)
                                     or verbatim < 0):
            raise ValueError(f"verbatim must be an integer >= 0 or None, got {verbatim!r}")
        if not isinstance(split_replies, bool):
            raise ValueError(f"split_replies must be True or False, got {split_replies!r}")
        if schema is not None:
            from .services import service_schema

            schema = service_schema(schema)
        self.schema = schema
        self.verbatim = verbatim
        self.split_replies = split_replies

    def split(self, items: Sequence[Mapping[str, Any]]) -> IssueSplit:
        """The issues of ``items`` (by the schema when there is one)."""
        return split_issues(items, schema=self.schema)

    async def view(self, before: list[Item], step: list[Item]) -> list[Item]:
        split = self.split(before)
        issue = split.current
        if issue is None:  # no issue named yet: nothing to separate
            return await super().view(before, step)
        cut = _last_turn_start(before)
        current = before[cut:]
        handover = await self.issue_items(split, issue.number, before=len(split.turn_issue))
        return [*handover, *current, *step]

    async def issue_items(self, split: IssueSplit, number: int, *,
                          before: int | None = None) -> list[Item]:
        """The handover of issue ``number`` (its turns before turn ``before``): a note
        (heading, customer facts, summary of the older turns), then the last turns."""
        issue = split.issue(number)
        turns = [t for t in issue.turns if before is None or t < before]
        keep = self.verbatim if self.verbatim is not None else (
            len(turns) if self.schema is not None else 0)
        older, recent = (turns[:-keep], turns[-keep:]) if keep else (turns, [])
        body = await self.summary(split.turn_items(older)) if older else ""
        language = _language(split.items)
        if not turns and not split.customer_items():
            return []
        if issue.context:  # what "there" in the issue's first turn pointed to
            zh = language == "zh"
            named = ("客户此前提到：" + "、".join(issue.context) if zh else
                     "Earlier the customer named: " + "; ".join(issue.context))
            body = "\n".join(p for p in (named, body) if p)
        note = await customer_note(split, issue.subject, body,
                                   general_only=self.schema is not None)
        return [*summary_pair(note, language), *self._own_replies(split, issue.subject,
                                                                    recent)]

    def _own_replies(self, split: IssueSplit, subject: str, turns: list[int]) -> list[Item]:
        """The turns' items; with a schema, a reply to a turn that asks for this service
        and another one keeps only its sentences about ``subject``."""
        if self.schema is None or not self.split_replies:
            return split.turn_items(turns)
        from .service_split import reply_for

        others = [i.subject for i in split.issues]
        out: list[Item] = []
        for number in turns:
            items = split.turn_items([number])
            asked = set(self.schema.scores(item_text(items[0]))) if items else set()
            both = subject in asked and bool(asked & (set(others) - {subject}))
            for item in items:
                if both and item.get("role") == "assistant" and \
                        item.get("type", "message") == "message":
                    text = reply_for(item_text(item), subject, others, self.schema)
                    if text != item_text(item):
                        item = {"role": "assistant", "content": text} if text else {}
                if item:
                    out.append(item)
        return out


class IssueFocus:
    """The per-issue view for one agent across a pause: a ``call_model_input_filter``.

    Without a handoff, the same agent meets the same problem: back on the laptop after the
    printer, its input is the whole chat. On a turn that resumes an earlier issue (the
    previous turn belonged to another one), this filter sends what :class:`IssueHandover`
    would: the resumed issue's handover and the current turn; other turns are sent as they
    are. It changes what the model is sent, never what the session stores.
    """

    def __init__(self, summarizer: Any = None, *, always: bool = False):
        self.handover = IssueHandover(summarizer)
        self.always = always
        self.focused = 0

    def __repr__(self) -> str:
        return f"IssueFocus(always={self.always})"

    def resumes(self, items: Sequence[Mapping[str, Any]]) -> bool:
        """True when the input's current turn belongs to an issue the previous turn did not."""
        split = split_issues(items)
        turns = split.turn_issue
        if not turns or turns[-1] == 0:
            return False
        return self.always or (len(turns) > 1 and turns[-2] != turns[-1]
                               and turns[-1] in turns[:-1])

    async def __call__(self, data: Any) -> Any:
        from agents.run_config import ModelInputData

        items = [model_safe(i) for i in data.model_data.input]
        if not self.resumes(items):
            return data.model_data
        view = await self.handover.view(items, [])
        self.focused += 1
        return ModelInputData(input=view, instructions=data.model_data.instructions)


async def customer_note(split: IssueSplit, subject: str, body: str = "", *,
                        general_only: bool = False) -> str:
    """The handover text of one issue: a heading, the customer facts, the issue summary.
    ``general_only``: standing requests only from the turns before any issue (in a task
    conversation, "for 2 people at 7 pm" is a booking's value, not a standing request)."""
    from ..memory.state_memory import StateMemory

    others = list(dict.fromkeys(i.subject for i in split.issues if i.subject != subject))
    zh = _language(split.items) == "zh"
    everything, before_issues = StateMemory(), StateMemory()
    # contact details and standing requests hold for every issue, from what the customer
    # wrote (a hotel's phone number the agent read out is not theirs); promises only when
    # made before any issue
    await everything.feed([i for i in split.items if _customer_said(i)])
    await before_issues.feed(split.customer_items())
    if general_only:
        everything.state.constraints = list(before_issues.state.constraints)
    customer = _customer_text(everything.state, before_issues.state)
    if zh:
        head = f"交接单：{subject}的问题" + (f"（{'、'.join(others)}的问题另行处理，不在本单内）"
                                            if others else "")
    else:
        head = f"Case handover: the {subject} issue" + (
            f" (the {', '.join(others)} issue{'s' if len(others) > 1 else ''} handled "
            "separately, left out here)" if others else "")
    return "\n".join(part for part in (head, customer, body) if part)


def _customer_said(item: Mapping[str, Any]) -> bool:
    return item.get("role") == "user" and item.get("type", "message") == "message"


_CUSTOMER_WORDS = {
    "en": {"head": "customer: ", "requests": "standing requests: ", "promises": "promised: ",
           "name": "name", "email": "email", "phone": "phone", "member_level": "member level",
           "user_id": "user id", "sep": " | "},
    "zh": {"head": "客户信息：", "requests": "客户要求：", "promises": "已答应客户：",
           "name": "姓名", "email": "邮箱", "phone": "手机号", "member_level": "会员等级",
           "user_id": "用户ID", "sep": "；"},
}


def _customer_text(state: SupportState, general: SupportState) -> str:
    """The customer's own facts: profile and standing requests from the whole chat,
    promises made outside any issue."""
    words = _CUSTOMER_WORDS["zh" if state.language == "zh" else "en"]
    profile = " | ".join(f"{words[f]} {getattr(state.user, f)}" for f in
                         ("name", "email", "phone", "member_level", "user_id")
                         if getattr(state.user, f))
    lines = [words["head"] + profile] if profile else []
    if state.constraints:
        lines.append(words["requests"] + words["sep"].join(c.text for c in state.constraints))
    if general.commitments:
        lines.append(words["promises"] + words["sep"].join(c.text for c in
                                                            general.commitments))
    return "\n".join(lines)


def summary_pair(text: str, language: str = "en") -> list[Item]:
    """The handover as a plain user line and a plain assistant message (both SDK model
    classes accept this form without item ids); its instruction-like lines flagged (what a
    customer or tool said stays quoted in the summary's assistant voice)."""
    prompt = HANDOVER_PROMPT_ZH if language == "zh" else HANDOVER_PROMPT
    return [{"role": "user", "content": prompt},
            {"role": "assistant", "content": flag_text(text)}]


def view_text(view: Sequence[Mapping[str, Any]]) -> str:
    """Everything a view shows, as one text (for scoring what the receiver could read)."""
    return "\n".join(item_text(item) for item in view)

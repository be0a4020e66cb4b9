"""Structured state memory: what a support conversation has established, as typed fields.

Instead of asking the model to re-read a transcript, keep the few facts it needs in a small
typed record that code can read (``state.issue.order_id``) and the model can be shown as one
compact message:

* :class:`UserProfile`: name, email, phone, member level, account id;
* :class:`IssueInfo`: category, the customer's devices (each with what the customer calls
  it, its model, serial and firmware: a laptop *and* its product name, two devices side by
  side), the current device's model, serial and firmware, order id, ticket id, RMA,
  reservation ids, error codes, status, and the date agreed in conversation (a visit, a
  callback);
* ``milestones``: what happened, in order, with the turn it happened in;
* ``constraints`` and ``commitments``: what the customer asked the agent to keep in mind
  ("email only, never call") and what the agent promised ("I'll send the label by
  Friday"), each with its turn; a revision replaces the earlier version on its topic;
* ``next_action``: what should happen next;
* ``history``: every value that was replaced, with the turn it came from and the turn that
  replaced it (the latest value wins, the old one is not forgotten);
* ``language``: the language the customer writes in (``"en"``, ``"zh"``), which the state
  message is rendered in: decided, like a summary's, by the letters of all the customer's
  messages so far (``letters``), so one English question in a Chinese chat does not switch
  it.

Extractors (:mod:`ctxlab.memory.extract`, :mod:`ctxlab.memory.llm_extract`) produce a
:class:`StatePatch` per turn; :meth:`SupportState.apply` merges it.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..facts.language import Language, decide
from ..facts.statements import as_statement, closest, same_promise

#: Where a value came from: said in conversation, or read from a tool call or output.
Origin = Literal["message", "tool"]

#: The scalar fields a patch may set, as ``"section.field"`` paths.
SCALAR_FIELDS: tuple[str, ...] = (
    "user.name",
    "user.email",
    "user.phone",
    "user.member_level",
    "user.user_id",
    "issue.category",
    "issue.device_model",
    "issue.serial",
    "issue.order_id",
    "issue.ticket_id",
    "issue.rma",
    "issue.firmware",
    "issue.status",
    "issue.date",
)

#: The list fields a patch may add to (values are kept once, in order of first mention).
LIST_FIELDS: tuple[str, ...] = ("issue.error_codes", "issue.reservation_ids")

#: The scalar fields that belong to the current device (each device keeps its own values
#: in :attr:`IssueInfo.devices`: a laptop's ticket is not replaced by the printer's).
DEVICE_FIELDS: tuple[str, ...] = ("issue.category", "issue.device_model", "issue.serial",
                                  "issue.firmware", "issue.order_id", "issue.ticket_id",
                                  "issue.rma", "issue.status")
_DEVICE_ATTR = {"issue.category": "problem", "issue.device_model": "model",
                "issue.serial": "serial",
                "issue.firmware": "firmware", "issue.order_id": "order",
                "issue.ticket_id": "ticket", "issue.rma": "rma", "issue.status": "status"}
#: Letters (CJK characters or Latin letters) the customer's messages need to decide a
#: language.
MIN_LANGUAGE_LETTERS = 4
#: Devices kept (the most recently discussed), as the fact tracker keeps them.
MAX_DEVICES = 6


class UserProfile(BaseModel):
    """Who the user is."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    name: str | None = None
    email: str | None = None
    phone: str | None = None
    member_level: str | None = None
    user_id: str | None = None


class Device(BaseModel):
    """A device the customer has: what they call it (``laptop``, ``冰箱``) and, once known,
    its problem, its model (the product: ``Aurora 14``, ``BCD-123``), serial, firmware, and
    the order, ticket, RMA and status of its case."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str | None = None
    problem: str | None = None
    model: str | None = None
    serial: str | None = None
    firmware: str | None = None
    order: str | None = None
    ticket: str | None = None
    rma: str | None = None
    status: str | None = None


class IssueInfo(BaseModel):
    """What the conversation is about.

    ``devices`` lists every device the customer has talked about, the current one last;
    the fields of :data:`DEVICE_FIELDS` (category, model, serial, firmware, order, ticket,
    RMA, status) are the current device's.
    """

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    category: str | None = None
    devices: list[Device] = Field(default_factory=list)
    device_model: str | None = None
    serial: str | None = None
    order_id: str | None = None
    ticket_id: str | None = None
    rma: str | None = None
    reservation_ids: list[str] = Field(default_factory=list)
    error_codes: list[str] = Field(default_factory=list)
    firmware: str | None = None
    status: str | None = None
    date: str | None = None


class Milestone(BaseModel):
    """Something that happened, and the turn it happened in (None when unknown)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    turn: int | None = None
    text: str


class Noted(BaseModel):
    """A constraint or commitment in force: its topic (or what is promised), the sentence
    as said, and the turn it was said in."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    topic: str
    text: str
    turn: int | None = None


class Superseded(BaseModel):
    """A value that a newer one replaced."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    field: str
    value: str
    turn: int | None = None
    replaced_by: str
    replaced_at: int | None = None


class StatePatch(BaseModel):
    """What one turn adds to the state (what an extractor returns).

    ``values`` sets scalar fields (``{"issue.serial": "SN-1"}``); ``origins`` says for each
    of them whether it was said in conversation or came from a tool (default: message);
    ``add`` appends to list fields; ``milestones`` are appended; ``next_action`` replaces
    the pending action (None: unchanged; ``""``: nothing is pending any more);
    ``constraints`` and ``commitments`` are sentences that set or revise one, ``done``
    sentences saying a commitment was kept; ``replace`` replaces values of list fields
    (``{"issue.error_codes": {"E1": "E2"}}``: a new error code instead of the old one);
    ``language`` is the language the turn's user messages are written in (None: not
    decided, for instance a turn with a bare "OK"); ``letters`` are the (CJK, Latin) letter
    counts of the turn's user messages, which the state adds up to decide the conversation's
    language (an extractor gives one or the other; ``language`` wins); ``device`` is the
    device the turn is about, as the customer calls it ("laptop", "冰箱"; None: the same as
    before).
    """

    model_config = ConfigDict(extra="forbid")

    values: dict[str, str] = Field(default_factory=dict)
    origins: dict[str, Origin] = Field(default_factory=dict)
    add: dict[str, list[str]] = Field(default_factory=dict)
    milestones: list[str] = Field(default_factory=list)
    next_action: str | None = None
    constraints: list[str] = Field(default_factory=list)
    commitments: list[str] = Field(default_factory=list)
    done: list[str] = Field(default_factory=list)
    replace: dict[str, dict[str, str]] = Field(default_factory=dict)
    language: Language | None = None
    letters: tuple[int, int] | None = None
    device: str | None = None

    def is_empty(self) -> bool:
        return not (self.values or self.add or self.milestones or self.next_action is not None
                    or self.constraints or self.commitments or self.done or self.replace
                    or self.language is not None or self.device or bool(self.letters))


class Change(BaseModel):
    """One field that an :meth:`SupportState.apply` call changed."""

    model_config = ConfigDict(frozen=True)

    field: str
    old: Any = None
    new: Any = None


class SupportState(BaseModel):
    """The structured state of one support conversation.

    ``sources`` records, for every scalar field that holds a value, the turn that value
    came from and whether it was said in conversation or read from a tool; ``turn`` is the
    last turn applied; ``letters`` the (CJK, Latin) letters of the customer's messages so far
    and ``language`` the language they add up to (or the latest an extractor stated;
    one (the state message is written in it).
    """

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    user: UserProfile = Field(default_factory=UserProfile)
    issue: IssueInfo = Field(default_factory=IssueInfo)
    milestones: list[Milestone] = Field(default_factory=list)
    next_action: str | None = None
    constraints: list[Noted] = Field(default_factory=list)
    commitments: list[Noted] = Field(default_factory=list)
    history: list[Superseded] = Field(default_factory=list)
    sources: dict[str, tuple[int | None, Origin]] = Field(default_factory=dict)
    turn: int = 0
    language: Language = "en"
    letters: tuple[int, int] = (0, 0)

    # -- reading ---------------------------------------------------------------------
    def get(self, path: str) -> Any:
        """The value at ``"section.field"`` (for example ``"issue.serial"``)."""
        section, name = _split(path)
        return getattr(getattr(self, section), name)

    def is_empty(self) -> bool:
        """True when nothing has been recorded yet."""
        filled = any(self.get(p) for p in (*SCALAR_FIELDS, *LIST_FIELDS))
        return not (filled or self.issue.devices or self.milestones or self.next_action
                    or self.constraints or self.commitments)

    def turn_of(self, path: str) -> int | None:
        """The turn the current value of a scalar field came from (None if unknown/unset)."""
        source = self.sources.get(_check_path(path, SCALAR_FIELDS))
        return source[0] if source else None

    # -- writing ---------------------------------------------------------------------
    def apply(self, patch: StatePatch, turn: int | None = None) -> list[Change]:
        """Merge ``patch`` (from turn ``turn``) into the state; return what changed.

        Scalar fields: the latest value wins and the value it replaces goes to
        :attr:`history` with its turn. One exception: a value read from a tool never
        replaces a *user profile* value the conversation stated (a device record's owner
        email is not the email the user asked us to use); it only fills an empty one.
        List fields keep every distinct value in order; milestones are kept once each.

        Devices: ``patch.device`` names the device the turn is about (a new one is added
        to :attr:`IssueInfo.devices`, a known one becomes the current one again); the
        device fields (:data:`DEVICE_FIELDS`: model, serial, firmware) describe the current
        device. A value that belonged to another device is not *replaced* when the
        conversation moves on to a new device: it stays with its device, and only a new
        value for the same device goes to :attr:`history`.
        """
        if not isinstance(patch, StatePatch):
            raise ValueError(f"apply expects a StatePatch, got {type(patch).__name__}")
        if turn is not None and (isinstance(turn, bool) or not isinstance(turn, int) or turn < 0):
            raise ValueError(f"turn must be None or an integer >= 0, got {turn!r}")
        changes = self._switch_device(patch.device, patch.values.get("issue.serial"))
        for path, value in patch.values.items():
            changes += self._set_value(path, value, patch.origins.get(path, "message"), turn)
        for path, pairs in patch.replace.items():
            changes += self._replace_values(path, pairs, turn)
        for path, values in patch.add.items():
            changes += self._add_values(path, values)
        changes += self._milestones(patch.milestones, turn)
        changes += _statements(self, patch, turn)
        changes += self._next_action(patch.next_action)
        changes += self._language(patch)
        if turn is not None:
            self.turn = max(self.turn, turn)
        return changes

    def _set_value(self, path: str, value: str, origin: Origin, turn: int | None
                   ) -> list[Change]:
        _check_path(path, SCALAR_FIELDS)
        value = value.strip() if isinstance(value, str) else value
        if not value:
            return []
        old = self.get(path)
        if old == value:
            if origin == "message":
                self.sources[path] = (self.sources.get(path, (turn, origin))[0], "message")
            self._device_value(path, value)
            return []
        previous = self.sources.get(path)
        told = previous is not None and previous[1] == "message"
        if old is not None and path.startswith("user.") and origin == "tool" and told:
            return []
        if old is not None and not self._belongs_elsewhere(path, str(old)):
            self.history.append(Superseded(
                field=path, value=str(old), turn=previous[0] if previous else None,
                replaced_by=value, replaced_at=turn))
        section, name = _split(path)
        setattr(getattr(self, section), name, value)
        self.sources[path] = (turn, origin)
        self._device_value(path, value)
        return [Change(field=path, old=old, new=value)]

    def _replace_values(self, path: str, pairs: dict[str, str], turn: int | None
                        ) -> list[Change]:
        _check_path(path, LIST_FIELDS)
        changes = []
        current = list(self.get(path))
        for old, new in pairs.items():
            if old not in current or not new.strip():
                continue
            current = [v for v in current if v != old]
            if new not in current:
                current.append(new)
            self.history.append(Superseded(field=path, value=old, replaced_by=new,
                                           replaced_at=turn))
            section, name = _split(path)
            setattr(getattr(self, section), name, current)
            changes.append(Change(field=path, old=old, new=new))
        return changes

    def _add_values(self, path: str, values: list[str]) -> list[Change]:
        _check_path(path, LIST_FIELDS)
        current = list(self.get(path))
        added = list(dict.fromkeys(
            v.strip() for v in values if v and v.strip() and v.strip() not in current))
        if not added:
            return []
        section, name = _split(path)
        setattr(getattr(self, section), name, current + added)
        return [Change(field=path, old=current, new=current + added)]

    def _milestones(self, texts: list[str], turn: int | None) -> list[Change]:
        changes = []
        known = {m.text for m in self.milestones}
        for text in texts:
            text = " ".join(text.split())
            if text and text not in known:
                known.add(text)
                self.milestones.append(Milestone(turn=turn, text=text))
                changes.append(Change(field="milestones", new=text))
        return changes

    def _next_action(self, next_action: str | None) -> list[Change]:
        if next_action is None:
            return []
        action = next_action.strip() or None
        if action == self.next_action:
            return []
        old, self.next_action = self.next_action, action
        return [Change(field="next_action", old=old, new=action)]

    def _language(self, patch: StatePatch) -> list[Change]:
        """The conversation's language: the patch's, or the one all the customer's letters
        so far add up to (:func:`ctxlab.facts.language.decide`)."""
        language = patch.language
        if patch.letters:
            cjk, latin = (self.letters[0] + patch.letters[0], self.letters[1] + patch.letters[1])
            self.letters = (cjk, latin)
            if language is None and cjk + latin >= MIN_LANGUAGE_LETTERS:
                language = decide(cjk, latin)
        if language is None or language == self.language:
            return []
        old, self.language = self.language, language
        return [Change(field="language", old=old, new=language)]

    # -- devices -----------------------------------------------------------------------
    def _switch_device(self, name: str | None, serial: str | None = None) -> list[Change]:
        """Make the device the turn is about the current one (the last of
        :attr:`IssueInfo.devices`); the device fields then show its values.

        The device is the one the customer calls ``name`` (added when new); without a name,
        the known device whose serial is ``serial`` (the conversation went back to it
        without naming it), or, for a serial no device has, the latest device still
        waiting for its serial when the current one already has another (as the fact
        tracker files a second device's serial)."""
        name = name.strip() if isinstance(name, str) else ""
        devices = list(self.issue.devices)
        current = devices[-1] if devices else None
        target = _device_for(devices, name, serial)
        if target is None or (target is current and not (name and target.name is None)):
            return []
        devices = [d for d in devices if d is not target]
        if name and target.name is None:  # a new device, or the unnamed one we had
            target = target.model_copy(update={"name": name})
        devices.append(target)
        self.issue.devices = devices[-MAX_DEVICES:]
        for path in DEVICE_FIELDS:
            value = getattr(target, _DEVICE_ATTR[path])
            if value != self.get(path):
                setattr(self.issue, _split(path)[1], value)
                if value is None:
                    self.sources.pop(path, None)
        return [Change(field="issue.devices", old=current.name if current else None,
                       new=target.name)]

    def _device_value(self, path: str, value: str) -> None:
        """Record a device field's value on the current device (creating an unnamed one
        when the conversation has named none yet)."""
        if path not in DEVICE_FIELDS:
            return
        devices = list(self.issue.devices) or [Device()]
        devices[-1] = devices[-1].model_copy(update={_DEVICE_ATTR[path]: value})
        self.issue.devices = devices

    def _belongs_elsewhere(self, path: str, old: str) -> bool:
        """True when ``old`` is another device's value (not the current device's)."""
        if path not in DEVICE_FIELDS or not self.issue.devices:
            return False
        attr = _DEVICE_ATTR[path]
        return getattr(self.issue.devices[-1], attr) != old and any(
            getattr(d, attr) == old for d in self.issue.devices[:-1])

    def clone(self) -> SupportState:
        """An independent copy, cheap even with a long history (milestones and superseded
        values are immutable, so their lists are copied, not their entries)."""
        return SupportState.model_construct(
            user=self.user.model_copy(),
            issue=self.issue.model_copy(deep=True),
            milestones=list(self.milestones),
            next_action=self.next_action,
            constraints=list(self.constraints),
            commitments=list(self.commitments),
            history=list(self.history),
            sources=dict(self.sources),
            turn=self.turn,
            language=self.language,
            letters=self.letters,
        )

    # -- showing ---------------------------------------------------------------------
    def render(self, **options: Any) -> str:
        """The state as compact text (see :func:`ctxlab.memory.render.render_state`)."""
        from .render import render_state

        return render_state(self, **options)

    def as_message(self, **options: Any) -> dict[str, Any] | None:
        """The state as one developer message for the model (None while it is empty)."""
        from .render import state_message

        return state_message(self, **options)


def _split(path: str) -> tuple[str, str]:
    section, _, name = path.partition(".")
    return section, name


def _check_path(path: str, allowed: tuple[str, ...]) -> str:
    if path not in allowed:
        raise ValueError(f"unknown state field {path!r}; expected one of: {', '.join(allowed)}")
    return path


def _device_for(devices: list[Device], name: str, serial: str | None) -> Device | None:
    """The device a turn naming ``name`` (or giving ``serial``) is about (see
    :meth:`SupportState._switch_device`); a new :class:`Device` for a new name; None: unchanged."""
    current = devices[-1] if devices else None
    if name:
        known = next((d for d in devices if d.name == name), None)
        if known is not None:
            return known
        return current if current is not None and current.name is None else Device()
    if not serial:
        return None
    owner = next((d for d in devices if d.serial == serial), None)
    if owner is not None or current is None or not current.serial:
        return owner
    return next((d for d in reversed(devices) if d.serial is None), None)


def _statements(state: SupportState, patch: StatePatch, turn: int | None) -> list[Change]:
    """Apply ``patch``'s constraints and commitments to ``state``, by the rule of
    :func:`ctxlab.facts.statements.current_statements`: a revision replaces the earlier
    constraint on its topic, a promise replaces the one about the same thing, a "done"
    report ends it; a repeat changes nothing."""
    changes: list[Change] = []
    for kind, texts in (("constraints", patch.constraints),
                        ("commitments", patch.commitments)):
        for text in texts:
            statement = as_statement(kind[:-1], text)  # type: ignore[arg-type]
            if statement is None:
                continue
            current: list[Noted] = list(getattr(state, kind))
            if any(n.text == statement.text for n in current):
                continue
            if kind == "commitments":
                current = [n for n in current if n.topic != statement.topic]
            elif statement.revises:
                same = closest([n for n in current if n.topic == statement.topic],
                               statement.text, lambda n: n.text)
                if same is not None:
                    current.remove(same)
            current.append(Noted(topic=statement.topic, text=statement.text, turn=turn))
            setattr(state, kind, current)
            changes.append(Change(field=kind, new=statement.text))
    for text in patch.done:
        done = as_statement("done", text)
        if done is None:
            continue
        kept = [n for n in state.commitments if not same_promise(n.topic, done.topic)]
        if len(kept) != len(state.commitments):
            state.commitments = kept
            changes.append(Change(field="commitments", old=text))
    return changes

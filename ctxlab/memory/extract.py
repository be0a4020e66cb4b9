"""The offline, rule-based state extractor: one turn in, one :class:`StatePatch` out.

It reuses the course's shared definitions instead of new patterns where they exist:

* :func:`ctxlab.facts.typed.find_facts` for ticket, serial, firmware, error code, email,
  order, RMA and reservation values (the latest one said in conversation wins over one
  only seen in tool traffic); in a Chinese conversation also the model number
  (``issue.device_model``: 型号是BCD-123), the phone number (``user.phone``) and the date
  agreed in conversation (``issue.date``: 12月11日; dates in tool results are records such
  as purchase dates and are left out);
* :func:`ctxlab.facts.identifiers.find_identifiers` for names, phone numbers and account ids
  (snake_case ids such as ``mia_li_3668``) in user messages;
* :func:`ctxlab.memory.playbook.match_symptoms` for the issue category;
* top-level JSON fields of tool outputs (``model``, ``status`` next to an id, ``membership``,
  a ``name`` object, a ``reservations`` list) and the arguments of tool calls (``user_id``,
  ``reservation_id``, ...).

An account id in a user message sets ``user.user_id`` when "user id" (or "account",
"customer", "member") comes just before it; otherwise it only fills an empty field, and
payment ids (``certificate_...``, ``credit_card_...``) never do.

Milestones are tool results (``check_warranty SN-1: status covered | rma RMA-2``), actions
the user reports ("Factory reset done.") and commitments the agent makes ("I've opened
ticket TCK-1"). Constraints the customer sets and promises the agent makes are found by
:mod:`ctxlab.facts.statements` (the same rules the summarizer uses). The next action is the
agent's last open question, or the first step it asked the user to try; a reply that asks
for nothing clears it.

The letters of the turn's user messages go into the patch (``letters``): the state adds them
up, so the state message follows the language of the customer's messages so far, as a
summary does.

Rules are deliberately modest and readable; :class:`~ctxlab.memory.LLMStateExtractor` does
the same job with a model when one is configured.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from ..context.compaction import KEY_FIELD, tool_names
from ..core.items import is_call, is_output, item_kind, item_text, item_type, loads_json
from ..facts.identifiers import find_identifiers
from ..facts.language import ZH_SHARE, Language, decide, has_cjk, letter_counts
from ..facts.statements import find_commitments, find_constraints, find_done, sentences
from ..facts.tracker import device_noun, is_update
from ..facts.typed import ALL_FACT_KINDS, FACT_KINDS, Found, find_facts, latest_fact
from .playbook import match_symptoms
from .state import MIN_LANGUAGE_LETTERS, StatePatch, SupportState

Item = Mapping[str, Any]

#: find_facts kinds that set one scalar field.
FACT_FIELDS: dict[str, str] = {
    "ticket": "issue.ticket_id",
    "serial": "issue.serial",
    "firmware": "issue.firmware",
    "email": "user.email",
    "order": "issue.order_id",
    "rma": "issue.rma",
}

#: The same for the kinds read in a Chinese conversation (the date only as said in
#: conversation).
ZH_FACT_FIELDS: dict[str, str] = {
    "model": "issue.device_model",
    "phone": "user.phone",
    "date": "issue.date",
}



def _letters(items: Sequence[Item]) -> tuple[int, int]:
    """(CJK characters, Latin letters) of the user messages among ``items``."""
    cjk = latin = 0
    for item in items:
        if item_kind(item) == "user":
            c, a = letter_counts(item_text(item))
            cjk, latin = cjk + c, latin + a
    return cjk, latin


def turn_language(items: Sequence[Item]) -> Language | None:
    """The language of the user messages among ``items``, or None when they hold fewer than
    :data:`MIN_LANGUAGE_LETTERS` letters ("OK", "13912345678")."""
    cjk, latin = _letters(items)
    if cjk + latin < MIN_LANGUAGE_LETTERS:
        return None
    return "zh" if cjk >= ZH_SHARE * (cjk + latin) else "en"

#: Tool-call argument keys whose value fills a field (``get_user_details({"user_id": ...})``).
ARGUMENT_FIELDS: dict[str, str] = {
    "user_id": "user.user_id",
    "ticket_id": "issue.ticket_id",
    "order_id": "issue.order_id",
    "serial": "issue.serial",
}

_MEMBER = re.compile(
    r"\b(premium|gold|silver|platinum|bronze|vip|regular|basic|business)\s+"
    r"(?:member|membership|customer|tier|level|plan|account)\b",
    re.IGNORECASE,
)
_DEVICE = re.compile(
    r"\b(MacBook(?: Pro| Air)?(?: \d{2}(?:-inch)?)?|iMac|iPhone(?: \d{1,2}(?: Pro)?)?|"
    r"iPad(?: Pro| Air| mini)?|ThinkPad [A-Z]\d+\w*|Surface (?:Pro|Laptop|Go)(?: \d+)?|"
    r"Pixel \d+\w*|Galaxy S\d+\w*|(?:HP )?EliteBook \d+\w*(?: G\d+)?|Dell XPS \d+|Chromebook)\b"
)
_NEW_ISSUE = re.compile(
    r"\b(?:another|a new|a different|a second|one more|separate)\s+(?:issue|problem|question)\b",
    re.IGNORECASE,
)
_USER_ACTION = re.compile(
    r"\b(?:did|done|tried|restarted|rebooted|reset|updated|upgraded|installed|reinstalled|"
    r"replaced|cleared|unplugged|plugged|charged|backed up)\b",
    re.IGNORECASE,
)
_AGENT_COMMIT = re.compile(
    r"\bI(?:'ve| have)\s+(?:opened|created|asked|escalated|raised|added|sent|scheduled|booked|"
    r"issued|filed|cancelled|canceled|changed|updated|refunded)\b[^.!?\n]*",
    re.IGNORECASE,
)
_OWNER_CUE = re.compile(r"\b(?:registered to|account holder is)\s+$", re.IGNORECASE)
_ACCOUNT_CUE = re.compile(
    r"\b(?:user|account|customer|member)(?:[ _-]?(?:id|name|number))?\b[^.?!]{0,12}$",
    re.IGNORECASE,
)
_PAYMENT_ID = re.compile(r"(?:certificate|credit_card|gift_card|paypal|debit_card)_")
_SENTENCE = re.compile(r"[^.!?\n]+[.!?]?")
_STEP = re.compile(r"^\s*1(?:[.)]\s+|、\s*)(.+)$", re.MULTILINE)
_NAME_KEYS = ("registered_owner", "customer_name", "full_name")
_MEMBER_KEYS = ("membership", "member_level", "membership_level", "tier")
_STATUS_OWNER_KEYS = ("ticket_id", "order_id", "reservation_id", "case_id")
_MAX_MILESTONE = 110


def _json(text: str) -> Any:
    try:
        return loads_json(text)
    except ValueError:
        return None


def _clip(text: str, limit: int = _MAX_MILESTONE) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.findall(text) if s.strip()]


def _device_named(text: str, product: str = "") -> str | None:
    """The device a customer's message is about, as they call it ("my laptop" -> laptop,
    我家冰箱 -> 冰箱), or None; a noun that is part of the product named in the same
    message ("a MacBook Pro") or of a phone *number* is not a device of its own."""
    noun = device_noun(text)
    if noun is None or (product and noun.lower() in product.lower()):
        return None
    if re.search(re.escape(noun) + r"\s*(?:number|no\b|#|line|call)", text, re.IGNORECASE):
        return None
    return noun


class RuleBasedStateExtractor:
    """Offline extractor: facts, identifiers, tool JSON and a few phrases (see the module)."""

    name = "rules"

    def __repr__(self) -> str:
        return "RuleBasedStateExtractor()"

    async def extract(
        self, items: Sequence[Item], *, state: SupportState | None = None, turn: int | None = None
    ) -> StatePatch:
        """The async form every extractor offers (see :meth:`extract_turn`)."""
        return self.extract_turn(items, state=state, turn=turn)

    def extract_turn(
        self, items: Sequence[Item], *, state: SupportState | None = None, turn: int | None = None
    ) -> StatePatch:
        """What the items of one turn add to ``state`` (which is not changed)."""
        if isinstance(items, (str, bytes)) or not isinstance(items, Sequence):
            raise ValueError(f"extract_turn expects a list of items, got {type(items).__name__}")
        state = state or SupportState()
        patch = StatePatch()
        letters = _letters(items)
        if sum(letters):
            patch.letters = letters
        total = (state.letters[0] + letters[0], state.letters[1] + letters[1])
        language = decide(*total) if sum(total) >= MIN_LANGUAGE_LETTERS else state.language
        self._facts(items, patch, state, language)
        self._user_messages(items, state, patch)
        self._tools(items, patch, language)
        self._agent(items, patch, language)
        return patch

    # -- the rules -------------------------------------------------------------------
    @staticmethod
    def _set(patch: StatePatch, path: str, value: str, origin: str) -> None:
        patch.values[path] = value
        patch.origins[path] = origin  # type: ignore[assignment]

    @classmethod
    def _fill(cls, patch: StatePatch, path: str, value: str) -> None:
        """Set ``path`` from tool traffic unless this turn's conversation already did."""
        if path not in patch.values:
            cls._set(patch, path, value, "tool")

    def _facts(self, items: Sequence[Item], patch: StatePatch, state: SupportState,
               language: str) -> None:
        chinese = language == "zh" or any(has_cjk(item_text(it)) for it in items)
        facts = find_facts(list(items), kinds=ALL_FACT_KINDS if chinese else FACT_KINDS)
        self._latest_facts(facts, patch, {**FACT_FIELDS, **ZH_FACT_FIELDS} if chinese
                           else FACT_FIELDS)
        self._error_codes(items, facts["error_code"], patch, state)
        reservations = [f.value for f in facts["reservation"]]
        if reservations:
            patch.add["issue.reservation_ids"] = list(dict.fromkeys(reservations))

    @classmethod
    def _latest_facts(cls, facts: Mapping[str, list[Found]], patch: StatePatch,
                      fields: Mapping[str, str]) -> None:
        """Each field takes the latest value of its kind (a date only from a message)."""
        for kind, path in fields.items():
            found = facts[kind] if kind != "date" else [f for f in facts[kind] if f.in_message]
            fact = latest_fact(found)
            if fact is not None:
                cls._set(patch, path, fact.value, "message" if fact.in_message else "tool")

    @staticmethod
    def _error_codes(items: Sequence[Item], found: Sequence[Found], patch: StatePatch,
                     state: SupportState) -> None:
        """The customer's error codes are added, or replace the latest one when the message
        says so ("a new error code instead")."""
        errors = [f for f in found if f.source == "user" and not f.stale]
        new = [f.value for f in errors if f.value not in state.issue.error_codes]
        replaces = state.issue.error_codes and new and any(
            is_update(item_text(items[f.index])) for f in errors if f.value in new)
        if replaces:
            patch.replace["issue.error_codes"] = {state.issue.error_codes[-1]: new[-1]}
        elif errors:
            patch.add["issue.error_codes"] = list(dict.fromkeys(f.value for f in errors))

    def _user_messages(self, items: Sequence[Item], state: SupportState, patch: StatePatch) -> None:
        texts = [item_text(it) for it in items if item_kind(it) == "user"]
        for text in texts:
            self._identifiers(text, state, patch)
            member = _MEMBER.search(text)
            if member:
                self._set(patch, "user.member_level", member.group(1).lower(), "message")
            self._device(text, patch)
            symptoms = match_symptoms(text)
            known = {d.name for d in state.issue.devices}
            new_device = patch.device is not None and patch.device not in known
            if symptoms and (state.issue.category is None or new_device
                             or _NEW_ISSUE.search(text)):
                self._set(patch, "issue.category", symptoms[0].title, "message")
            patch.constraints += [s.text for s in find_constraints(text) if not s.stale]
            patch.milestones += [_clip(f"user: {sentence}") for sentence in _sentences(text)
                                 if _USER_ACTION.search(sentence) and not sentence.endswith("?")
                                 and len(sentence.split()) >= 2]

    def _identifiers(self, text: str, state: SupportState, patch: StatePatch) -> None:
        for ident in find_identifiers(text, kinds=("name", "phone", "account_id")):
            if ident.kind == "account_id":
                cued = _ACCOUNT_CUE.search(text[max(0, ident.start - 30) : ident.start])
                if not cued and (state.user.user_id or _PAYMENT_ID.match(ident.value)):
                    continue  # an id without "user id" before it only fills a gap
            path = {"name": "user.name", "phone": "user.phone", "account_id": "user.user_id"}
            self._set(patch, path[ident.kind], ident.value, "message")

    def _device(self, text: str, patch: StatePatch) -> None:
        """The device the message is about (``patch.device``) and a product it names."""
        product = _DEVICE.search(text)
        if product:
            self._set(patch, "issue.device_model", product.group(1), "message")
        noun = _device_named(text, product.group(1) if product else "")
        if noun:
            patch.device = noun

    def _tools(self, items: Sequence[Item], patch: StatePatch, language: str = "en") -> None:
        names = tool_names(items)
        calls: dict[str, dict[str, Any]] = {}
        for item in items:
            if is_call(item) and item_type(item) == "function_call":
                args = _json(str(item.get("arguments") or ""))
                args = args if isinstance(args, dict) else {}
                calls[str(item.get("call_id"))] = args
                for key, path in ARGUMENT_FIELDS.items():
                    if isinstance(args.get(key), str) and args[key].strip():
                        self._fill(patch, path, args[key])
                if isinstance(args.get("reservation_id"), str):
                    patch.add.setdefault("issue.reservation_ids", [])
                    if args["reservation_id"] not in patch.add["issue.reservation_ids"]:
                        patch.add["issue.reservation_ids"].append(args["reservation_id"])
            elif is_output(item):
                call_id = str(item.get("call_id"))
                data = _json(item_text(item))
                if isinstance(data, dict):
                    self._tool_json(data, patch)
                patch.milestones.append(_tool_milestone(
                    names.get(call_id, "tool"), calls.get(call_id, {}), data, language))

    def _tool_json(self, data: dict[str, Any], patch: StatePatch) -> None:
        if isinstance(data.get("model"), str) and ("serial" in data or "device" in data):
            self._fill(patch, "issue.device_model", data["model"])
        if isinstance(data.get("status"), str) and any(k in data for k in _STATUS_OWNER_KEYS):
            self._fill(patch, "issue.status", data["status"])
        for key in _MEMBER_KEYS:
            if isinstance(data.get(key), str):
                self._fill(patch, "user.member_level", data[key])
        name = data.get("name")
        if isinstance(name, dict) and isinstance(name.get("first_name"), str):
            full = f"{name['first_name']} {name.get('last_name') or ''}".strip()
            self._fill(patch, "user.name", full)
        for key in _NAME_KEYS:
            if isinstance(data.get(key), str):
                self._fill(patch, "user.name", data[key])
        found = [data.get("reservation_id")]
        if isinstance(data.get("reservations"), list):
            found += data["reservations"]
        for code in found:
            if isinstance(code, str) and code.strip():
                patch.add.setdefault("issue.reservation_ids", [])
                if code not in patch.add["issue.reservation_ids"]:
                    patch.add["issue.reservation_ids"].append(code)

    def _agent(self, items: Sequence[Item], patch: StatePatch, language: str = "en") -> None:
        replies = [item_text(it) for it in items if item_kind(it) == "assistant"]
        for text in replies:
            patch.done += [s.text for s in find_done(text) if not s.stale]
            patch.commitments += [s.text for s in find_commitments(text) if not s.stale]
            for match in _AGENT_COMMIT.finditer(text):
                patch.milestones.append(_clip(f"agent: {match.group(0)}"))
            for ident in find_identifiers(text, kinds=("name",)):
                if _OWNER_CUE.search(text[max(0, ident.start - 24) : ident.start]):
                    self._fill(patch, "user.name", ident.value)
        if replies:
            patch.next_action = _next_action(replies[-1], language)


_NEXT_ACTION = {
    "en": ("Waiting for the user to answer: {}", "User to try: {}"),
    "zh": ("等客户回答“{}”", "请客户先试“{}”"),
}


def _next_action(reply: str, language: str) -> str:
    """What the agent's last reply leaves pending: its last question, else the first step
    it asked the customer to try, else nothing ("")."""
    waiting, trying = _NEXT_ACTION["zh" if language == "zh" else "en"]
    questions = [s for _, _, s in sentences(reply) if s.endswith(("?", "？"))]
    step = _STEP.search(reply)
    if questions:
        return _clip(waiting.format(questions[-1]), 160)
    if step:
        return _clip(trying.format(step.group(1)), 160)
    return ""  # the agent asked for nothing: no action is pending


#: A date or a time of day in a tool call's arguments (a record, not an identifier).
_WHEN = re.compile(r"\d{2,4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}:\d{2}")
#: JSON keys of tool outputs as a Chinese milestone names them (others: see
#: :func:`_key_zh`).
_KEYS_ZH: dict[str, str] = {
    "ticket_id": "工单号", "ticket": "工单号", "order_id": "订单号", "order": "订单号",
    "serial": "序列号", "rma": "返修单号", "model": "型号", "firmware": "固件版本",
    "version": "版本", "status": "状态", "state": "状态", "email": "邮箱",
    "error": "错误", "errors": "错误", "code": "代码", "error_code": "错误代码",
    "reservation_id": "预约号", "reservation": "预约号", "name": "名称",
    "result": "结果", "message": "信息", "reason": "原因", "success": "结果", "ok": "结果",
}


def _key_zh(key: str) -> str:
    """A JSON key as a Chinese reader names it (``policy_id`` -> 编号)."""
    if key in _KEYS_ZH:
        return _KEYS_ZH[key]
    tail = key.rsplit("_", 1)[-1].lower()
    return _KEYS_ZH.get(tail, "编号" if tail in ("id", "ids", "number") else key)


def _key_fields(data: Any, subject: str) -> list[tuple[str, str]]:
    """Up to three (key, value) pairs of a tool output worth a milestone."""
    if not isinstance(data, dict):
        return []
    fields: list[tuple[str, str]] = []
    for key, value in data.items():
        if (isinstance(value, (str, int, float)) and not isinstance(value, bool)
                and KEY_FIELD.search(str(key)) and str(value) not in subject):
            fields.append((str(key), str(value)))
        if len(fields) == 3:
            break
    return fields


def _tool_milestone(name: str, args: Mapping[str, Any], data: Any,
                    language: str = "en") -> str:
    """``check_warranty SN-1: status covered, rma RMA-2`` (key fields of the output); in a
    Chinese conversation ``check_warranty SN-1：状态 covered，返修单号 RMA-2``, with only
    the arguments that identify something (a value with a digit) and no English words."""
    values = [str(v) for v in args.values() if isinstance(v, (str, int))
              and not isinstance(v, bool)]
    subject = " ".join(values)[:40]
    fields = _key_fields(data, subject)
    if language == "zh":
        shown = "、".join(v for v in values if any(ch.isdigit() for ch in v)
                         and not _WHEN.match(v))[:40]
        head = f"{name} {shown}".strip()
        if isinstance(data, list):
            return _clip(f"{head}：{len(data)} 条结果")
        body = "，".join(f"{_key_zh(k)} {v}" for k, v in fields) or "已完成"
        return _clip(f"{head}：{body}")
    if isinstance(data, list):
        fields = [("", f"{len(data)} results")]
    head = f"{name} {subject}".strip()
    body = ", ".join(f"{k} {v}".strip() for k, v in fields)
    return _clip(f"{head}: {body}" if body else f"{head}: done")

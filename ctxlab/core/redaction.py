"""Redact personal data from items before they are stored, summarized or logged.

Tool outputs are where personal data slips in unnoticed: a CRM lookup returns the whole
customer record, a tool's JSON grows an extra ``customer_name`` field after an upstream
change, and from then on every summary and every log line carries it. A :class:`Redactor`
runs on each batch a session stores (``redactor=`` on every ctxlab session):

* text rules replace secrets (OpenAI-style ``sk-...``/``sk-proj-...`` keys, AWS access key
  ids ``AKIA...``, GitHub tokens, ``Bearer ...`` tokens), e-mail addresses, phone numbers and
  payment card numbers (checked with the Luhn algorithm, so order numbers survive; also when
  a card number is stored as a JSON number) with placeholders such as ``[email]``;
* what the defaults leave alone: names, postal addresses, dates of birth, account or order
  numbers, IP addresses, free-text secrets such as passwords typed in a sentence. Add
  :class:`Rule` s or ``drop_fields`` for those;
* JSON tool outputs are parsed: fields named in ``drop_fields`` are removed wherever they
  occur, and ``allowed_fields`` can pin, per tool, the top-level fields a tool may return,
  so an unexpected new field is removed instead of stored;
* rules are pluggable: any :class:`Rule` (a name, a regex, a replacement, an optional check).

What was removed is counted in :attr:`Redactor.stats` (never the values themselves).
"""

from __future__ import annotations

import json
import logging
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from .items import item_kind, item_type, loads_json, pair_key

logger = logging.getLogger("ctxlab.core.redaction")


@dataclass(frozen=True)
class Rule:
    """Replace every match of ``pattern`` (that passes ``check``, if given) by
    ``replacement``."""

    name: str
    pattern: re.Pattern[str]
    replacement: str
    check: Callable[[str], bool] | None = None

    def apply(self, text: str, stats: Counter[str]) -> str:
        def sub(match: re.Match[str]) -> str:
            if self.check is not None and not self.check(match.group(0)):
                return match.group(0)
            stats[self.name] += 1
            return self.replacement

        return self.pattern.sub(sub, text)


def luhn_valid(text: str) -> bool:
    """True when the digits of ``text`` pass the Luhn checksum (payment card numbers do)."""
    digits = [int(ch) for ch in text if ch.isdigit()]
    if not 13 <= len(digits) <= 19:
        return False
    total = 0
    for i, digit in enumerate(reversed(digits)):
        if i % 2:
            digit *= 2
            if digit > 9:
                digit -= 9
        total += digit
    return total % 10 == 0


def _phone_digits_ok(text: str) -> bool:
    return 7 <= sum(ch.isdigit() for ch in text) <= 15


EMAIL = Rule("email", re.compile(r"[A-Za-z0-9._%+\-]+@[A-Za-z0-9.\-]+\.[A-Za-z]{2,}"),
             "[email]")
CARD = Rule("card", re.compile(r"(?<![\w+\-])\d(?:[ -]?\d){12,18}(?![\w-])"), "[card]",
            luhn_valid)
PHONE = Rule(
    "phone",
    re.compile(
        r"(?<![\w+\-])(?:\+\d{1,3}[\s.\-]?)?(?:\(\d{2,4}\)[\s.\-]?|\d{2,4}[\s.\-])"
        r"\d{3,4}[\s.\-]?\d{3,4}(?![\w-])"
        r"|(?<![\w+])\+\d{7,15}(?!\w)"
    ),
    "[phone]",
    _phone_digits_ok,
)

SECRET = Rule(
    "secret",
    re.compile(
        r"(?<![\w-])sk-(?:proj-|ant-|live-|test-)?[A-Za-z0-9_\-]{16,}"
        r"|(?<![A-Z0-9])(?:AKIA|ASIA)[0-9A-Z]{16}(?![A-Z0-9])"
        r"|(?<![\w])gh[pousr]_[A-Za-z0-9]{30,}"
        r"|(?i:bearer)\s+[A-Za-z0-9\-._~+/]{12,}=*"
    ),
    "[secret]",
)

#: The rules a :class:`Redactor` applies unless told otherwise (secrets first, cards before
#: phones).
DEFAULT_RULES: tuple[Rule, ...] = (SECRET, EMAIL, CARD, PHONE)


@runtime_checkable
class ItemRedactor(Protocol):
    """What a session needs: redact a batch, knowing the tool name of each call id."""

    def redact_items(
        self, items: Sequence[dict[str, Any]], tool_names: Mapping[str, str]
    ) -> list[dict[str, Any]]: ...


class Redactor:
    """Redacts tool outputs (by default) in batches of items; see the module doc.

    Args:
        rules: text rules, applied in order (default :data:`DEFAULT_RULES`).
        drop_fields: JSON field names removed wherever they occur in a tool output.
        allowed_fields: tool name -> the top-level fields that tool may return; others are
            removed (tools not listed keep all fields).
        kinds: item kinds to redact (see :func:`ctxlab.item_kind`); ``"tool_output"`` by
            default, add ``"user"`` or ``"assistant"`` to redact messages too.
    """

    def __init__(
        self,
        rules: Iterable[Rule] = DEFAULT_RULES,
        *,
        drop_fields: Iterable[str] = (),
        allowed_fields: Mapping[str, Iterable[str]] | None = None,
        kinds: Iterable[str] = ("tool_output",),
    ):
        self.rules = tuple(rules)
        for rule in self.rules:
            if not isinstance(rule, Rule):
                raise ValueError(f"rules must be ctxlab.core.redaction.Rule objects, got {rule!r}")
        self.drop_fields = frozenset(drop_fields)
        self.allowed_fields = {k: frozenset(v) for k, v in (allowed_fields or {}).items()}
        self.kinds = frozenset(kinds)
        self.stats: Counter[str] = Counter()

    # -- text and JSON ---------------------------------------------------------------------
    def redact_text(self, text: str) -> str:
        """``text`` with every rule applied."""
        for rule in self.rules:
            text = rule.apply(text, self.stats)
        return text

    def _walk(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.redact_text(value)
        if type(value) is int and CARD in self.rules and luhn_valid(str(abs(value))):
            self.stats[CARD.name] += 1  # a card number stored as a JSON number
            return CARD.replacement
        if isinstance(value, list):
            return [self._walk(v) for v in value]
        if isinstance(value, dict):
            out = {}
            for key, inner in value.items():
                if key in self.drop_fields:
                    self.stats[f"field:{key}"] += 1
                    continue
                out[key] = self._walk(inner)
            return out
        return value

    def redact_output(self, output: Any, tool_name: str | None = None) -> Any:
        """A tool output (a string, JSON text or a list of content parts), redacted."""
        if isinstance(output, list):
            return [self._redact_part(p) for p in output]
        if not isinstance(output, str):
            return output
        try:
            data = loads_json(output)
        except ValueError:
            return self.redact_text(output)
        if not isinstance(data, (dict, list)):
            return self.redact_text(output)
        allowed = self.allowed_fields.get(tool_name or "")
        if allowed is not None and isinstance(data, dict):
            for key in [k for k in data if k not in allowed]:
                self.stats[f"unexpected_field:{key}"] += 1
                logger.info("tool %r returned the unexpected field %r; removed before storing",
                            tool_name, key)
                del data[key]
        return json.dumps(self._walk(data), ensure_ascii=False)

    def _redact_part(self, part: Any) -> Any:
        if isinstance(part, dict) and isinstance(part.get("text"), str):
            return {**part, "text": self.redact_text(part["text"])}
        return part

    # -- items -----------------------------------------------------------------------------
    def redact_item(self, item: dict[str, Any], tool_name: str | None = None) -> dict[str, Any]:
        """A redacted copy of ``item`` if its kind is in :attr:`kinds`, else ``item``."""
        kind = item_kind(item)
        if kind not in self.kinds:
            return item
        if kind == "tool_output":
            key = "output" if "output" in item else None
            if key is None:
                return item
            return {**item, key: self.redact_output(item[key], tool_name)}
        if item_type(item) == "message":
            content = item.get("content")
            if isinstance(content, str):
                return {**item, "content": self.redact_text(content)}
            if isinstance(content, list):
                return {**item, "content": [self._redact_part(p) for p in content]}
        if item_type(item) == "function_call" and isinstance(item.get("arguments"), str):
            return {**item, "arguments": self.redact_output(item["arguments"])}
        return item

    def redact_items(
        self, items: Sequence[dict[str, Any]], tool_names: Mapping[str, str]
    ) -> list[dict[str, Any]]:
        out = []
        for item in items:
            key = pair_key(item)
            out.append(self.redact_item(item, tool_names.get(key[1]) if key else None))
        return out

    def __call__(self, item: dict[str, Any]) -> dict[str, Any]:
        return self.redact_item(item)

    def __repr__(self) -> str:
        rules = ", ".join(r.name for r in self.rules)
        return f"Redactor(rules=[{rules}], drop_fields={sorted(self.drop_fields)})"


class _FunctionRedactor:
    def __init__(self, fn: Callable[[dict[str, Any]], dict[str, Any]]):
        self.fn = fn

    def redact_items(
        self, items: Sequence[dict[str, Any]], tool_names: Mapping[str, str]
    ) -> list[dict[str, Any]]:
        return [self.fn(item) for item in items]


def as_redactor(value: Any) -> ItemRedactor | None:
    """A session's ``redactor=`` argument as an :class:`ItemRedactor` (None stays None)."""
    if value is None or isinstance(value, ItemRedactor):
        return value
    if callable(value):
        return _FunctionRedactor(value)
    raise ValueError(
        "redactor must be a ctxlab.Redactor, an object with redact_items(items, tool_names) "
        f"or a function item -> item, got {type(value).__name__}"
    )

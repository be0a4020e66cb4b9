"""Identifier-like values in text: the details a memory must never lose.

Ticket, order, serial and reservation codes, error codes, versions, emails, dates (also
Chinese ones: 12月14日, 2025年12月14日), phone numbers, snake_case account ids and numbers
with units. Summaries are checked against this list (what was folded vs what the summary
still says), and the extractive summarizer uses it to fill its Identifiers section.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from .spans import claim_in_order

# Order matters: earlier patterns claim their span first.
_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    # ASCII only: in Chinese text "我邮箱是a@x.com" the address starts after the Chinese
    ("email", re.compile(r"(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+"
                         r"(?:\.[A-Za-z0-9-]+)+(?![A-Za-z0-9-])")),
    ("url", re.compile(r"\bhttps?://[^\s<>\"')\]]+")),
    # a date with a time of day: log lines, sensor samples (not something people quote)
    ("timestamp", re.compile(
        r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?"
        r"(?:Z|[+-]\d{2}:?\d{2})?(?![\w:])")),
    ("date", re.compile(r"\b\d{4}-\d{2}-\d{2}\b")),
    # Chinese dates: 12月14日, 12月14号, 2025年12月14日 (Chinese text has no spaces, so
    # the value ends at the day sign, and an ISO date may touch a Chinese character)
    ("date", re.compile(r"(?<!\d)(?:\d{4}年)?\d{1,2}月\d{1,2}[日号]")),
    ("date", re.compile(r"(?<![0-9A-Za-z_-])\d{4}-\d{2}-\d{2}(?![0-9A-Za-z_-])")),
    ("time", re.compile(r"\b\d{1,2}:\d{2}(?:\s?[ap]m)?\b", re.I)),
    ("version", re.compile(r"\bv\d+(?:\.\d+){1,3}\b|\b\d+\.\d+\.\d+\b", re.I)),
    ("error_code", re.compile(
        r"\b(?:error|err|code|status)\s*(?:code\s*)?#?\s*(0x[0-9a-f]+|[A-Z]*-?\d{2,5})\b", re.I)),
    ("http_status", re.compile(r"\b(?:4\d\d|5\d\d)(?=\s*(?:not found|error|forbidden|"
                               r"unauthorized|bad request|internal|service|gateway))", re.I)),
    ("http_status", re.compile(r"\b(?:a|an|the|got|get|gets|getting|HTTP)\s+(4\d\d|5\d\d)\b"
                               r"(?!\d|[.,]\d|[:/-])", re.I)),
    ("name", re.compile(r'"(?:registered_owner|owner|owner_name|customer_name|full_name)"\s*:\s*'
                        r'"([A-Z][\w.\'-]+(?: [A-Z][\w.\'-]+){1,3})"')),
    ("name", re.compile(r"\b(?i:my name is|this is|registered to|account holder is)\s+"
                        r"([A-Z][a-z'-]+(?: [A-Z][a-z'-]+){1,2})\b")),
    ("prefixed_code", re.compile(r"\b[A-Z]{1,6}(?:[-_#][A-Z0-9]{1,12})+\b")),
    ("account_id", re.compile(r"\b[a-z]+(?:_[a-z]+)*_\d{2,}\b")),
    ("code", re.compile(r"\b(?=[A-Z0-9]*\d)(?=[0-9]*[A-Z])[A-Z0-9]{5,14}\b")),
    # all-letter codes (booking references such as "PUNERT") only right after a label
    ("code", re.compile(r"\b(?i:(?:reservation|booking|confirmation|locator|code|id|number|"
                        r"ref)(?:s|_ids?)?)\W{0,6}(?:\w+\W{1,3}){0,2}?([A-Z]{5,8})\b")),
    ("phone", re.compile(r"(?<![\w-])\+?\d{1,3}?[ .-]?\(?\d{3}\)?[ .-]\d{3}[ .-]\d{4}\b")),
    ("money", re.compile(
        r"[$€£]\s?\d[\d,]*(?:\.\d+)?|\b\d[\d,]*(?:\.\d+)?\s?(?:USD|EUR|dollars)\b")),
    ("quantity", re.compile(
        r"\b\d+(?:\.\d+)?\s?(?:%|°[CF]|GB|MB|TB|KB|GHz|MHz|Mbps|W|mAh|V|ms|"
        r"seconds?|minutes?|hours?|days?|weeks?|months?|years?|inch(?:es)?)(?![\w])", re.I)),
    ("long_number", re.compile(r"(?<![\w.-])\d{5,}(?![\w.-])")),
]

#: Kinds whose values are exact identifiers (a summary must copy them verbatim). Timestamps
#: are left out: an event log's times are data, not details anyone asks about.
STRICT_KINDS = frozenset(
    {"email", "date", "version", "error_code", "http_status", "prefixed_code", "account_id",
     "code", "phone", "long_number", "url", "name"}
)


@dataclass(frozen=True)
class Identifier:
    """One identifier-like value found in a text (``start`` is its offset there)."""

    kind: str
    value: str
    start: int


def find_identifiers(text: str, *, kinds: Iterable[str] | None = None) -> list[Identifier]:
    """Every identifier-like value in ``text``, left to right, without overlaps.

    Earlier patterns claim their characters first; the check is O(log n) per match
    (:mod:`ctxlab.facts.spans`), so a folded chat with thousands of values stays fast.
    """
    wanted = None if kinds is None else set(kinds)

    def matches(kind: str, pattern: re.Pattern[str]) -> Iterator[tuple[int, int, str]]:
        group = 1 if pattern.groups else 0
        for match in pattern.finditer(text):
            start, end = match.span(group)
            yield start, end, kind

    found = [
        Identifier(kind, text[start:end], start)
        for start, end, kind in claim_in_order(matches(k, p) for k, p in _PATTERNS)
        if wanted is None or kind in wanted
    ]
    found.sort(key=lambda ident: ident.start)
    return found


def identifier_values(text: str, *, strict: bool = True) -> list[str]:
    """Distinct identifier values in order of first appearance (strict kinds by default)."""
    seen: dict[str, None] = {}
    for ident in find_identifiers(text):
        if not strict or ident.kind in STRICT_KINDS:
            seen.setdefault(ident.value, None)
    return list(seen)


def missing_from(values: Iterable[str], text: str) -> list[str]:
    """The values that do not occur verbatim in ``text`` (order kept, no duplicates)."""
    out: dict[str, None] = {}
    for value in values:
        if value not in text:
            out.setdefault(value, None)
    return list(out)

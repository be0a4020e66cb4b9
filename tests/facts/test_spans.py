"""Span claiming: the O(n log n) sweep finds exactly what the quadratic check found."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from ctxlab.facts import identifiers
from ctxlab.facts import typed as facts
from ctxlab.facts.identifiers import Identifier, find_identifiers
from ctxlab.facts.spans import ClaimedSpans, claim_in_order
from ctxlab.facts.typed import facts_in_text

PIECES = ["TCK-48213", "error 42", "E1234", "serial C02XK1ZJG8WP", "v1.0.3", "firmware 2.1.4",
          "dana@example.com", "ORD-55120", "RMA-601342", "2025-03-14", "10:30", "12345678",
          "order ORD-7", "reservation ABC123", "404 not found", "$129.00", "5 GB", "mia_li_3668",
          "+1 555-123-4567", "https://x.example/a", "booking PUNERT", "the", "and", ",", ".",
          "(12345 earlier steps omitted)", "SN-4Q7K-22981", "status 500", "0x8007045D"]


def reference_identifiers(text: str) -> list[Identifier]:
    """The first edition's quadratic overlap check, kept as the oracle."""
    taken: list[tuple[int, int]] = []
    found = []
    for kind, pattern in identifiers._PATTERNS:
        for match in pattern.finditer(text):
            group = 1 if match.re.groups else 0
            start, end = match.span(group)
            if any(start < b and a < end for a, b in taken):
                continue
            taken.append((start, end))
            found.append(Identifier(kind, match.group(group), start))
    found.sort(key=lambda ident: ident.start)
    return found


def reference_facts(text: str) -> list[tuple[str, str, int]]:
    claimed: list[tuple[int, int]] = []
    found = []
    for pattern in facts._PATTERNS:
        for match in pattern.regex.finditer(text):
            start, end = pattern.value_span(match)
            if any(start < e and s < end for s, e in claimed):
                continue
            value = text[start:end]
            if pattern.accept is not None and not pattern.accept(value):
                continue
            claimed.append((start, end))
            if pattern.kind in facts.FACT_KINDS:  # the kinds reported by default
                found.append((pattern.kind, value, start))
    found.sort(key=lambda f: f[2])
    return found


texts = st.lists(st.sampled_from(PIECES), max_size=40).map(" ".join)


@settings(max_examples=300)
@given(texts)
def test_identifiers_match_the_quadratic_reference(text):
    assert find_identifiers(text) == reference_identifiers(text)


@settings(max_examples=300)
@given(texts)
def test_facts_match_the_quadratic_reference(text):
    got = [(f.kind, f.value, f.start) for f in facts_in_text(text)]
    assert got == reference_facts(text)


def test_claimed_spans_reject_overlaps_and_accept_neighbours():
    spans = ClaimedSpans()
    spans.add_sorted([(2, 5), (10, 12)])
    assert not spans.free(4, 6) and not spans.free(0, 3) and not spans.free(11, 20)
    assert spans.free(5, 10) and spans.free(0, 2) and spans.free(12, 13)
    assert len(spans) == 2


def test_earlier_groups_win_and_a_group_never_rejects_itself():
    got = list(claim_in_order([[(0, 4, "a"), (6, 8, "a")], [(3, 6, "b"), (8, 9, "b")]]))
    assert got == [(0, 4, "a"), (6, 8, "a"), (8, 9, "b")]


def test_many_identifiers_in_one_text_are_all_found():
    text = " ".join(f"ticket TCK-{10000 + n} order {20000000 + n}" for n in range(3000))
    found = find_identifiers(text)
    assert len([f for f in found if f.kind == "prefixed_code"]) == 3000
    assert re.search(r"TCK-12999", " ".join(f.value for f in found))

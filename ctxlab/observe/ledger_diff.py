"""What changed in a ledger between two model calls, as compact JSON (no item text).

A debug record answers "why did the model stop seeing X?": between two calls, which raw
items arrived, which left the log, which changed state (kept -> summarized, kept -> dropped)
and whether the summary changed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..core.ledger import Ledger


@dataclass(frozen=True)
class LedgerState:
    """The part of a ledger a diff needs: the state of each raw item and the synthetic
    entries (kind and a hash of their text)."""

    states: dict[int, str] = field(default_factory=dict)
    synthetic: tuple[tuple[str, str], ...] = ()

    @classmethod
    def of(cls, ledger: Ledger) -> LedgerState:
        states = {e.index: e.state for e in ledger if e.index is not None}
        synthetic = tuple(
            (e.kind, hashlib.sha256(e.text.encode("utf-8")).hexdigest()[:12])
            for e in ledger if e.index is None
        )
        return cls(states, synthetic)


def ranges(indices: Iterable[int]) -> list[list[int]]:
    """Sorted indices as inclusive ``[first, last]`` runs: [0, 1, 2, 5] -> [[0, 2], [5, 5]]."""
    out: list[list[int]] = []
    for i in sorted(indices):
        if out and out[-1][1] == i - 1:
            out[-1][1] = i
        else:
            out.append([i, i])
    return out


def ledger_diff(before: LedgerState | None, after: LedgerState) -> dict[str, Any]:
    """``added`` / ``removed`` raw indices (as runs), ``changed`` states grouped by
    transition (``{"kept->summarized": [[0, 5]]}``) and whether the synthetic entries
    (the summary) changed. ``before`` None means the first call: everything is added."""
    old: Mapping[int, str] = before.states if before else {}
    new = after.states
    changed: dict[str, list[int]] = {}
    for index, state in new.items():
        was = old.get(index)
        if was is not None and was != state:
            changed.setdefault(f"{was}->{state}", []).append(index)
    return {
        "first": before is None,
        "added": ranges(i for i in new if i not in old),
        "removed": ranges(i for i in old if i not in new),
        "changed": {k: ranges(v) for k, v in sorted(changed.items())},
        "synthetic_changed": before is not None and before.synthetic != after.synthetic,
    }

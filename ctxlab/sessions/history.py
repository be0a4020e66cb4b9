"""The view with metadata: ``{"message": item, "metadata": {...}}`` records (for debugging,
analytics and UIs; never sent to the model). Read by
:meth:`ctxlab.SummarizingSession.get_full_history`."""

from __future__ import annotations

from typing import Any

from ..core.items import clone, item_kind, model_safe
from ..core.rawlog import RawLog
from ..policies.base import Synthetic
from .view import View


def history_records(log: RawLog, view: View, limit: int | None = None) -> list[dict[str, Any]]:
    """One record per item of ``view``: synthetic ones carry their summary metadata, raw
    ones their index, turn, kind, tokens and any private keys (``extra``); ``limit`` keeps
    the newest records."""
    records = []
    for slot in view.slots:
        if isinstance(slot, Synthetic):
            meta = dict(slot.meta.get("metadata", {}))
            meta["tokens"] = slot.tokens
            records.append({"message": model_safe(slot.item), "metadata": meta})
            continue
        item = log.item(slot)
        safe = model_safe(item)
        extra = {k: clone(v) for k, v in item.items() if k not in safe}
        meta = {"synthetic": False, "kind": item_kind(item), "index": slot,
                "turn": log.turn_of(slot), "tokens": log.tokens(slot)}
        if extra:
            meta["extra"] = extra
        records.append({"message": safe, "metadata": meta})
    if limit is not None:
        records = records[len(records) - limit:] if limit else []
    return records

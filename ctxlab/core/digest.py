"""Content digests of a log prefix, to prove that the items a summary or checkpoint was made
from are still the items at the start of the log.

The digest is a hash chain: ``d(0) = ""`` and ``d(i + 1) = sha256(d(i) + canonical(item_i))``,
so the digest of ``items[:n]`` can be extended item by item (no need to rehash the prefix)
and is the same in every process that reads the same items from a store.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from typing import Any

EMPTY_DIGEST = ""


def canonical_json(item: Mapping[str, Any]) -> str:
    """The item as JSON with sorted keys and no spaces (equal items give equal text)."""
    return json.dumps(item, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      default=str)


def extend_digest(digest: str, items: Iterable[Mapping[str, Any]]) -> str:
    """The digest of ``prefix + items`` given the digest of ``prefix``."""
    for item in items:
        digest = hashlib.sha256(
            (digest + "\n" + canonical_json(item)).encode("utf-8")
        ).hexdigest()
    return digest


def prefix_digest(items: Iterable[Mapping[str, Any]]) -> str:
    """The digest of a whole list of items."""
    return extend_digest(EMPTY_DIGEST, items)

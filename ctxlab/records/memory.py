"""Records in this process's memory (tests, notebooks, one-process services)."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import ClassVar

from .base import RecordStore, Versioned, check_expected, decode, namespace_hash


@dataclass
class _Namespace:
    seq: int = 0
    epoch: int = 0
    name: str | None = None  # the user id, only while records exist
    records: dict[str, tuple[int, str]] = field(default_factory=dict)  # key -> (version, json)


class MemoryRecords(RecordStore):
    """Records in a dict guarded by a lock (safe from several threads and event loops).

    Rows are kept under the hash of the user id, as the persistent backends keep them, so a
    deleted user leaves only a counter behind here too.
    """

    kind: ClassVar[str] = "memory"

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._rows: dict[str, _Namespace] = {}

    def describe(self) -> str:
        return "in-memory records"

    async def _get(self, namespace: str, key: str) -> Versioned:
        with self._lock:
            row = self._rows.get(namespace_hash(namespace))
            if row is None:
                return Versioned()
            version, text = row.records.get(key, (0, None))
            return Versioned(version, row.epoch, decode(text))

    async def _put(self, namespace: str, key: str, text: str, expected_version: int,
                   expected_epoch: int | None) -> Versioned:
        with self._lock:
            row = self._rows.setdefault(namespace_hash(namespace), _Namespace())
            current = row.records.get(key, (0, ""))[0]
            check_expected(self, namespace, key, expected_version, expected_epoch, current,
                           row.epoch)
            row.seq += 1
            row.name = namespace
            row.records[key] = (row.seq, text)
            return Versioned(row.seq, row.epoch, decode(text))

    async def _delete_namespace(self, namespace: str) -> int:
        with self._lock:
            row = self._rows.setdefault(namespace_hash(namespace), _Namespace())
            count = len(row.records)
            row.records.clear()
            row.name = None
            row.epoch += 1
            return count

    async def _keys(self, namespace: str) -> list[str]:
        with self._lock:
            row = self._rows.get(namespace_hash(namespace))
            return list(row.records) if row else []

    async def _namespaces(self) -> list[str]:
        with self._lock:
            return [r.name for r in self._rows.values() if r.records and r.name is not None]

    def dump(self) -> str:
        """Everything this store holds, as text (for tests that check a deletion)."""
        with self._lock:
            return repr(self._rows)

"""How many stored items a session's first read fetched: a spy on its store's ``read_ends``
and ``sync`` (shared by the first-read and fold-checkpoint tests)."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from unittest.mock import patch

from ctxlab.sessions import first_read

BOUND = 400  # items a first read may fetch


def count_fetched(session: Any) -> list[int]:
    """Spy on the session's store: items each read returned (ends or sync deltas)."""
    store, fetched = session.store, []
    read_ends, sync = store.read_ends, store.sync

    async def ends(head: int, tail: int, **kw: Any) -> Any:
        found = await read_ends(head, tail, **kw)
        if found is not None:
            fetched.append(len(found.head) + len(found.tail))
        return found

    async def synced() -> Any:
        delta = await sync()
        fetched.append(len(delta.items))
        return delta

    store.read_ends, store.sync = ends, synced
    return fetched


def assert_bounded(fetched: list[int], stored: int) -> None:
    assert sum(fetched) <= BOUND, (
        f"a first read fetched {sum(fetched)} of {stored} stored items (bound {BOUND})")


@contextmanager
def small_first_reads() -> Iterator[None]:
    """First reads of 2 head and 3 tail items (partial logs from a few turns on), with the
    budget warnings of such tiny windows silenced."""
    with patch.object(first_read, "FIRST_HEAD", 2), patch.object(first_read, "FIRST_TAIL", 3), \
            warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield

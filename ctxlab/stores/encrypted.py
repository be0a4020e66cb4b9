"""The SDK's ``EncryptedSession`` as a ctxlab store: items, state and checkpoints encrypted.

The log is the log of the *underlying* session, opened through its own adapter (an SQLite
file, Redis, PostgreSQL, ...), so every operation is that store's single transaction:
:class:`EncryptedLog` encrypts items on the way in exactly as ``EncryptedSession`` does
(the same envelopes, so a plain ``EncryptedSession`` reads them) and decrypts each item it
reads. Because a read decrypts the very items it read, a read racing a write can never be
mistaken for a wrong key, and an error says only what is true:

* an item that does not decrypt under this key (wrong key, or written under another key)
  raises :class:`~ctxlab.stores.StoreError` naming how many of the items just read failed;
  raised before a write, it says nothing was written; raised after one (items another
  writer stored meanwhile), it says this call's items *were* stored;
* an authentic item older than the ``EncryptedSession``'s ``ttl`` is expired, as the SDK
  treats it: it stays in its place as a placeholder that the view skips and the ledger
  reports, like an item written in clear text by another program;
* a write whose outcome is unknown (the connection was lost) follows the underlying store:
  on Redis, repeating the same ``add_items`` is recognised and stored once.

What stays readable in the store (the exact list): the session id; how many items the log
holds and when each was written (the SDK's row timestamps, Fernet's token timestamps);
the state's version, epoch and last-write time; the fold lease's owner (``host:pid:random``)
and expiry; for each checkpoint, its creation time and the item count it covers. Everything
else (items, the summary and strategy state, checkpoint names, notes, digests and states)
is encrypted with the session's key.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Mapping
from dataclasses import replace
from typing import Any, ClassVar

from ..core.items import INVALID_TYPE, invalid_entry
from .base import Checkpoint, Delta, LogStore, StateStore, StoredState, StoreError, decode_entry

_ENVELOPE = "__ctxlab_enc__"
#: Stored checkpoint names are opaque: this prefix and a random id.
_NAME_PREFIX = "enc-"


class EncryptedStateStore(StateStore):
    """Encrypts what an inner :class:`~ctxlab.stores.base.StateStore` keeps (see module)."""

    kind: ClassVar[str] = "encrypted"

    def __init__(self, inner: StateStore, cipher: Any):
        self.inner = inner
        self.cipher = cipher
        self.session_id = inner.session_id

    @property
    def persistent(self) -> bool:  # type: ignore[override]
        return self.inner.persistent

    def seal(self, value: Any) -> str:
        return self.cipher.encrypt(json.dumps(value, ensure_ascii=False).encode()).decode()

    def _open(self, token: str) -> Any:
        try:
            return json.loads(self.cipher.decrypt(token.encode()))
        except Exception as exc:  # InvalidToken: wrong key or damaged data
            raise StoreError(
                f"session {self.session_id!r}: the ctxlab state cannot be decrypted with this "
                "EncryptedSession's key (wrong key or damaged data); nothing was written"
            ) from exc

    def wrap(self, data: Mapping[str, Any] | None) -> dict[str, Any] | None:
        return None if data is None else {_ENVELOPE: self.seal(dict(data))}

    def unwrap(self, state: StoredState) -> StoredState:
        data = state.data
        if data is not None and _ENVELOPE in data:
            data = self._open(data[_ENVELOPE])
        return StoredState(state.version, state.epoch, data)

    async def load(self) -> StoredState:
        return self.unwrap(await self.inner.load())

    async def compare_and_set(
        self, expected_version: int, data: Mapping[str, Any] | None
    ) -> StoredState | None:
        new = await self.inner.compare_and_set(expected_version, self.wrap(data))
        return None if new is None else self.unwrap(new)

    async def bump_epoch(self) -> StoredState:
        return self.unwrap(await self.inner.bump_epoch())

    async def reset(self) -> StoredState:
        return self.unwrap(await self.inner.reset())

    async def acquire_lease(self, owner: str, ttl: float, *, replacing: str | None = None
                            ) -> bool:
        return await self.inner.acquire_lease(owner, ttl, replacing=replacing)

    async def lease_holder(self) -> str | None:
        return await self.inner.lease_holder()

    async def release_lease(self, owner: str) -> None:
        await self.inner.release_lease(owner)

    # -- checkpoints: the name, note, digest and state are sealed --------------------------
    async def _stored(self) -> list[tuple[Checkpoint, Checkpoint]]:
        """(as stored, decrypted) for every checkpoint, oldest first."""
        return [(c, self._open_checkpoint(c)) for c in await self.inner.list_checkpoints()]

    async def put_checkpoint(self, checkpoint: Checkpoint) -> None:
        same = [s for s, c in await self._stored() if c.name == checkpoint.name]
        stored_name = same[-1].name if same else f"{_NAME_PREFIX}{uuid.uuid4().hex}"
        await self.inner.put_checkpoint(replace(
            checkpoint, name=stored_name, digest=self.seal(checkpoint.digest),
            note=self.seal({"name": checkpoint.name, "note": checkpoint.note}),
            state=self.wrap(checkpoint.state)))

    def _open_checkpoint(self, checkpoint: Checkpoint) -> Checkpoint:
        state = checkpoint.state
        if state is not None and _ENVELOPE in state:
            state = self._open(state[_ENVELOPE])
        name, note = checkpoint.name, checkpoint.note
        if name.startswith(_NAME_PREFIX):
            sealed = self._open(note)
            name, note = sealed["name"], sealed["note"]
        return replace(checkpoint, name=name, note=note, digest=self._open(checkpoint.digest),
                       state=state)

    async def get_checkpoint(self, name: str) -> Checkpoint | None:
        found = [c for _, c in await self._stored() if c.name == name]
        return found[-1] if found else None

    async def list_checkpoints(self) -> list[Checkpoint]:
        return [c for _, c in await self._stored()]

    def for_session(self, session_id: str) -> StateStore:
        raise StoreError("an encrypted state store is bound to one session's key")

    async def aclose(self) -> None:
        await self.inner.aclose()


class EncryptedLog(LogStore):
    """The log of an SDK ``EncryptedSession`` over the log of its underlying session (see
    the module doc)."""

    kind: ClassVar[str] = "encrypted"

    def __init__(self, session: Any, inner: LogStore):
        super().__init__()
        self.sdk_session = session
        self.inner = inner
        self.session_id: str = session.session_id
        self.cipher = session.cipher
        self.ttl: float | None = getattr(session, "ttl", None)
        self.state: EncryptedStateStore = EncryptedStateStore(inner.state, self.cipher)
        self._checked = False  # has a read proved that this key opens the log?

    @property
    def persistent(self) -> bool:  # type: ignore[override]
        return self.inner.persistent

    # -- items ---------------------------------------------------------------------------
    def _seal(self, item: dict[str, Any]) -> dict[str, Any]:
        return self.sdk_session._wrap(item)  # type: ignore[no-any-return]

    def _open_item(self, item: dict[str, Any], now: float) -> dict[str, Any] | None:
        """The decrypted item, a placeholder (clear text, expired, not an item), or None
        when it does not decrypt under this key."""
        if item.get("type") == INVALID_TYPE:
            return item
        if not (item.get("__enc__") == 1 and isinstance(item.get("payload"), str)):
            return invalid_entry(json.dumps(item)[:200], "stored in clear text in an "
                                 "encrypted session (not an EncryptedSession envelope)")
        token = item["payload"].encode()
        try:
            plain = self.cipher.decrypt(token)
        except Exception:  # InvalidToken: another key, or damaged
            return None
        if self.ttl and self.cipher.extract_timestamp(token) < now - self.ttl:
            return invalid_entry(token[:40], f"expired: older than the EncryptedSession's "
                                             f"ttl of {self.ttl}s")
        return decode_entry(plain)

    def _open_delta(self, delta: Delta, *, written: bool) -> Delta:
        now = time.time()
        opened = [self._open_item(item, now) for item in delta.items]
        failed = sum(item is None for item in opened)
        if failed:
            self.inner.reset_cursor()  # re-read everything next time
            self._state_version = None
            what = ("This call's items were stored (encrypted with this key); the failing "
                    "items are other writers'." if written else "Nothing was written.")
            raise StoreError(
                f"session {self.session_id!r}: {failed} of the {len(opened)} stored items "
                "just read cannot be decrypted with this EncryptedSession's key (wrong key, "
                f"or items written under another key, or damaged). {what}")
        self._checked = True
        state = None if delta.state is None else self.state.unwrap(delta.state)
        return Delta(delta.keep, opened, self._state_delta(state))  # type: ignore[arg-type]

    # -- operations ------------------------------------------------------------------------
    async def _sync(self) -> Delta:
        return self._open_delta(await self.inner.sync(), written=False)

    async def _append(self, items: list[dict[str, Any]]) -> Delta:
        first = None
        if not self._checked:  # refuse to write under a key that cannot read the log
            first = self._open_delta(await self.inner.sync(), written=False)
        delta = self._open_delta(await self.inner.append([self._seal(i) for i in items]),
                                 written=True)
        if first is None:
            return delta
        return _combine(first, delta)

    async def _pop(self) -> tuple[dict[str, Any] | None, Delta]:
        popped, delta = await self.inner.pop()
        opened = None if popped is None else self._open_item(popped, time.time())
        return opened, self._open_delta(delta, written=True)

    async def _clear(self) -> Delta:
        return self._open_delta(await self.inner.clear(), written=True)

    async def _truncate(
        self, length: int, data: Mapping[str, Any] | None, expected_version: int
    ) -> tuple[list[dict[str, Any]], Delta]:
        removed, delta = await self.inner.truncate(length, self.state.wrap(data),
                                                   expected_version=expected_version)
        now = time.time()
        opened = [self._open_item(item, now) or invalid_entry("", "does not decrypt")
                  for item in removed]
        return opened, self._open_delta(delta, written=True)

    def reset_cursor(self) -> None:
        self.inner.reset_cursor()
        self._state_version = None

    def spawn(self, session_id: str) -> LogStore:
        raise StoreError(
            "ctxlab cannot open another EncryptedSession by itself (each session's key is "
            "derived from the master key, which the EncryptedSession does not keep): pass "
            "store=EncryptedSession(<new id>, ...) to branch()")

    async def aclose(self) -> None:
        await self.inner.aclose()

    def describe(self) -> str:
        return f"encrypted {self.inner.describe()}"


def _combine(first: Delta, then: Delta) -> Delta:
    """One delta equal to applying ``first`` and then ``then``."""
    state = then.state if then.state is not None else first.state
    if then.keep <= first.keep:
        return Delta(then.keep, then.items, state)
    return Delta(first.keep, [*first.items[: then.keep - first.keep], *then.items], state)

"""Side state encrypted with the key of an SDK ``EncryptedSession``.

A summary holds the same facts as the items it folds, so when the log is encrypted the
state must be too: this wrapper encrypts the strategy data and each checkpoint's digest and
state with the session's own Fernet cipher (derived by the SDK from the master key and the
session id) before they reach the inner store.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace
from typing import Any, ClassVar

from .base import Checkpoint, Delta, StateStore, StoredState, StoreError
from .sdk import SessionLog

_ENVELOPE = "__ctxlab_enc__"


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

    def _seal(self, value: Any) -> str:
        return self.cipher.encrypt(json.dumps(value, ensure_ascii=False).encode()).decode()

    def _open(self, token: str) -> Any:
        try:
            return json.loads(self.cipher.decrypt(token.encode()))
        except Exception as exc:  # InvalidToken: wrong key or damaged data
            raise StoreError(
                f"session {self.session_id!r}: the ctxlab state cannot be decrypted with this "
                "EncryptedSession's key (wrong key or damaged data)"
            ) from exc

    def _wrap(self, data: Mapping[str, Any] | None) -> dict[str, Any] | None:
        return None if data is None else {_ENVELOPE: self._seal(dict(data))}

    def _unwrap(self, state: StoredState) -> StoredState:
        data = state.data
        if data is not None and _ENVELOPE in data:
            data = self._open(data[_ENVELOPE])
        return StoredState(state.version, state.epoch, data)

    async def load(self) -> StoredState:
        return self._unwrap(await self.inner.load())

    async def compare_and_set(
        self, expected_version: int, data: Mapping[str, Any] | None
    ) -> StoredState | None:
        new = await self.inner.compare_and_set(expected_version, self._wrap(data))
        return None if new is None else self._unwrap(new)

    async def bump_epoch(self) -> StoredState:
        return self._unwrap(await self.inner.bump_epoch())

    async def reset(self) -> StoredState:
        return self._unwrap(await self.inner.reset())

    async def acquire_lease(self, owner: str, ttl: float, *, replacing: str | None = None
                            ) -> bool:
        return await self.inner.acquire_lease(owner, ttl, replacing=replacing)

    async def lease_holder(self) -> str | None:
        return await self.inner.lease_holder()

    async def release_lease(self, owner: str) -> None:
        await self.inner.release_lease(owner)

    async def put_checkpoint(self, checkpoint: Checkpoint) -> None:
        await self.inner.put_checkpoint(replace(
            checkpoint, digest=self._seal(checkpoint.digest),
            state=self._wrap(checkpoint.state)))

    def _open_checkpoint(self, checkpoint: Checkpoint) -> Checkpoint:
        state = checkpoint.state
        if state is not None and _ENVELOPE in state:
            state = self._open(state[_ENVELOPE])
        return replace(checkpoint, digest=self._open(checkpoint.digest), state=state)

    async def get_checkpoint(self, name: str) -> Checkpoint | None:
        found = await self.inner.get_checkpoint(name)
        return None if found is None else self._open_checkpoint(found)

    async def list_checkpoints(self) -> list[Checkpoint]:
        return [self._open_checkpoint(c) for c in await self.inner.list_checkpoints()]

    def for_session(self, session_id: str) -> StateStore:
        raise StoreError("an encrypted state store is bound to one session's key")

    async def aclose(self) -> None:
        await self.inner.aclose()


class EncryptedLog(SessionLog):
    """The log of an SDK ``EncryptedSession``, read through its public methods, that refuses
    to work under the wrong key.

    The SDK's ``EncryptedSession.get_items`` silently skips items it cannot decrypt, so with
    a wrong key a session would look empty and new items would be written under that key.
    Before every read this adapter compares the underlying store's item count with what
    decrypts; any item that does not decrypt is an error that says so.
    """

    async def _read_all(self) -> list[dict[str, Any]]:
        items = await super()._read_all()
        underlying = getattr(self.sdk_session, "underlying_session", None)
        if underlying is not None:
            stored = await underlying.get_items()
            if len(stored) != len(items):
                raise StoreError(
                    f"session {self.session_id!r}: {len(stored) - len(items)} of "
                    f"{len(stored)} stored items cannot be decrypted with this "
                    "EncryptedSession's key (wrong key, or items written under another key); "
                    "nothing was read or written"
                )
        return items

    async def _append(self, items: list[dict[str, Any]]) -> Delta:
        await self._read_all()  # refuse to write under a key that cannot read the log
        return await super()._append(items)

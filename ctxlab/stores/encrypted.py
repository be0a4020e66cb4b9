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

from .base import Checkpoint, StateStore, StoredState, StoreError

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

    async def acquire_lease(self, owner: str, ttl: float) -> bool:
        return await self.inner.acquire_lease(owner, ttl)

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

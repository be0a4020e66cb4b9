"""The SDK's EncryptedSession as a store: items and ctxlab's state are encrypted at rest."""

from __future__ import annotations

import sqlite3
from typing import Any

import pytest
from agents import SQLiteSession

from ctxlab import SummarizingSession, validate_items
from ctxlab.stores import StoreError

from conftest import arun
from fakes import RecordingSummarizer
from store_backends import conversation, feed


def fernet() -> Any:
    return pytest.importorskip("cryptography.fernet", reason="EncryptedSession needs the "
                               "cryptography package (openai-agents[encrypt])").Fernet


def encrypted(db, key: str) -> Any:
    from agents.extensions.memory import EncryptedSession

    return EncryptedSession("secret-chat", SQLiteSession("secret-chat", db), key)


def test_encrypted_session_works_as_a_store_and_keeps_the_state_encrypted(tmp_path):
    db = tmp_path / "chat.db"
    key = fernet().generate_key().decode("ascii")

    async def go():
        session = SummarizingSession(2, 3, RecordingSummarizer(), store=encrypted(db, key))
        assert session.store.kind == "session" and session.store.persistent
        await feed(session, 5)
        assert session.summary is not None and "TCK-40000" in session.summary.text
        view = await session.get_items()
        assert validate_items(view) == []

        # at rest: neither the items nor the summary are readable in the file
        with sqlite3.connect(db) as conn:
            stored = "\n".join(r[0] for r in conn.execute("SELECT message_data FROM "
                                                          "agent_messages"))
            state = "\n".join(str(r[0]) for r in conn.execute("SELECT data FROM ctxlab_state"))
        assert "TCK-40000" not in stored and "question" not in stored
        assert "TCK-40000" not in state and "SUMMARY" not in state and "__ctxlab_enc__" in state

        # a new process with the key resumes the same view without summarizing again
        summarizer = RecordingSummarizer()
        again = SummarizingSession(2, 3, summarizer, store=encrypted(db, key))
        assert await again.get_items() == view and again.summary == session.summary
        assert summarizer.calls == [] and await again.raw_items() == conversation(5)
        await again.checkpoint("c1")
        assert (await again.checkpoints())[0].state["summary"]["text"] == session.summary.text

        # with the wrong key the state cannot be read: a clear error, not a silent reset
        wrong = SummarizingSession(2, 3, RecordingSummarizer(),
                                   store=encrypted(db, fernet().generate_key().decode()))
        with pytest.raises(StoreError, match="cannot be decrypted with this EncryptedSession"):
            await wrong.get_items()

    arun(go())


def test_the_wrong_key_fails_clearly_even_before_any_ctxlab_state_exists(tmp_path):
    db = tmp_path / "chat.db"
    key, other = (fernet().generate_key().decode("ascii") for _ in range(2))

    async def go():
        from agents.extensions.memory import EncryptedSession

        plain = EncryptedSession("secret-chat", SQLiteSession("secret-chat", db), key)
        await plain.add_items(conversation(2))  # written by the SDK alone: no ctxlab state
        wrong = SummarizingSession(2, 3, RecordingSummarizer(), store=encrypted(db, other))
        with pytest.raises(StoreError, match="8 of 8 stored items cannot be decrypted"):
            await wrong.get_items()
        with pytest.raises(StoreError, match="cannot be decrypted"):
            await wrong.add_items(conversation(1))
        right = SummarizingSession(2, 3, RecordingSummarizer(), store=encrypted(db, key))
        assert await right.raw_items() == conversation(2)  # nothing was written meanwhile

    arun(go())

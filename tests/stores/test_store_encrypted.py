"""The SDK's EncryptedSession as a store: items, ctxlab's state and checkpoints encrypted at
rest; concurrent writers and readers on one key; errors that say only what is true."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from typing import Any

import pytest
from agents import SQLiteSession

from ctxlab import SummarizingSession, TrimmingSession, validate_items
from ctxlab.stores import StoreError

from conftest import arun, user
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
        assert session.store.kind == "encrypted" and session.store.persistent
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
        with pytest.raises(StoreError, match=r"8 of the 8 stored items just read cannot be "
                                             r"decrypted.*Nothing was written"):
            await wrong.get_items()
        with pytest.raises(StoreError, match="cannot be decrypted"):
            await wrong.add_items(conversation(1))
        right = SummarizingSession(2, 3, RecordingSummarizer(), store=encrypted(db, key))
        assert await right.raw_items() == conversation(2)  # nothing was written meanwhile

    arun(go())


def test_concurrent_writers_and_readers_on_one_key_get_no_false_errors(tmp_path):
    """Five session objects append at once through their own EncryptedSession (one key),
    while a sixth reads: every write lands exactly once and no read is taken for a wrong
    key (before: 132-156 of 320 writes refused, 104-121 items never stored, 42-53 of ~300
    reads raised "cannot be decrypted")."""
    db = tmp_path / "chat.db"
    key = fernet().generate_key().decode("ascii")

    async def go():
        writers = [TrimmingSession(store=encrypted(db, key), max_turns=500) for _ in range(5)]
        reader = TrimmingSession(store=encrypted(db, key), max_turns=500)
        done = asyncio.Event()
        reads = 0

        async def write(w: int) -> None:
            for k in range(24):
                await writers[w].add_items([user(f"w{w} item {k}")])

        async def read() -> None:
            nonlocal reads
            while not done.is_set():
                assert validate_items(await reader.get_items()) == []
                reads += 1
                await asyncio.sleep(0)

        async def all_writes() -> None:
            await asyncio.gather(*(write(w) for w in range(5)))
            done.set()

        await asyncio.gather(all_writes(), read())
        texts = [i["content"] for i in await reader.raw_items()]
        assert sorted(texts) == sorted(f"w{w} item {k}" for w in range(5) for k in range(24))
        assert reads > 10
        from agents.extensions.memory import EncryptedSession

        plain = EncryptedSession("secret-chat", SQLiteSession("secret-chat", db), key)
        assert len(await plain.get_items()) == 120  # the SDK reads every item ctxlab wrote

    arun(go())


def test_an_error_after_a_write_says_the_write_landed(tmp_path):
    """A writer whose key works, meeting items another key wrote meanwhile: its own items
    are stored, and the error says so (so the application does not store them twice)."""
    db = tmp_path / "chat.db"
    key, other = (fernet().generate_key().decode("ascii") for _ in range(2))

    async def go():
        from agents.extensions.memory import EncryptedSession

        session = TrimmingSession(store=encrypted(db, key), max_turns=50)
        await session.add_items([user("mine 1")])
        intruder = EncryptedSession("secret-chat", SQLiteSession("secret-chat", db), other)
        await intruder.add_items([user("theirs")])
        with pytest.raises(StoreError, match=r"1 of the 2 stored items just read cannot be "
                                             r"decrypted.*This call's items were stored"):
            await session.add_items([user("mine 2")])
        mine = EncryptedSession("secret-chat", SQLiteSession("secret-chat", db), key)
        assert await mine.get_items() == [user("mine 1"), user("mine 2")]  # stored, once
        with pytest.raises(StoreError, match="Nothing was written"):
            await session.get_items()

    arun(go())


def test_checkpoint_names_and_notes_are_encrypted_at_rest(tmp_path):
    db = tmp_path / "chat.db"
    key = fernet().generate_key().decode("ascii")

    async def go():
        session = SummarizingSession(2, 3, RecordingSummarizer(), store=encrypted(db, key))
        await feed(session, 4)
        await session.checkpoint("before-refund-TCK-40003", note="customer Alice asked twice")
        await feed(session, 1, start=4)
        await session.checkpoint("before-refund-TCK-40003", note="replaced")  # same name
        await session.checkpoint("second")
        with sqlite3.connect(db) as conn:
            rows = conn.execute("SELECT name, record FROM ctxlab_checkpoints").fetchall()
        at_rest = json.dumps(rows)
        for secret in ("TCK-40003", "refund", "Alice", "replaced", "second"):
            assert secret not in at_rest, secret
        assert len(rows) == 2  # the same name replaced its checkpoint
        again = SummarizingSession(2, 3, RecordingSummarizer(), store=encrypted(db, key))
        assert [c.name for c in await again.checkpoints()] == [
            "before-refund-TCK-40003", "second"]
        cp = (await again.checkpoints())[0]
        assert cp.note == "replaced" and cp.length == 20
        removed = await again.rollback("before-refund-TCK-40003")
        assert removed == [] and await again.raw_items() == conversation(5)

    arun(go())


def test_expired_items_are_skipped_and_reported_not_taken_for_a_wrong_key(tmp_path):
    """The SDK's EncryptedSession hides items older than its ttl; ctxlab keeps their place
    (a placeholder the view skips and the ledger reports), and raises no error."""
    from agents.extensions.memory import EncryptedSession

    db = tmp_path / "chat.db"
    key = fernet().generate_key().decode("ascii")

    async def go():
        old = EncryptedSession("secret-chat", SQLiteSession("secret-chat", db), key, ttl=1)
        await old.add_items([user("old question")])
        await asyncio.sleep(2.1)
        session = TrimmingSession(
            store=EncryptedSession("secret-chat", SQLiteSession("secret-chat", db), key,
                                   ttl=1), max_turns=5)
        await session.add_items([user("new question")])
        assert await session.get_items() == [user("new question")]
        expired = [e for e in await session.ledger() if e.kind == "invalid"]
        assert len(expired) == 1 and "expired" in expired[0].reason

    arun(go())

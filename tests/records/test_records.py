"""The record store contract, on every backend: compare-and-swap, deletion that deletes,
hostile user ids refused, 50 users without cross-talk, and a broken store the suite catches."""

from __future__ import annotations

import asyncio
import math
from typing import Any

import pytest

from ctxlab.records import (
    InvalidUserIdError,
    MemoryRecords,
    RecordConflictError,
    RecordStore,
    Versioned,
    open_records,
)

from conftest import arun
from record_backends import RECORD_KINDS, raw_dump, records_for


@pytest.fixture(params=RECORD_KINDS)
def records(request, tmp_path):
    return records_for(request, tmp_path)


def test_create_read_and_compare_and_swap(records):
    async def go():
        assert await records.get("u1", "memory") == Versioned()
        first = await records.put("u1", "memory", {"n": 1}, expected_version=0)
        assert first.version >= 1 and first.data == {"n": 1}
        again = await records.get("u1", "memory")
        assert again.version == first.version and again.data == {"n": 1}
        with pytest.raises(RecordConflictError) as lost:
            await records.put("u1", "memory", {"n": 99}, expected_version=0)
        assert "already exists" in str(lost.value) and "'u1'" in str(lost.value)
        assert "Nothing was written" in str(lost.value)
        second = await records.put("u1", "memory", {"n": 2}, expected_version=first.version)
        assert second.version > first.version
        with pytest.raises(RecordConflictError) as stale:
            await records.put("u1", "memory", {"n": 3}, expected_version=first.version)
        assert stale.value.expected == first.version and stale.value.actual == second.version
        assert "someone else wrote it first" in str(stale.value)
        assert (await records.get("u1", "memory")).data == {"n": 2}  # nothing lost
        await records.aclose()

    arun(go())


def test_versions_are_never_reused_and_a_deletion_cancels_older_writes(records):
    async def go():
        old = await records.put("u2", "memory", {"secret": "x"}, expected_version=0)
        read = await records.get("u2", "memory")
        assert await records.delete_namespace("u2") == 1
        gone = await records.get("u2", "memory")
        assert gone.data is None and gone.version == 0 and gone.epoch == read.epoch + 1
        with pytest.raises(RecordConflictError) as refused:  # started before the deletion
            await records.put("u2", "memory", {"secret": "x"}, expected_version=0,
                              expected_epoch=read.epoch)
        assert refused.value.deleted and "were deleted after this write read them" in str(
            refused.value)
        assert (await records.get("u2", "memory")).data is None
        new = await records.put("u2", "memory", {"fresh": 1}, expected_version=0,
                                expected_epoch=gone.epoch)
        assert new.version > old.version  # a version from before the deletion never matches
        with pytest.raises(RecordConflictError):
            await records.put("u2", "memory", {"secret": "x"}, expected_version=old.version)
        await records.aclose()

    arun(go())


def test_bad_records_and_versions_are_refused_and_nothing_is_written(records):
    async def go():
        await records.put("u3", "memory", {"ok": True}, expected_version=0)
        bad: list[Any] = [{"x": math.nan}, {"x": {1, 2}}, ["not", "a", "dict"], {"x": b"b"}]
        for data in bad:
            with pytest.raises(ValueError, match="record 'memory' of user 'u3'"):
                await records.put("u3", "memory", data, expected_version=1)
        for version in (-1, True, "1", 1.5):
            with pytest.raises(ValueError, match="expected_version"):
                await records.put("u3", "memory", {"a": 1}, expected_version=version)
        assert (await records.get("u3", "memory")).data == {"ok": True}
        await records.aclose()

    arun(go())


HOSTILE = ["a:b", "../etc/passwd", "*", "u1*", "", "x" * 200, "dana@example.com",
           "' OR 1=1 --", "a/b", "user 1", "-rf", ".hidden", "\u00fcser", "a\nb"]


def test_hostile_user_ids_are_refused_with_a_clear_error_and_nothing_is_stored(records):
    async def go():
        for bad in [*HOSTILE, None, 42]:
            with pytest.raises(InvalidUserIdError, match="user_id"):
                await records.put(bad, "memory", {"x": 1}, expected_version=0)
            with pytest.raises(InvalidUserIdError):
                await records.get(bad, "memory")
            with pytest.raises(InvalidUserIdError):
                await records.delete_namespace(bad)
        with pytest.raises(InvalidUserIdError, match="record key"):
            await records.put("u1", "a:b", {"x": 1}, expected_version=0)
        assert await records.namespaces() == []
        await records.aclose()

    arun(go())


def test_braces_are_a_valid_user_id_and_stay_apart_from_the_bare_name(records):
    # session ids may contain braces (RedisStore encodes them inside its hash tag), and a
    # user id follows the same rule: "{tag}" and "tag" are two users
    async def go():
        await records.put("{tag}", "memory", {"who": "braced"}, expected_version=0)
        await records.put("tag", "memory", {"who": "bare"}, expected_version=0)
        assert (await records.get("{tag}", "memory")).data == {"who": "braced"}
        assert (await records.get("tag", "memory")).data == {"who": "bare"}
        await records.aclose()

    arun(go())


def test_fifty_users_written_concurrently_never_see_each_other(records):
    users = [f"u{n}" for n in range(45)] + ["u1.", "U1", "u1-", "u1_", "u10-"]
    assert len(set(users)) == 50

    async def go():
        async def write(user: str) -> None:
            for key in ("memory", "notes"):
                await records.put(user, key, {"owner": user, "key": key}, expected_version=0)

        await asyncio.gather(*(write(u) for u in users))
        assert await records.namespaces() == sorted(users)
        for user in users:
            assert await records.keys(user) == ["memory", "notes"]
            for key in ("memory", "notes"):
                assert (await records.get(user, key)).data == {"owner": user, "key": key}
        assert await records.delete_namespace("u1") == 2
        assert sorted(await records.namespaces()) == sorted(u for u in users if u != "u1")
        for near in ("u1.", "U1", "u1-", "u1_", "u10", "u11"):  # prefixes and look-alikes stay
            assert (await records.get(near, "memory")).data == {"owner": near, "key": "memory"}
        await records.aclose()

    arun(go())


def test_a_deletion_leaves_nothing_readable_in_the_backend(records):
    marker = "zq-private-7731@example.org"

    async def go():
        await records.put("victim-9", "memory", {"email": marker}, expected_version=0)
        await records.put("victim-9", "notes", {"text": f"write to {marker}"},
                          expected_version=0)
        await records.put("bystander", "memory", {"email": "keep@example.org"},
                          expected_version=0)
        before = await raw_dump(records)
        assert marker.encode() in before and b"victim-9" in before
        await records.delete_namespace("victim-9")
        after = await raw_dump(records)
        assert marker.encode() not in after and b"victim-9" not in after
        assert b"keep@example.org" in after  # the other user is untouched
        await records.aclose()

    arun(go())


async def increment(records: RecordStore, user: str, times: int, who: str) -> int:
    """Read-modify-write with retries: add ``who`` to a list ``times`` times."""
    conflicts = 0
    for n in range(times):
        while True:
            current = await records.get(user, "state")
            data = dict(current.data or {"seen": []})
            data["seen"] = [*data["seen"], f"{who}-{n}"]
            try:
                await records.put(user, "state", data, expected_version=current.version)
                break
            except RecordConflictError:
                conflicts += 1
                await asyncio.sleep(0)
    return conflicts


class BlindWrites(MemoryRecords):
    """Broken on purpose: compare-and-swap that ignores the version (last write wins)."""

    async def _put(self, namespace, key, text, expected_version, expected_epoch):
        from ctxlab.records.memory import _Namespace, namespace_hash

        with self._lock:
            row = self._rows.setdefault(namespace_hash(namespace), _Namespace())
            row.seq += 1
            row.name = namespace
            row.records[key] = (row.seq, text)
            return Versioned(row.seq, row.epoch, None)


def concurrent_updates_are_all_kept(records: RecordStore) -> bool:
    async def go() -> bool:
        async def slow_get(original, namespace, key):
            found = await original(namespace, key)
            await asyncio.sleep(0.001)  # let the other writers interleave
            return found

        original = records._get
        records._get = lambda ns, key: slow_get(original, ns, key)  # type: ignore[method-assign]
        await asyncio.gather(*(increment(records, "shared", 5, w) for w in "abcd"))
        seen = (await records.get("shared", "state")).data["seen"]  # type: ignore[index]
        await records.aclose()
        return sorted(seen) == sorted(f"{w}-{n}" for w in "abcd" for n in range(5))

    return arun(go())


def test_concurrent_read_modify_write_keeps_every_update(records):
    assert concurrent_updates_are_all_kept(records)


def test_the_suite_catches_a_store_that_ignores_versions():
    assert concurrent_updates_are_all_kept(MemoryRecords())
    assert not concurrent_updates_are_all_kept(BlindWrites())


def test_open_records_picks_the_backend_from_the_target(tmp_path):
    from ctxlab.records.redis import RedisRecords
    from ctxlab.records.sqlalchemy import SQLAlchemyRecords

    assert isinstance(open_records(), MemoryRecords)
    assert open_records(str(tmp_path / "m.db")).kind == "sqlite"
    assert open_records(tmp_path / "m.db").kind == "sqlite"
    assert open_records(f"sqlite:///{tmp_path / 'm.db'}").kind == "sqlite"
    assert isinstance(open_records("redis://127.0.0.1:1/0"), RedisRecords)
    assert isinstance(open_records(f"sqlite+aiosqlite:///{tmp_path / 's.db'}"),
                      SQLAlchemyRecords)
    store = MemoryRecords()
    assert open_records(store) is store
    for bad in ("", None, 3):
        with pytest.raises(ValueError, match="open_records needs"):
            open_records(bad)
    with pytest.raises(ValueError, match="needs a file path"):
        open_records(":memory:")


def test_an_unreachable_backend_gives_a_clear_error(tmp_path):
    from ctxlab.records import RecordsUnavailableError
    from ctxlab.records.redis import RedisRecords

    from redis_helpers import free_port

    async def go():
        store = RedisRecords(f"redis://127.0.0.1:{free_port()}/0")
        with pytest.raises(RecordsUnavailableError, match=r"could not write record 'memory' of "
                           r"user 'u1'.*Nothing was half-written"):
            await store.put("u1", "memory", {"a": 1}, expected_version=0)
        await store.aclose()

    arun(go())

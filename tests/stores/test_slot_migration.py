"""A session stays writable while its Redis Cluster slot moves to another master.

The slot is migrated the way ``redis-cli --cluster reshard`` does it, one key every 0.7 s
(:mod:`store_migration`), while a writer adds turns. While the session's keys are split
between the two nodes every ctxlab script gets ``TRYAGAIN``; the store waits through it
(bounded: ``RedisStateStore.migration_patience``) instead of failing the write. The broken
variant (no patience) shows that the migration really makes writes fail."""

from __future__ import annotations

import pytest

from ctxlab.stores.redis import RedisStateStore

from conftest import arun
from store_migration import migration_run

pytestmark = pytest.mark.redis


@pytest.fixture(scope="module")
def own_cluster():
    """A cluster only this module uses (it moves slots between masters)."""
    from redis_helpers import own_cluster as start_own_cluster

    yield from start_own_cluster("ctxlab-migration-", "the migration test starts its own cluster")


@pytest.mark.parametrize("replicas", [0, 1])
def test_writes_wait_through_a_slot_migration(own_cluster, replicas):
    out = arun(migration_run(own_cluster, prefix=f"moving-r{replicas}", replicas=replicas))
    print(f"\nreplicas={replicas}: {out}")
    assert out.moved_keys >= 3, out  # the session's keys really moved, one by one
    assert out.failed == 0, out
    assert (out.lost, out.duplicated) == (0, 0), out
    assert out.acknowledged >= 20, out
    # the longest pause is the migration itself (plus a retry pause), not a timeout
    assert out.gap_s < out.migration_s + 2.0, out


def test_without_patience_the_migration_fails_writes(own_cluster, monkeypatch):
    """The broken variant: the same migration with no waiting fails writes (so the test
    above can fail), and still loses nothing (they are retried by the writer)."""
    monkeypatch.setattr(RedisStateStore, "migration_patience", 0.0)
    out = arun(migration_run(own_cluster, prefix="moving-broken"))
    assert out.failed > 0, out
    assert (out.lost, out.duplicated) == (0, 0), out


def test_retries_are_bounded_and_only_for_calls_that_did_not_run():
    """TRYAGAIN / ASK / "TTL exhausted" are retried until ``patience`` runs out; an error
    after which the script may have run (a lost connection) is raised at once."""
    from redis.exceptions import ClusterError, ConnectionError, TryAgainError

    from ctxlab.stores.redis_retry import retry_redirects

    calls: list[str] = []

    async def flaky(errors: list[BaseException]) -> str:
        calls.append("call")
        if errors:
            raise errors.pop(0)
        return "ran"

    async def no_sleep(_: float) -> None:
        return None

    errors: list[BaseException] = [TryAgainError("x"), ClusterError("TTL exhausted.")]
    assert arun(retry_redirects(lambda: flaky(errors), patience=5, sleep=no_sleep)) == "ran"
    assert len(calls) == 3
    calls.clear()
    with pytest.raises(ConnectionError):
        arun(retry_redirects(lambda: flaky([ConnectionError("lost")]), patience=5,
                             sleep=no_sleep))
    assert len(calls) == 1
    calls.clear()
    with pytest.raises(TryAgainError):  # no patience: the first TRYAGAIN is the answer
        arun(retry_redirects(lambda: flaky([TryAgainError("x")] * 3), patience=0,
                             sleep=no_sleep))
    assert len(calls) == 1

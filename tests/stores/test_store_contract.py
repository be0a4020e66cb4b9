"""The store contract on every backend, and on deliberately broken adapters.

Each check of ``store_contract.py`` runs on every kind of ``store_backends.CONTRACT_KINDS``
(memory, SQLite, Redis, ctxlab's RedisStore on a server and on a real Redis Cluster,
SQLAlchemy on SQLite and on a real PostgreSQL through asyncpg and psycopg, encrypted, and a
dict adapter registered the way a user registers one). Then every mutant of
``store_mutants.py`` runs the checks it breaks, and each must fail: the contract can tell a
correct store from a broken one. Finally, every adapter in ctxlab's registry must have a
backend here, so an adapter added later cannot skip the contract.
"""

from __future__ import annotations

import asyncio

import pytest

from ctxlab.stores import store_adapters

from conftest import arun
from store_backends import ADAPTER_OF, CONTRACT_KINDS, Backend, make_backend
from store_contract import BROKEN_BY, CHECKS, MAY_BREAK
from store_mutants import MUTATIONS

pytestmark = pytest.mark.redis


def run_check(backend: Backend, name: str) -> None:
    async def go() -> None:
        try:
            await CHECKS[name](backend)
        finally:
            await backend.aclose()

    arun(go())


@pytest.mark.parametrize("kind", CONTRACT_KINDS)
@pytest.mark.parametrize("check", list(CHECKS))
def test_every_store_keeps_the_contract(kind, check, request, tmp_path, dict_adapter):
    run_check(make_backend(kind, request, tmp_path), check)


@pytest.mark.parametrize("mutation", MUTATIONS)
def test_the_contract_fails_each_broken_adapter(mutation, tmp_path, dict_adapter):
    """A mutant must fail every check that guards what it breaks, with the check's own
    message; the correct adapter passed the same checks above."""
    for name in BROKEN_BY[mutation]:
        with pytest.raises(AssertionError) as failed:
            run_check(Backend("dict", tmp_path, mutation=mutation), name)
        assert str(failed.value), f"{name} failed {mutation} without saying why"


def test_the_mutants_are_otherwise_correct(tmp_path, dict_adapter):
    """Each mutant breaks one promise only: it passes the checks of the others (so each
    failure above is the contract catching that bug, not a broken test adapter)."""
    for mutation in MUTATIONS:
        for name in CHECKS:
            if name not in BROKEN_BY[mutation] + MAY_BREAK.get(mutation, []):
                run_check(Backend("dict", tmp_path, mutation=mutation), name)


RUNS = 10


def test_a_rare_loss_is_caught_in_every_run(tmp_path, dict_adapter):
    """A store that loses 1 acknowledged append in 50 at random is caught in 10 runs of
    10 (before: the ~28 appends of the other checks caught it in about 6 of 10)."""
    caught = 0
    for run in range(RUNS):
        try:
            run_check(Backend("dict", tmp_path / f"run{run}", mutation="loses-one-append-in-50"),
                      "append: every acknowledged append is read back")
        except AssertionError as exc:
            assert str(exc).startswith("append:"), f"run {run} failed for another reason: {exc}"
            caught += 1
    assert caught == RUNS, f"the loss was caught in {caught} of {RUNS} runs"


def test_every_contract_check_fails_with_a_message():
    """A check that fails says which promise broke: no bare assert in the contract (before,
    16 asserts had no message, so a failure could read as an empty AssertionError)."""
    import ast
    import inspect

    import store_contract
    import store_kinds

    bare = [f"{module.__name__}.py:{node.lineno}"
            for module in (store_contract, store_kinds)
            for node in ast.walk(ast.parse(inspect.getsource(module)))
            if isinstance(node, ast.Assert) and node.msg is None]
    assert not bare, f"asserts without a message naming the check: {bare}"


def test_every_registered_adapter_runs_the_contract(dict_adapter):
    registered = {a.name for a in store_adapters()}
    covered = {ADAPTER_OF[k] for k in CONTRACT_KINDS if k in ADAPTER_OF}
    missing = sorted(registered - covered)
    assert not missing, (
        f"store adapters {missing} are registered but the store contract has no backend "
        "for them: add a StoreKind to tests/store_kinds.py (DEVELOPERS.md, 'Adding a store')")


@pytest.mark.parametrize("kind", [k for k in CONTRACT_KINDS
                                  if k.startswith(("redis", "postgres"))])
def test_lease_expiry_follows_the_servers_clock_not_the_hosts(kind, request, tmp_path,
                                                              monkeypatch):
    """Hosts sharing a server disagree about the time. A host whose clock runs an hour
    ahead must not take a lease another host holds for 30 s (before, PostgreSQL leases
    compared the caller's time.time() with the stored expiry, so it did)."""
    import time as clock

    backend = make_backend(kind, request, tmp_path)

    async def go() -> None:
        try:
            holder = backend.open(f"clock-{kind}").state
            other = backend.open(holder.session_id).state
            assert await holder.acquire_lease("host-a", 30)
            real = clock.time
            monkeypatch.setattr(clock, "time", lambda: real() + 3600)
            assert not await other.acquire_lease("host-b", 30), \
                "a host with a fast clock took a lease that had not expired"
            assert await other.lease_holder() == "host-a"
            monkeypatch.setattr(clock, "time", lambda: real() - 3600)
            assert await holder.acquire_lease("host-a", 0.3)  # renewed by a slow clock
            await asyncio.sleep(0.5)
            assert await other.acquire_lease("host-b", 30), \
                "a host with a slow clock kept a lease past its expiry"
        finally:
            await backend.aclose()

    arun(go())

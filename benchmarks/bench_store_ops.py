"""Per-operation cost of ctxlab's session vs the Agents SDK's own, on one PostgreSQL and one
Redis server, without the HTTP service around them.

    CTXLAB_POSTGRES_URL=... CTXLAB_REDIS_URL=... python benchmarks/bench_store_ops.py
    python benchmarks/bench_store_ops.py --stores redis --users 5 --turns 20 --repeat 5

Each round runs ``--users`` conversations of ``--turns`` turns through the real ``Runner``
and the example chat service's own session setup (``examples/chat_service/app.py``:
``Backend.session_for``, a ``SummarizingSession(4, 8, background=True)`` over the store for
``ctxlab``, the SDK's ``SQLAlchemySession`` / ``RedisSession`` alone for ``sdk``), one turn
at a time in this process by default (what is measured is then each operation's own round
trips and CPU; ``--concurrency N`` keeps N conversations in flight, as a service worker
does, so waits for the event loop count too). The two layers are interleaved turn by turn
(user u's turn t on one, then on the other, the order alternating), ``--repeat`` rounds.

Printed per store and layer: p50 / p90 of ``get_items`` and ``add_items`` (ms), and the
round trips each costs: requests asyncpg writes to its socket (a statement, a ``BEGIN``, a
``COMMIT``: one write each), or Redis sends (one per ``send_packed_command``: a pipeline is
one); for PostgreSQL also the SQL statements SQLAlchemy runs (``before_cursor_execute``)
and the transactions it begins and ends. Work a background fold does
after the call returned is counted apart (``fold``, per turn). Then the ratio ctxlab / SDK
of each p50 per round, and of the wall time per turn (``turn``: the Runner's whole turn,
background folds included), with their median and spread over the rounds (target: <= 1.2).
A busy machine inflates both layers; compare the ratios of rounds run back to back, not
absolute times.
"""

from __future__ import annotations

import argparse
import asyncio
import contextvars
import os
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from examples.chat_service.app import TimedSession

TARGET = 1.2
OPS = ("get_items", "add_items")

#: The operation the running code belongs to: a fresh Counter per call (None outside one).
_op: contextvars.ContextVar[tuple[str, Counter[str], list[bool]] | None] = (
    contextvars.ContextVar("bench_op", default=None))
_background: Counter[str] = Counter()


def count(kind: str) -> None:
    """Attribute one round trip of ``kind`` to the operation running now, or to the
    background (a fold task outlives the call that started it: its context is a copy)."""
    found = _op.get()
    if found is None or not found[2][0]:
        _background[kind] += 1
    else:
        found[1][kind] += 1


class Measured(TimedSession):
    """The service's session wrapper, recording into ``record`` each call's time and the
    round trips counted while it ran (see above) instead of the request's timings."""

    def __init__(self, inner: Any, record: dict[str, list[tuple[float, Counter[str]]]]):
        super().__init__(inner)
        self.record = record

    async def _timed(self, name: str, call: Any) -> Any:
        trips: Counter[str] = Counter()
        open_flag = [True]
        token = _op.set((name, trips, open_flag))
        began = time.perf_counter()
        try:
            return await call
        finally:
            elapsed = 1000 * (time.perf_counter() - began)
            open_flag[0] = False
            _op.reset(token)
            self.record.setdefault(name, []).append((elapsed, trips))


def install_redis_counter() -> None:
    from redis.asyncio.connection import AbstractConnection

    original = AbstractConnection.send_packed_command

    async def send(self: Any, command: Any, check_health: bool = True) -> None:
        count("redis")
        await original(self, command, check_health)

    AbstractConnection.send_packed_command = send  # type: ignore[method-assign]


def install_pg_counter() -> None:
    """Count PostgreSQL round trips where they happen: asyncpg writes each request (a
    query, a bind-and-execute, a BEGIN or COMMIT) to its socket in one call."""
    from asyncio import selector_events

    transport = selector_events._SelectorSocketTransport
    original = transport.write

    def write(self: Any, data: Any) -> None:
        if type(self._protocol).__module__.startswith("asyncpg"):
            count("pg")
        original(self, data)

    transport.write = write  # type: ignore[method-assign]


def install_sql_counter(engine: Any) -> None:
    from sqlalchemy import event

    sync = engine.sync_engine

    @event.listens_for(sync, "before_cursor_execute")
    def statement(conn: Any, cursor: Any, text: str, *args: Any) -> None:
        count("sql:" + text.split()[0].upper())

    def transaction(conn: Any, name: str) -> None:
        if conn.get_execution_options().get("isolation_level") != "AUTOCOMMIT":
            count("sql:" + name)  # (in autocommit mode no BEGIN or COMMIT is sent)

    for name in ("begin", "commit", "rollback"):
        event.listen(sync, name, lambda conn, _n=name: transaction(conn, _n.upper()))


def configure(store: str, layer: str) -> None:
    os.environ["CHAT_STORE"] = store
    os.environ["CHAT_LAYER"] = layer
    os.environ["CHAT_KEEP"], os.environ["CHAT_LIMIT"] = "4", "8"
    if store == "postgres":
        os.environ["CHAT_POSTGRES_URL"] = os.environ["CTXLAB_POSTGRES_URL"]
    else:
        os.environ["CHAT_REDIS_URL"] = os.environ["CTXLAB_REDIS_URL"]


async def run_round(store: str, args: argparse.Namespace, tag: str) -> dict[str, dict[str, Any]]:
    """One round: both layers' conversations, their turns interleaved (user u's turn t on
    one layer, then on the other, the order alternating), so load on the machine hits both
    alike. Returns each layer's record, background trips and time per turn."""
    from agents import Agent, Runner

    from examples.chat_service.app import Backend, TicketDeskModel, lookup_ticket

    layers = ("sdk", "ctxlab")
    backends, sessions, records, spent = {}, {}, {}, {}
    agent = Agent(name="ticket desk", model=TicketDeskModel(),
                  instructions="Look tickets up, then answer briefly.", tools=[lookup_ticket])
    for layer in layers:
        configure(store, layer)
        backend = backends[layer] = Backend()
        await backend.start()
        if backend.engine is not None:
            install_sql_counter(backend.engine)
        records[layer] = {}
        spent[layer] = [0.0, 0.0]  # wall, CPU seconds of its turns
        sessions[layer] = [Measured(backend.session_for(f"ops-{tag}-{layer}-{u}").inner,
                                    records[layer]) for u in range(args.users)]
        warm = Measured(backend.session_for(f"ops-{tag}-{layer}-warm").inner, {})
        for t in range(3):  # connections, prepared statements, scripts, tokenizer
            await Runner.run(agent, f"warm-up turn {t}: TCK-{t}", session=warm)
    _background.clear()
    gate = asyncio.Semaphore(args.concurrency)

    async def one_turn(layer: str, u: int, t: int) -> None:
        cpu, wall = time.process_time(), time.perf_counter()
        await Runner.run(agent, f"user {u} turn {t}: is TCK-{u * 1000 + t} fixed?",
                         session=sessions[layer][u])
        spent[layer][0] += time.perf_counter() - wall
        spent[layer][1] += time.process_time() - cpu

    async def converse(u: int) -> None:
        for t in range(args.turns):
            async with gate:
                for layer in (layers if (u + t) % 2 == 0 else layers[::-1]):
                    await one_turn(layer, u, t)

    try:
        await asyncio.gather(*(converse(u) for u in range(args.users)))
        for layer in layers:
            for session in sessions[layer]:
                flush = getattr(session.inner, "flush", None)
                if flush is not None:
                    await flush()
    finally:
        for backend in backends.values():
            await backend.aclose()
    turns = args.users * args.turns
    return {layer: {"record": records[layer],
                    "background": Counter(_background) if layer == "ctxlab" else Counter(),
                    "turns": turns, "wall_ms": 1000 * spent[layer][0] / turns,
                    "cpu_ms": 1000 * spent[layer][1] / turns} for layer in layers}


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def summarize(result: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for op in OPS:
        calls = result["record"].get(op, [])
        times = [c[0] for c in calls]
        trips: Counter[str] = Counter()
        for _, found in calls:
            trips.update(found)
        out[op] = {"p50": statistics.median(times), "p90": pct(times, 0.9),
                   "calls": len(calls),
                   "trips": {k: v / len(calls) for k, v in sorted(trips.items())}}
    turns = result["turns"]
    out["fold"] = {k: v / turns for k, v in sorted(result["background"].items())}
    out["cpu_ms"], out["wall_ms"] = result["cpu_ms"], result["wall_ms"]
    return out


def show_trips(trips: dict[str, float]) -> str:
    """Round trips (socket writes to PostgreSQL, sends to Redis), then the SQL statements
    and transaction commands that SQLAlchemy reports."""
    total = sum(v for k, v in trips.items() if not k.startswith("sql:"))
    parts = " ".join(f"{k[4:]}={v:.2f}" for k, v in trips.items() if k.startswith("sql:"))
    return f"{total:5.2f}" + (f" (SQL: {parts})" if parts else "")


async def main_async(args: argparse.Namespace) -> None:
    install_redis_counter()
    install_pg_counter()
    stores = [s for s in args.stores.split(",") if s]
    for store in stores:
        env = "CTXLAB_POSTGRES_URL" if store == "postgres" else "CTXLAB_REDIS_URL"
        if not os.environ.get(env):
            sys.exit(f"{store}: set {env} (python3 ctxlab/stores/local_servers.py start DIR "
                     f"{store})")
    if "postgres" in stores:
        from examples.chat_service.serve import prepare_postgres

        await asyncio.to_thread(prepare_postgres, os.environ["CTXLAB_POSTGRES_URL"])
    stamp = f"{os.getpid()}-{int(time.time())}"
    for store in stores:
        ratios: dict[str, list[float]] = {op: [] for op in (*OPS, "turn")}
        print(f"\n== {store}: {args.users} users x {args.turns} turns, {args.concurrency} "
              f"in flight, {args.repeat} rounds (ctxlab and SDK turns interleaved)")
        for rep in range(args.repeat):
            found = await run_round(store, args, f"{stamp}-{rep}")
            rows = {layer: summarize(result) for layer, result in found.items()}
            for layer in ("sdk", "ctxlab"):
                row = rows[layer]
                for op in OPS:
                    o = row[op]
                    print(f"  round {rep} {layer:6} {op:9} p50 {o['p50']:7.2f} ms  p90 "
                          f"{o['p90']:7.2f} ms  round trips/call {show_trips(o['trips'])}")
                print(f"  round {rep} {layer:6} per turn: {row['wall_ms']:.2f} ms wall, "
                      f"{row['cpu_ms']:.2f} ms CPU (the Runner's whole turn; folds in the "
                      "background land in whichever turn runs meanwhile)")
                if row["fold"]:
                    print(f"  round {rep} {layer:6} fold (background, per turn) "
                          f"{show_trips(row['fold'])}")
            for op in OPS:
                ratios[op].append(rows["ctxlab"][op]["p50"] / rows["sdk"][op]["p50"])
            ratios["turn"].append(rows["ctxlab"]["wall_ms"] / rows["sdk"]["wall_ms"])
            print("  round {} ratio ctxlab/SDK: {}".format(rep, "  ".join(
                f"{op} {ratios[op][-1]:.2f}x" for op in ratios)))
        print(f"  {store}: ratio over rounds, median (min-max): " + "  ".join(
            f"{op} {statistics.median(ratios[op]):.2f}x ({min(ratios[op]):.2f}-"
            f"{max(ratios[op]):.2f}; {'ok' if statistics.median(ratios[op]) <= TARGET else 'over'}"
            f" {TARGET}x)" for op in ratios))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--stores", default="postgres,redis")
    parser.add_argument("--users", type=int, default=5)
    parser.add_argument("--turns", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=1,
                        help="conversations in flight at once (1: one turn at a time)")
    asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    main()

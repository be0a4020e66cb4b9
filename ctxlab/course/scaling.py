"""Lesson 07's "From one machine to many": where a session's keys land on a Redis Cluster,
and the recorded figures of the failover and load benchmarks, shown as tables.

Nothing here needs a server: cluster slots are computed the way every Redis Cluster
computes them (CRC16 of the hash tag, modulo 16384), and the benchmark figures are read
from the JSON files the benchmarks wrote (``--json``), which say when, where and how they
were measured.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from ..core.display import NOTEBOOK_COLUMNS, grid, wrap
from ..stores.redis import RedisKeys

#: How ``redis-cli --cluster create`` splits the 16,384 slots over three masters.
THREE_MASTERS = ((0, 5460), (5461, 10922), (10923, 16383))


def key_slot(key: str) -> int:
    """The cluster slot of ``key`` (its hash tag's CRC16, modulo 16384)."""
    from redis.crc import key_slot as crc_slot

    return int(crc_slot(key.encode()))


def master_of(slot: int, ranges: tuple[tuple[int, int], ...] = THREE_MASTERS) -> int:
    """Which master (1, 2, 3, ...) serves ``slot`` in a cluster split like ``ranges``."""
    return next(n for n, (low, high) in enumerate(ranges, 1) if low <= slot <= high)


def session_keys(session_id: str, prefix: str = "ctxlab") -> list[tuple[str, int]]:
    """(key, slot) of every key ctxlab's ``RedisStore`` keeps for one session."""
    keys = RedisKeys(prefix, session_id, tagged=True)
    names = [*keys.all(), keys.lease, f"{keys.writer_prefix}<writer>"]
    return [(name, key_slot(name)) for name in names]


def sdk_keys(session_id: str, prefix: str = "agents:session") -> list[tuple[str, int]]:
    """(key, slot) of the keys the SDK's ``RedisSession`` keeps for one session."""
    return [(name, key_slot(name)) for name in RedisKeys(prefix, session_id).all()[:3]]


def spread(session_ids: list[str], prefix: str = "ctxlab") -> dict[int, int]:
    """How many of ``session_ids`` each of three masters serves."""
    counts = {n: 0 for n in range(1, len(THREE_MASTERS) + 1)}
    for session_id in session_ids:
        counts[master_of(session_keys(session_id, prefix)[0][1])] += 1
    return counts


def load_figures(path: str | Path) -> dict[str, Any]:
    """A benchmark's recorded figures (the JSON it wrote with ``--json``)."""
    return dict(json.loads(Path(path).read_text(encoding="utf-8")))


def provenance(figures: dict[str, Any]) -> str:
    """Which benchmark, when, where, with which settings (wrapped at spaces to fit a
    notebook line)."""
    settings = ", ".join(f"{k}={v}" for k, v in figures.get("settings", {}).items())
    said = (f"{figures['benchmark']}, measured {figures['measured_at']} on "
            f"{figures.get('machine', 'an unspecified machine')} ({settings})")
    return "\n".join(wrap(said, NOTEBOOK_COLUMNS, indent="  "))


def failover_table(figures: dict[str, Any]) -> str:
    """The failover runs, one line per mode and crash, then the price of ``WAIT``."""
    lines = [f"{'mode':28} {'crash':8} {'turns acked':>11} {'acked lost':>10} "
             f"{'stored twice':>12} {'outage s':>9}"]
    for row in figures["rows"]:
        lines.append(f"{row['mode']:28} {row['crash']:8} {row['acknowledged']:>11} "
                     f"{row['lost']:>10} {row['duplicated']:>12} {row['outage_s']:>9}")
    cost = figures.get("wait_cost")
    if cost:
        fast, durable = cost["0"], cost["1"]
        lines += wrap(f"add_items on a healthy cluster: default p50 {fast['p50_ms']} ms "
                      f"(p99 {fast['p99_ms']}), durable p50 {durable['p50_ms']} ms "
                      f"(p99 {durable['p99_ms']}): "
                      f"{durable['p50_ms'] / fast['p50_ms']:.1f}x per write",
                      NOTEBOOK_COLUMNS, indent="  ")
    return "\n".join(lines)


def load_table(figures: dict[str, Any]) -> str:
    """The chat-service load runs as the benchmark printed them, laid out to fit a notebook
    line: the table's headings (separated by two spaces or more in the report) wrapped onto
    two lines where needed, the sentences under it wrapped at spaces."""
    report = list(figures["report"])
    heads = re.split(r"\s{2,}", report[0].strip()) if report else []
    rows = [line.split() for line in report[1:] if len(line.split()) == len(heads)
            and not line.startswith(" ")]
    lines = grid(heads, rows, ["<", *(">" * (len(heads) - 1))], rule=False) if rows else []
    for line in report[1 + len(rows):] if rows else report:
        lines += wrap(line, NOTEBOOK_COLUMNS, indent="  ")
    return "\n".join(lines)

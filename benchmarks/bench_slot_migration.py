"""Writes to a session while its Redis Cluster slot moves to another master.

    python benchmarks/bench_slot_migration.py            # 3 runs each way
    python benchmarks/bench_slot_migration.py --runs 1

Starts its own 3-master, 3-replica cluster (loopback, stopped at the end). Each run writes
turns to one ``TrimmingSession`` over ``RedisStore`` while the session's slot is migrated
the way ``redis-cli --cluster reshard`` does it, one key every 0.7 s
(``tests/store_migration.py``). ``before``: the store does not wait through the migration
(``migration_patience = 0``: what every write did before); ``after``: the default. Printed
per run: failed writes, lost and duplicated items, keys moved, how long the migration took
and the longest gap between two acknowledged writes.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from ctxlab.stores.local_servers import LocalRedisCluster  # noqa: E402
from ctxlab.stores.redis import RedisStateStore  # noqa: E402

from store_migration import migration_run  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--replicas", type=int, default=0, help="WAIT for this many")
    args = parser.parse_args()
    folder = tempfile.mkdtemp(prefix="bench-migration-")
    cluster = LocalRedisCluster(folder).start()
    default = RedisStateStore.migration_patience
    print(f"{'':7} {'run':>3} {'failed':>6} {'lost':>4} {'dup':>4} {'keys':>4} "
          f"{'migration s':>11} {'longest gap s':>13}")
    try:
        for run in range(args.runs):
            for label, patience in (("before", 0.0), ("after", default)):
                RedisStateStore.migration_patience = patience
                out = asyncio.run(migration_run(cluster, prefix=f"bench-{label}-{run}",
                                                replicas=args.replicas))
                print(f"{label:7} {run:3} {out.failed:6} {out.lost:4} {out.duplicated:4} "
                      f"{out.moved_keys:4} {out.migration_s:11.2f} {out.gap_s:13.2f}",
                      flush=True)
    finally:
        RedisStateStore.migration_patience = default
        cluster.stop()
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()

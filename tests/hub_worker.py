"""One agent in its own process, updating a user's shared state in a MemoryHub.

    python tests/hub_worker.py KIND TARGET PREFIX AGENT USER TURNS GO_FILE [blind]

KIND is ``sqlite`` (TARGET: the file) or ``redis`` (TARGET: the URL, PREFIX: the key
prefix). The worker says it is ready (``GO_FILE.<AGENT>.ready``), waits until GO_FILE exists (so
every worker starts together), then runs
TURNS turns of a real Agents SDK agent on the offline model; after each turn it merges what
the turn established into the hub with :func:`ctxlab.hub.record_run`, adding a milestone
``<AGENT> turn <n>`` and setting one field of its own (support: the ticket id, sales: the
member level) to the turn's value. Reads pause a random 1-6 ms so that the workers' read and
write steps interleave. ``blind`` swaps in a store whose compare-and-swap ignores versions
(broken on purpose). Prints one JSON line with the number of lost races it retried.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agents import Agent, RunConfig, Runner, set_tracing_disabled

from ctxlab.course.offline import OfflineSupportModel
from ctxlab.hub import HUB_KEY, MemoryHub, hub_input_filter, hub_instructions, record_run
from ctxlab.memory import RuleBasedStateExtractor, StatePatch
from ctxlab.records import RecordStore, SQLiteRecords, Versioned
from ctxlab.records.base import namespace_hash
from ctxlab.records.redis import RedisRecords
from ctxlab.records.users import UserContext


class Pausing:
    """Mixin: pause after reading the hub's record, so writers interleave."""

    async def _get(self, namespace: str, key: str) -> Versioned:
        found = await super()._get(namespace, key)  # type: ignore[misc]
        if key == HUB_KEY:
            await asyncio.sleep(random.uniform(0.001, 0.006))
        return found


class PausingSQLite(Pausing, SQLiteRecords):
    pass


class PausingRedis(Pausing, RedisRecords):
    pass


class BlindSQLite(PausingSQLite):
    """Broken on purpose: writes whatever the record's version is (last write wins)."""

    async def _put(self, namespace, key, text, expected_version, expected_epoch):
        h = namespace_hash(namespace)

        def current(conn: Any) -> int:
            row = conn.execute("SELECT version FROM ctxlab_records WHERE h = ? AND key = ?",
                               (h, key)).fetchone()
            return row[0] if row else 0

        version = await self._run("peek", current)
        return await super()._put(namespace, key, text, version, None)


class BlindRedis(PausingRedis):
    """Broken on purpose: writes whatever the record's version is (last write wins)."""

    async def _put(self, namespace, key, text, expected_version, expected_epoch):
        rec, _ = self.keys_of(namespace)
        version = int(await (await self._redis()).hget(rec, f"v:{key}") or 0)
        return await super()._put(namespace, key, text, version, None)


class Tagging(RuleBasedStateExtractor):
    """The offline extractor, plus this worker's milestone and field for the turn."""

    def __init__(self, agent: str, turn: int):
        super().__init__()
        self.agent, self.turn = agent, turn

    async def extract(self, items, *, state=None, turn=None) -> StatePatch:
        patch = await super().extract(items, state=state, turn=turn)
        field = "issue.ticket_id" if self.agent == "support" else "user.member_level"
        values = {**patch.values, field: f"{self.agent}-{self.turn}"}
        return patch.model_copy(update={
            "milestones": [*patch.milestones, f"{self.agent} turn {self.turn}"],
            "values": values})


def records_for(kind: str, target: str, prefix: str, blind: bool) -> RecordStore:
    if kind == "sqlite":
        return (BlindSQLite if blind else PausingSQLite)(target)
    return (BlindRedis if blind else PausingRedis)(target, prefix=prefix)


async def main(kind: str, target: str, prefix: str, agent_name: str, user: str, turns: int,
               go: Path, blind: bool) -> None:
    set_tracing_disabled(True)
    hub = MemoryHub(records_for(kind, target, prefix, blind), max_attempts=500)
    agent = Agent(name=agent_name, model=OfflineSupportModel(),
                  instructions=hub_instructions(hub, f"You are the {agent_name} agent."))
    Path(f"{go}.{agent_name}.ready").touch()  # imported and connected: ready to race
    while not go.exists():
        await asyncio.sleep(0.005)
    for turn in range(1, turns + 1):
        text = (f"My laptop overheats again, turn {turn}." if agent_name == "support"
                else f"I'd like a quote for a docking station, turn {turn}.")
        result = await Runner.run(agent, text, context=UserContext(user),
                                  run_config=RunConfig(call_model_input_filter=hub_input_filter(hub)))
        await record_run(hub, result, agent=agent_name, extractor=Tagging(agent_name, turn))
    await hub.aclose()
    print(json.dumps({"agent": agent_name, "pid": os.getpid(), "turns": turns,
                      "lost_races": hub.lost_races}))


if __name__ == "__main__":
    kind, target, prefix, agent_name, user, turns, go = sys.argv[1:8]
    asyncio.run(main(kind, target, prefix, agent_name, user, int(turns), Path(go),
                     blind=len(sys.argv) > 8 and sys.argv[8] == "blind"))

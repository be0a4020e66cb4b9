"""A separate OS process that writes to a shared session (run by test_multiprocess.py).

    python tests/store_worker.py '<json spec>'

The spec lists jobs (a store, as ``store_backends.Backend.spec()`` describes it, and a
session id), this writer's tag, how many Runner-shaped turns to append and how to summarize. The
worker waits for ``go_file`` (so that all workers start together), writes to every job's
session concurrently, and prints one JSON line: per job, the folds it applied (generation,
covered items and turns) and how many it discarded. In ``hang`` mode the summarizer writes
the job's ``marker`` and never returns (the parent kills the process).
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from ctxlab import SummarizingSession
from ctxlab.sessions.summarizing import SummaryRecord

from fakes import RecordingSummarizer
from store_backends import Backend, turn


class RecordingSession(SummarizingSession):
    """Remembers every fold this process applied (to check: one fold per generation)."""

    applied: list[list[Any]]

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.applied = []
        apply = self._engine.apply

        async def recording_apply(job: Any, record: SummaryRecord) -> bool:
            done = await apply(job, record)
            if done:
                self.applied.append([record.generation, *record.items, *record.turns])
            return done

        self._engine.apply = recording_apply  # type: ignore[method-assign]


class HangingSummarizer:
    """Signals that a fold started, then never finishes (until the process is killed)."""

    def __init__(self, marker: str):
        self.marker = Path(marker)

    async def summarize(self, items: list[dict[str, Any]], *, previous_summary: str | None = None):
        self.marker.write_text(str(len(items)))
        await asyncio.sleep(3600)
        return "never"


def open_store(spec: dict[str, Any], session_id: str) -> tuple[Any, Backend]:
    """The SDK session of ``spec``'s store, and the backend to close afterwards."""
    backend = Backend.from_spec(spec)
    return backend.sdk(session_id), backend


def make_session(spec: dict[str, Any], store: Any, marker: str | None = None
                 ) -> RecordingSession:
    if spec.get("mode") == "hang":
        summarizer: Any = HangingSummarizer(marker or spec["marker"])
    else:
        summarizer = RecordingSummarizer(delay=spec.get("delay", 0.0))
    session = RecordingSession(spec["keep"], spec["limit"], summarizer, store=store,
                               lease_ttl=spec.get("lease_ttl"), summary_timeout=None)
    return session


async def write(spec: dict[str, Any], job: dict[str, Any]) -> dict[str, Any]:
    store, backend = open_store(job["store"], job["session_id"])
    try:
        session = make_session(spec, store, job.get("marker"))
        for t in range(spec["turns"]):
            for batch in turn(t, spec["writer"]):
                await session.add_items(batch)
        return {"applied": session.applied, "discarded": session.summaries_discarded}
    finally:
        await backend.aclose()


async def main(spec: dict[str, Any]) -> dict[str, Any]:
    """Write to every store in ``spec["jobs"]`` at the same time (one session each)."""
    if spec.get("ready_file"):
        Path(spec["ready_file"]).write_text("ready")
    if spec.get("go_file"):
        deadline = time.monotonic() + 120
        while not Path(spec["go_file"]).exists():
            if time.monotonic() > deadline:
                raise TimeoutError("the parent never said go")
            await asyncio.sleep(0.005)
    results = await asyncio.gather(*(write(spec, job) for job in spec["jobs"]))
    return {"writer": spec["writer"], "jobs": list(results)}


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main(json.loads(sys.argv[1])))), flush=True)

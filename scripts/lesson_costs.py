#!/usr/bin/env python3
"""Estimate what each lesson costs with a real model, from its offline run.

    .venv/bin/python scripts/lesson_costs.py                  # every lesson
    .venv/bin/python scripts/lesson_costs.py notebooks/03_summarizing.ipynb --model gpt-4.1

Executes each notebook (in memory; nothing is written back) with the offline backend and
counts every call of the offline model: its exact input tokens (o200k_base, the request as
sent; "largest" is the biggest request, the context a local server needs) and output
tokens. Calls that only a real model makes are estimated: each fold of the
summarizer ``default_summarizer()`` picks (an ``LLMSummarizer`` with a real model: the prompt
plus the transcript in, its 400-token cap out) and each summary ``judge_run()`` would judge
(the judge prompt, transcript and summary in, about 300 tokens out). Prices come from
``ctxlab.course.costs.PRICES``.

These are estimates: a real model writes longer replies, decides differently when to call
a tool, and a summarizing lesson then folds different text. The time column assumes about
1.5 seconds per call (a small hosted model); a local model on a CPU is much slower.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent
SECONDS_PER_CALL = 1.5

# Runs first in the notebook's kernel: log each offline model call and summarizer fold.
INSTRUMENT = '''
import json as _json
from ctxlab.course.offline import model as _model
from ctxlab.summarizers import extractive as _extractive
from ctxlab.summarizers.prompt import SUMMARY_PROMPT as _PROMPT
from ctxlab.summarizers.transcript import render_transcript as _render
from ctxlab.core.tokens import count_tokens as _count

def _log(kind, tokens_in, tokens_out):
    with open(__LOG__, "a") as _f:
        _f.write(_json.dumps([kind, tokens_in, tokens_out]) + "\\n")

_respond = _model.OfflineSupportModel.respond
def _logged_respond(self, *args, **kwargs):
    result = _respond(self, *args, **kwargs)
    _log("agent", result.input_tokens, result.output_tokens)
    return result
_model.OfflineSupportModel.respond = _logged_respond

_summarize = _extractive.ExtractiveSummarizer.summarize
def _logged_summarize(self, items, *args, **kwargs):
    if getattr(self, "_llm_with_a_real_model", False):
        _log("summary", _count(_PROMPT) + _count(_render(list(items), tool_trim_limit=600)),
             400)
    return _summarize(self, items, *args, **kwargs)
_extractive.ExtractiveSummarizer.summarize = _logged_summarize

# Only the summarizer default_summarizer() picks becomes an LLMSummarizer with a real model.
from ctxlab.course import backends as _backends
_default_summarizer = _backends.default_summarizer
def _marked_default_summarizer(*args, **kwargs):
    chosen = _default_summarizer(*args, **kwargs)
    chosen._llm_with_a_real_model = True
    return chosen
_backends.default_summarizer = _marked_default_summarizer

# With a real model, judge_run() judges every final summary (offline it skips them).
from ctxlab.eval import judge as _judge
_judge_run = _judge.judge_run
async def _counting_judge_run(run, cases, judge, *args, **kwargs):
    asker = _judge.SummaryJudge(object(), "gpt-4.1-mini")
    by_id = {c.id: c for c in cases}
    for result in run.results:
        if result.summary is not None and result.case in by_id:
            end = int(result.summary["items"][1])
            text = asker.build_user_message(by_id[result.case].items[:end],
                                            str(result.summary["text"]))
            _log("judge", _count(asker.prompt) + _count(text), 300)
    return await _judge_run(run, cases, judge, *args, **kwargs)
_judge.judge_run = _counting_judge_run
import ctxlab.eval as _eval
_eval.judge_run = _counting_judge_run
'''


def measure(path: Path) -> dict[str, int]:
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "calls.jsonl"
        nb = nbformat.read(path, as_version=4)
        nb.cells.insert(0, nbformat.v4.new_code_cell(INSTRUMENT.replace("__LOG__", repr(str(log)))))
        NotebookClient(nb, timeout=600, kernel_name="python3",
                       resources={"metadata": {"path": str(path.parent)}}).execute()
        lines = log.read_text().splitlines() if log.exists() else []
        entries = [json.loads(line) for line in lines]
    totals = {f"{kind}_{what}": 0 for kind in ("agent", "summary", "judge")
              for what in ("calls", "in", "out")}
    totals["largest"] = 0
    for kind, tokens_in, tokens_out in entries:
        totals["largest"] = max(totals["largest"], tokens_in)
        totals[f"{kind}_calls"] += 1
        totals[f"{kind}_in"] += tokens_in
        totals[f"{kind}_out"] += tokens_out
    return totals


def main(argv: list[str]) -> int:
    from ctxlab.course.costs import cost_usd

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="*", type=Path)
    parser.add_argument("--model", default="gpt-4.1-mini", help="price the tokens at this model")
    args = parser.parse_args(argv)
    os.environ["CTXLAB_BACKEND"] = "offline"
    os.environ.pop("OPENAI_API_KEY", None)
    os.environ.pop("OPENAI_BASE_URL", None)
    paths = args.notebooks or sorted((ROOT / "notebooks").glob("[0-9]*.ipynb"))
    print(f"{'lesson':<34} {'agent calls':>11} {'tokens in':>10} {'out':>6} "
          f"{'summaries':>9} {'judged':>6} {'all in':>8} {'largest':>7} {'$ ' + args.model:>15} "
          f"{'~min':>5}")
    for path in paths:
        began = time.perf_counter()
        t = measure(path)
        kinds = ("agent", "summary", "judge")
        tokens_in = sum(t[f"{k}_in"] for k in kinds)
        tokens_out = sum(t[f"{k}_out"] for k in kinds)
        calls = sum(t[f"{k}_calls"] for k in kinds)
        dollars = cost_usd(tokens_in, tokens_out, args.model)
        print(f"{path.stem:<34} {t['agent_calls']:>11} {t['agent_in']:>10} {t['agent_out']:>6} "
              f"{t['summary_calls']:>9} {t['judge_calls']:>6} {tokens_in:>8} {t['largest']:>7} "
              f"{dollars:>15.3f} "
              f"{calls * SECONDS_PER_CALL / 60:>5.1f}", flush=True)
        print(f"  (measured offline in {time.perf_counter() - began:.0f} s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

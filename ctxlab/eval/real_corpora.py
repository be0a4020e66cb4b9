"""The course's strategies on real task dialogues, next to the planted chats (issue 30 §4).

The lessons measure memory on chats the project generates (``planted``): a few facts,
planted in known turns, asked about later. Real conversations are different: an SGD or
CrossWOZ customer (four dialogues chained over days, :mod:`ctxlab.eval.dialogue_cases`)
establishes dozens of slot values (dates, times, places, names, counts) across several
services, and asks for all of them in the recap. :func:`compare_on_real_corpora` runs the
same strategies on a few customers of each and :meth:`CorporaComparison.text` prints one
table, a group of columns per corpus:

    comparison = await compare_on_real_corpora()
    print(comparison.text())
    comparison.summary("sgd", "summarize:2/4").recall

``recall`` is the share of facts whose current value is in the model's view when asked;
``vs full`` is every token the strategy spends (summarizer calls in and out included; the
``slots`` extractor makes no model call) over full history's. The full splits' figures are
in ``benchmarks/results/issue30_real_corpora.txt``.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..course.backends import offline_backend
from .corpus import load_cases
from .dialogue_cases import dialogue_agent, dialogue_cases
from .evaluate import evaluate
from .results import EvalRun, StrategySummary
from .tables import corpora_table

#: The strategies the lessons compare: full history, a trim, the summary, the planted
#: chats' state and the slot memory kept per topic (``+slots:ask``: values the customer
#: asked about too).
LESSON_STRATEGIES: tuple[str, ...] = ("full", "trim:8", "summarize:2/4", "trim:4+state",
                                      "trim:1+slots:ask")

#: A few customers of each corpus's report half (a lesson stays well under 15 s offline).
LESSON_CORPORA: dict[str, str] = {"planted": "planted:2:30-50", "sgd": "sgd:report:6",
                                  "crosswoz": "crosswoz:report:6"}


@dataclass
class CorporaComparison:
    """One evaluation run per corpus, the same strategies in each."""

    runs: dict[str, EvalRun] = field(default_factory=dict)
    customers: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0

    def summary(self, corpus: str, strategy: str) -> StrategySummary:
        """One strategy's figures on one corpus (KeyError naming both if absent)."""
        if corpus not in self.runs:
            raise KeyError(f"no corpus {corpus!r}; compared: {', '.join(self.runs)}")
        return self.runs[corpus].summary(strategy)

    def text(self, columns: Sequence[str] = ("recall", "token_ratio")) -> str:
        """The table (a group of ``columns`` per corpus) and how many customers each had
        (no time: a lesson's output must not change from run to run)."""
        sizes = ", ".join(f"{name} {n}" for name, n in self.customers.items())
        return f"{corpora_table(self.runs, columns)}\ncustomers: {sizes}"


async def compare_on_real_corpora(strategies: Sequence[str] = LESSON_STRATEGIES,
                                  corpora: dict[str, str] | None = None,
                                  summarizer: object = None) -> CorporaComparison:
    """Evaluate ``strategies`` offline on each corpus spec of ``corpora`` (name -> spec;
    default :data:`LESSON_CORPORA`). Dialogue corpora (``sgd``, ``crosswoz``) are run with
    the short booking assistant, the planted chats with the course's support agent; no
    answers are asked (the figures are what is in view)."""
    chosen = dict(corpora if corpora is not None else LESSON_CORPORA)
    if not chosen or not strategies:
        raise ValueError("compare_on_real_corpora needs at least one corpus and one strategy")
    started = time.perf_counter()
    out = CorporaComparison()
    for name, spec in chosen.items():
        real = spec.split(":")[0] in ("sgd", "crosswoz")
        cases = dialogue_cases(spec) if real else load_cases(spec)
        agent = dialogue_agent(offline_backend()) if real else None
        out.runs[name] = await evaluate(cases, list(strategies), agent=agent, answers=False,
                                        summarizer=summarizer)
        out.customers[name] = len(cases)
    out.seconds = time.perf_counter() - started
    return out

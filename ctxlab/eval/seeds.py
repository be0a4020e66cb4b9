"""The realistic reader's answers over several seeds: which conclusions hold for every one.

The realistic reader (:class:`ctxlab.RealisticReader`) draws, per seed, whether it finds
each fact. One seed is one sample: full history 49 against ``summarize 2/4`` 54 of 61 at
seed 0 is 45 against 47 at seed 1. :func:`reader_spread` evaluates the same cases and
strategies once per seed and keeps the answer counts; :class:`SeedSpread` prints them side
by side with their range and says whether one strategy answers more than another at *every*
seed (:meth:`SeedSpread.beats`), which is the only kind of claim a lesson makes from them.

A spread over many seeds takes longer than a lesson may (each seed is a full evaluation),
so ``scripts/reader_seeds.py`` computes the course's spreads once and writes them to
``benchmarks/results/reader_seeds.json``; lessons load that file
(:func:`load_seed_spreads`) and a test recomputes a seed to check it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ..core.display import pad


@dataclass(frozen=True)
class SeedSpread:
    """Answers of each strategy at each seed on one corpus (``corpus`` is its spec)."""

    corpus: str
    seeds: tuple[int, ...]
    asked: int  # probes asked per seed (the same at every seed)
    answers: dict[str, tuple[int, ...]]  # strategy spec -> correct answers, one per seed
    token_ratio: dict[str, float]  # strategy spec -> tokens spent / the full history's
    labels: dict[str, str]  # strategy spec -> its label in tables

    def __post_init__(self) -> None:
        for spec, counts in self.answers.items():
            if len(counts) != len(self.seeds):
                raise ValueError(f"{spec}: {len(counts)} answer counts for "
                                 f"{len(self.seeds)} seeds")

    def beats(self, better: str, worse: str) -> bool:
        """True when ``better`` answers more than ``worse`` at every seed."""
        return all(a > b for a, b in zip(self.answers[better], self.answers[worse],
                                         strict=True))

    def at(self, spec: str, seed: int) -> int:
        return self.answers[spec][self.seeds.index(seed)]

    def span(self, spec: str) -> tuple[int, int]:
        return min(self.answers[spec]), max(self.answers[spec])

    def table(self) -> str:
        """One row per strategy: its answers at each seed, their range and its tokens."""
        width = max(14, *(len(label) for label in self.labels.values()))
        head = (f"{pad('strategy', width)}  " + " ".join(f"seed {s:<2}" for s in self.seeds)
                + "   range    vs full")
        lines = [head, "-" * len(head)]
        for spec, counts in self.answers.items():
            low, high = self.span(spec)
            lines.append(f"{pad(self.labels.get(spec, spec), width)}  "
                         + " ".join(f"{c:>7}" for c in counts)
                         + f"  {low:>3}-{high:<3}  {self.token_ratio[spec]:>7.1%}")
        lines.append(f"(correct answers of {self.asked} asked, realistic reader; "
                     f"corpus {self.corpus})")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["answers"] = {k: list(v) for k, v in self.answers.items()}
        data["seeds"] = list(self.seeds)
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SeedSpread:
        return cls(corpus=data["corpus"], seeds=tuple(data["seeds"]), asked=data["asked"],
                   answers={k: tuple(v) for k, v in data["answers"].items()},
                   token_ratio=dict(data["token_ratio"]), labels=dict(data["labels"]))


async def reader_spread(corpus: str, strategies: Sequence[str], seeds: Iterable[int], *,
                        backend: Any = None) -> SeedSpread:
    """Evaluate ``corpus`` (a :func:`ctxlab.eval.load_cases` spec) with ``strategies``
    once per seed, every answerable probe asked through the offline model's realistic
    reader of that seed; the counts of correct answers per strategy and seed."""
    from ..course.agent import make_support_agent
    from ..course.backends import choose_backend
    from ..course.offline.reader import RealisticReader
    from .corpus import load_cases
    from .evaluate import evaluate

    backend = backend if backend is not None else choose_backend()
    cases = load_cases(corpus)
    seeds = tuple(seeds)
    answers: dict[str, list[int]] = {spec: [] for spec in strategies}
    asked: set[int] = set()
    ratio: dict[str, float] = {}
    labels: dict[str, str] = {}
    for seed in seeds:
        agent = make_support_agent(backend, reader=RealisticReader(seed=seed))
        run = await evaluate(cases, list(strategies), agent=agent, max_answer_probes=None,
                             run_id=f"reader-seed-{seed}")
        for spec, summary in zip(strategies, run.summaries(), strict=True):
            answers[spec].append(summary.answers_correct)
            asked.add(summary.answer_probes)
            ratio[spec] = summary.token_ratio or 0.0
            labels[spec] = summary.label or spec
    if len(asked) != 1:
        raise RuntimeError(f"seeds asked different numbers of probes: {sorted(asked)}")
    return SeedSpread(corpus, seeds, asked.pop(), {k: tuple(v) for k, v in answers.items()},
                      ratio, labels)


def save_seed_spreads(spreads: Mapping[str, SeedSpread], path: str | os.PathLike[str],
                      provenance: str = "") -> Path:
    """Write named spreads as JSON (``provenance``: how they were made)."""
    out = Path(path)
    out.write_text(json.dumps({"provenance": provenance, "spreads": {
        name: spread.to_dict() for name, spread in spreads.items()}}, indent=1) + "\n")
    return out


def load_seed_spreads(path: str | os.PathLike[str]) -> dict[str, SeedSpread]:
    """The spreads :func:`save_seed_spreads` wrote, by name."""
    data = json.loads(Path(path).read_text())
    return {name: SeedSpread.from_dict(item) for name, item in data["spreads"].items()}

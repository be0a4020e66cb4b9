"""Evaluation corpora by name: what ``--corpus`` accepts.

=========================== =============================================================
spec                        cases
=========================== =============================================================
``tau`` / ``tau:N``         the 200 tau-bench airline transcripts (or the first N); the
                            facts are the identifiers of the correct tool calls, probed
                            after the last turn
``abcd``                    the 3 ABCD chats; the facts are the scenario's values
                            (case-insensitive, whole words), probed after the last turn
``seed``                    the course's three seed conversations, probed after the end
``zh``                      the 14 Chinese support conversations written for ctxlab, probed
                            after the last turn with Chinese questions
                            (:mod:`ctxlab.eval.zh_cases`)
``sgd`` / ``crosswoz`` ...  real task dialogues (SGD, English; CrossWOZ, Chinese), four
                            chained as one customer over four days, the answer key from
                            the state annotations, a recap question at the end:
                            ``sgd|crosswoz[:tune|report][:N][@DIR]``
                            (:mod:`ctxlab.eval.dialogue_cases`)
``planted`` ...             planted-fact conversations (:mod:`ctxlab.eval.planted`):
                            ``planted[:N[:MIN-MAX[:SEED]]]``, default ``planted:24:30-90:0``
a file path                 your own log (JSON/JSONL, Responses items or Chat Completions
                            messages); typed facts found automatically
=========================== =============================================================
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from ..course.corpora import (
    load_abcd,
    load_conversation_file,
    load_tau_bench,
    seed_router_flow,
    seed_support_conversation,
    seed_trimming_flow,
)
from .cases import EvalCase, case_from_conversation, case_from_items
from .dialogue_cases import DIALOGUE_CORPORA, dialogue_cases
from .planted import planted_corpus
from .zh_cases import zh_cases

#: The corpus names :func:`load_cases` knows (besides file paths).
CORPUS_NAMES: tuple[str, ...] = ("tau", "abcd", "seed", "zh", "planted", "sgd", "crosswoz")

CORPUS_HELP = (
    "tau[:N] (tau-bench airline, 200 transcripts), abcd (3 chats), seed (3 course "
    "conversations), zh (14 Chinese support chats), "
    "sgd|crosswoz[:tune|report][:N][@DIR] (real task dialogues, 4 chained per customer), "
    "planted[:N[:MIN-MAX[:SEED]]] (default "
    "planted:24:30-90:0), or the path of a JSON/JSONL log"
)


def _int(text: str, what: str, spec: str, minimum: int = 0) -> int:
    try:
        value = int(text)
    except ValueError:
        raise ValueError(f"corpus {spec!r}: {what} must be a whole number, got {text!r}") from None
    if value < minimum:
        raise ValueError(f"corpus {spec!r}: {what} must be >= {minimum}, got {value}")
    return value


def tau_cases(limit: int | None = None) -> list[EvalCase]:
    """tau-bench airline transcripts as cases (see the module docstring)."""
    return [case_from_conversation(c) for c in load_tau_bench(limit=limit)]


def abcd_cases() -> list[EvalCase]:
    """The ABCD chats as cases."""
    return [case_from_conversation(c) for c in load_abcd()]


def seed_cases() -> list[EvalCase]:
    """The course's seed conversations as cases."""
    return [case_from_conversation(c) for c in
            (seed_support_conversation(), seed_router_flow(), seed_trimming_flow())]


def load_cases(spec: str) -> list[EvalCase]:
    """The cases of one corpus spec (see the module docstring).

    Raises:
        ValueError: for an unknown name, a malformed argument, or a file that cannot be read
            as a conversation (the message names the spec and the problem).
    """
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"a corpus spec must be a non-empty string; use {CORPUS_HELP}")
    spec = spec.strip()
    name, _, rest = spec.partition(":")
    if name == "tau":
        return tau_cases(_int(rest, "N", spec) if rest else None)
    if name in ("abcd", "seed", "zh"):
        if rest:
            raise ValueError(f"corpus {spec!r}: {name} takes no argument")
        return {"abcd": abcd_cases, "seed": seed_cases, "zh": zh_cases}[name]()
    if name == "planted":
        return _planted_cases(spec, rest)
    if name.partition("@")[0] in DIALOGUE_CORPORA:
        return dialogue_cases(spec)
    return _file_cases(spec)


def _planted_cases(spec: str, rest: str) -> list[EvalCase]:
    """``planted[:N[:MIN-MAX[:SEED]]]``; ``rest`` is what follows ``planted:``."""
    parts = rest.split(":") if rest else []
    if len(parts) > 3:
        raise ValueError(f"corpus {spec!r}: expected planted[:N[:MIN-MAX[:SEED]]]")
    n = _int(parts[0], "N", spec, 1) if parts else 24
    low, high = 30, 90
    if len(parts) > 1:
        bounds = parts[1].split("-")
        if len(bounds) != 2:
            raise ValueError(f"corpus {spec!r}: the length range must look like 30-90")
        low, high = (_int(b, "a turn count", spec, 12) for b in bounds)
        if low > high:
            raise ValueError(f"corpus {spec!r}: MIN must not exceed MAX")
    seed = _int(parts[2], "SEED", spec) if len(parts) > 2 else 0
    return planted_corpus(n, min_turns=low, max_turns=high, seed=seed)


def _file_cases(spec: str) -> list[EvalCase]:
    """A log of your own (``file:PATH`` or a path), or a clear error for an unknown name."""
    path = spec[5:] if spec.startswith("file:") else spec
    looks_like_path = spec.startswith("file:") or os.sep in path or path.endswith(
        (".json", ".jsonl"))
    if looks_like_path and not os.path.isfile(path):
        raise ValueError(f"corpus {spec!r}: no such file {path!r}")
    if os.path.isfile(path):
        items = load_conversation_file(path)
        stem = os.path.splitext(os.path.basename(path))[0] or "conversation"
        return [case_from_items(items, case_id=stem, source="file")]
    raise ValueError(f"unknown corpus {spec!r}: use {CORPUS_HELP}")


def load_corpora(specs: Iterable[str]) -> list[EvalCase]:
    """The cases of several corpus specs, in order; case ids must not repeat."""
    cases: list[EvalCase] = []
    seen: set[str] = set()
    for spec in specs:
        for case in load_cases(spec):
            if case.id in seen:
                raise ValueError(f"case id {case.id!r} occurs twice (corpus {spec!r} repeats "
                                 "cases already loaded)")
            seen.add(case.id)
            cases.append(case)
    return cases

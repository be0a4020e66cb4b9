"""Evaluation: did memory keep what the agent needs, and at what cost?

Replay real and planted conversations through every memory strategy, the way the Agents SDK
Runner writes items, and measure what survives in the model's view:

* cases (:mod:`.cases`, :mod:`.corpus`, :mod:`.planted`, :mod:`.zh_cases`): tau-bench,
  ABCD, the course's seeds, Chinese support chats, planted-fact conversations, your own logs;
  each with an answer key and probes;
* strategies (:mod:`.strategies`): ``full``, ``trim:N``, ``summarize:K/L``, ``budget:T``,
  ``state``, ``recall`` and their combinations, by spec string;
* replay (:mod:`.replay`) and metrics (:mod:`.metrics`): fact availability, which value
  each view presents as current (use, not presence: :mod:`.use`; stale-as-current at every
  model call), answers through the agent (:mod:`.answers`), exact tokens and cost,
  validity, latency, token-pressure drops;
* runs (:mod:`.results`) saved as JSON and CSV, compared for regressions (:mod:`.compare`);
* sweeps with a Pareto front and a recommendation (:mod:`.sweep`);
* an LLM-as-judge for summaries when a real model is configured (:mod:`.judge`);
* tables (:mod:`.tables`) and plots (:mod:`.plots`, needs matplotlib).

The command line (``python -m ctxlab eval|replay|compare``) is :mod:`ctxlab.cli`.
"""

from .answers import OFFLINE_NOTE, Answer, ProbeAsker, score_reply
from .cases import (
    KIND_QUESTIONS,
    EvalCase,
    KeyFact,
    RecallProbe,
    case_from_conversation,
    case_from_items,
)
from .compare import REGRESSION_CATEGORIES, Comparison, Regression, StrategyDelta, compare
from .corpus import CORPUS_HELP, load_cases, load_corpora
from .evaluate import evaluate
from .judge import RUBRIC, JudgeReport, JudgeVerdict, SummaryJudge, judge_from_env, judge_run
from .metrics import CaseResult, PressureEvent, ProbeResult, TurnMetrics, evaluate_case
from .planted import planted_case, planted_corpus
from .replay import ModelCall, StrategyReplay
from .results import EvalRun, StrategySummary
from .strategies import (
    DEFAULT_STRATEGIES,
    Component,
    FullHistorySession,
    Strategy,
    TransformResult,
    parse_strategies,
    parse_strategy,
    register_component,
    strategy_help,
)
from .sweep import SweepPoint, SweepResult, pareto_front, recommend, sweep
from .tables import (
    answer_key_table,
    corpora_table,
    latency_table,
    pressure_table,
    summary_table,
    survival_table,
)
from .use import UseRecord, UseTracker, UseVerdict, read_use
from .zh_cases import ZH_KIND_QUESTIONS, zh_case, zh_cases

__all__ = [
    "CORPUS_HELP",
    "DEFAULT_STRATEGIES",
    "KIND_QUESTIONS",
    "OFFLINE_NOTE",
    "REGRESSION_CATEGORIES",
    "RUBRIC",
    "ZH_KIND_QUESTIONS",
    "Answer",
    "CaseResult",
    "Comparison",
    "Component",
    "EvalCase",
    "EvalRun",
    "FullHistorySession",
    "JudgeReport",
    "JudgeVerdict",
    "KeyFact",
    "ModelCall",
    "PressureEvent",
    "ProbeAsker",
    "ProbeResult",
    "RecallProbe",
    "Regression",
    "Strategy",
    "StrategyDelta",
    "StrategyReplay",
    "StrategySummary",
    "SummaryJudge",
    "SweepPoint",
    "SweepResult",
    "TransformResult",
    "TurnMetrics",
    "UseRecord",
    "UseTracker",
    "UseVerdict",
    "answer_key_table",
    "case_from_conversation",
    "case_from_items",
    "compare",
    "corpora_table",
    "evaluate",
    "evaluate_case",
    "judge_from_env",
    "judge_run",
    "latency_table",
    "load_cases",
    "load_corpora",
    "pareto_front",
    "parse_strategies",
    "parse_strategy",
    "planted_case",
    "planted_corpus",
    "pressure_table",
    "read_use",
    "recommend",
    "register_component",
    "score_reply",
    "strategy_help",
    "summary_table",
    "survival_table",
    "sweep",
    "zh_case",
    "zh_cases",
]

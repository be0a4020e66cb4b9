"""The default spec parser of a params dataclass, token budgets as a share of a model window
for every token strategy, and ``LogView`` turn bounds and per-turn tokens."""

from __future__ import annotations

import dataclasses

import pytest

import ctxlab
from ctxlab.core.rawlog import RawLog
from ctxlab.core.tokens import get_token_counter
from ctxlab.policies import (
    FirstLastParams,
    StrategySpec,
    TokenTailParams,
    TrimParams,
    default_parser,
    token_budget,
    window_tokens,
)
from ctxlab.sessions import get_strategy

from conftest import assistant, call, output, user


@dataclasses.dataclass(frozen=True)
class DemoParams:
    keep_turns: int = 2
    max_tokens: int | None = None
    keep_preamble: bool = True
    spare: int = 7


@pytest.mark.parametrize(("spec", "params"), [
    ("trim:8", TrimParams(8)),
    ("trim:8/2", TrimParams(8, step=2)),
    ("trim:8@60%/16k", TrimParams(8, max_tokens=9830)),
    ("trim:8/2@50%/8000", TrimParams(8, max_tokens=4000, step=2)),
    ("tokentail:900", TokenTailParams(900)),
    ("tokentail:60%/16k", TokenTailParams(9830)),
    ("tokentail:12.5%/128k", TokenTailParams(16384)),
    ("firstlast:3", FirstLastParams(3, 4)),
    ("firstlast:1/2", FirstLastParams(1, 2)),
    (" firstlast : 2 / 5 ", FirstLastParams(2, 5)),
])
def test_spec_strings_give_their_params(spec, params):
    assert ctxlab.params_from_spec(spec) == params


def test_summarize_reads_its_share_of_a_window_too():
    params = ctxlab.params_from_spec("summarize:2@60%/16k")
    assert (params.fold_at_share, params.model_window, params.fold_tokens) == (0.6, 16384, 9830)
    assert ctxlab.params_from_spec("summarize:2/4").context_limit == 4


@pytest.mark.parametrize(("spec", "match"), [
    ("tokentail:0%/16k", r"P must be a percentage in \(0, 100\], got 0"),
    ("tokentail:101%/16k", r"P must be a percentage in \(0, 100\], got 101"),
    ("trim:8@150%/16k", r"'trim:8@150%/16k': P must be a percentage"),
    ("tokentail:60%", r"as a share of a model window reads P%/W \(like 60%/16k\), got '60%'"),
    ("tokentail:60%/", r"the window W must be a whole number of tokens >= 1 or like 16k"),
    ("tokentail:60%/0", r"the window W must be"),
    ("trim:8@60%/16q", r"the window W must be .* got '16q'"),
    ("tokentail:x", r"T \(tokens\) must be a whole number >= 1, got 'x' \(or P%/W: P percent"),
    ("tokentail:10/20", r"tokentail takes at most 1 value"),
    ("firstlast:1/2/3", r"firstlast takes at most 2 value\(s\), F/N; got 3"),
    ("firstlast:", r"expected firstlast:F/N"),
    ("firstlast:0", r"F must be >= 1, got 0"),
    ("firstlast:a/2", r"F must be a whole number >= 1, got 'a'"),
    ("nosuch:3", r"unknown strategy 'nosuch'"),
    ("", r"a strategy spec is a string like 'trim:8'"),
])
def test_bad_specs_name_what_is_wrong(spec, match):
    with pytest.raises(ValueError, match=match):
        ctxlab.params_from_spec(spec)


def test_from_spec_refuses_another_strategys_spec():
    with pytest.raises(ValueError, match="spec 'trim:3' is not one of strategy 'tokentail'"):
        get_strategy("tokentail").from_spec("trim:3")
    with pytest.raises(ValueError, match="a strategy spec is a string"):
        get_strategy("tokentail").from_spec(3)  # type: ignore[arg-type]


def test_the_default_parser_is_built_from_the_params_dataclass():
    parse = default_parser("demo", DemoParams)
    assert parse("3") == {"keep_turns": 3, "spare": 7}  # defaults fill the rest; None stays out
    assert parse("3/50%/1k/4") == {"keep_turns": 3, "max_tokens": 512, "spare": 4}
    with pytest.raises(ValueError, match=r"demo takes at most 3 value\(s\), keep_turns/"
                                         r"max_tokens/spare; got 4"):
        parse("1/2/3/4")
    with pytest.raises(ValueError, match="strategy part 'demo:2/x': max_tokens"):
        parse("2/x")  # a field about tokens also reads a share: its error says so
    with pytest.raises(ValueError, match="has no integer fields"):
        default_parser("none", dataclasses.make_dataclass("NoInts", [("flag", bool)]))


def test_a_spec_without_a_parse_function_gets_the_default_one():
    spec = StrategySpec(name="demo", syntax="demo:K[/T]", help="demo", params_type=DemoParams)
    assert spec.from_spec("demo:4/25%/8k") == DemoParams(4, 2048)
    assert spec.read("demo:4") == {"keep_turns": 4, "spare": 7}
    assert spec.canonical(spec.parse("4/100")) == "demo:4/100/7"
    with pytest.raises(ValueError, match="needs a parse function or a params_type"):
        StrategySpec(name="bare", syntax="bare", help="nothing to parse with")


def test_token_budget_and_window_helpers():
    assert window_tokens("x", "16k") == 16384 and window_tokens("x", "8000") == 8000
    assert token_budget("x", "1200", "T") == 1200
    assert token_budget("x", "100%/4k", "T") == 4096
    assert token_budget("x", "0.01%/1k", "T") == 1  # never a zero budget
    with pytest.raises(ValueError, match=r"T must be a whole number >= 1, got None"):
        token_budget("x", None, "T")


# ------------------------------------------------------------------ LogView turns


def make_log(items):
    log = RawLog(get_token_counter())
    log.extend([dict(item) for item in items])
    return log


def test_turn_bounds_and_per_turn_tokens():
    items = [{"role": "developer", "content": "Be brief."}, user("q1"), call("c1"),
             output("c1", "long result " * 20), assistant("a1"), user("q2"), assistant("a2")]
    log = make_log(items)
    assert log.turn_bounds(1) == (1, 5) and log.turn_bounds(2) == (5, 7)
    assert log.turn_bounds(-1) == (5, 7) and log.turn_bounds(-2) == (1, 5)
    assert log.turn_tokens(1) == log.tokens_between(1, 5) == sum(log.tokens(i) for i in range(1, 5))
    assert log.turn_tokens(-1) == log.tokens(5) + log.tokens(6)
    assert log.turn_tokens(1) > log.turn_tokens(2)
    for turn in (1, 2):  # turn_of and turn_bounds agree on every item
        start, end = log.turn_bounds(turn)
        assert {log.turn_of(i) for i in range(start, end)} == {turn}


@pytest.mark.parametrize("turn", [0, 3, -3, 1.0, True, "1"])
def test_turn_bounds_outside_the_log_name_the_range(turn):
    log = make_log([user("q1"), assistant("a1"), user("q2")])
    with pytest.raises(ValueError, match=r"turn must be 1\.\.2 \(or -1\.\.-2 from the newest\)"):
        log.turn_bounds(turn)


def test_turn_bounds_of_a_log_without_turns():
    log = make_log([{"role": "developer", "content": "Be brief."}])
    with pytest.raises(ValueError, match="the log has no turns, got turn 1"):
        log.turn_bounds(1)

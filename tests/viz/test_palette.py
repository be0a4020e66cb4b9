"""The strategy palette: one style per strategy, the same for its spec and its label, in
every plot, and never a state or section colour."""

from __future__ import annotations

import itertools

import pytest

from ctxlab import STATE_COLORS
from ctxlab.viz.palette import (
    SECTION_COLORS,
    STRATEGY_FAMILIES,
    StrategyStyle,
    color_distance,
    family_color,
    family_shade,
    strategy_key,
    strategy_style,
)

RESERVED = {*STATE_COLORS.values(), *SECTION_COLORS.values()}

#: Names as the lessons and the evaluation spell them, with their family.
FAMILIES = {
    "full": "full", "full history": "full",
    "trim:8": "trim", "trim 8": "trim", "trim 3 turns": "trim", "trim:4+state": "trim",
    "trim 4 + recall": "trim", "trim:8/4": "trim", "trim 8 step 4": "trim",
    "trim:8@4000": "trim",
    "summarize:2/4": "summarize", "summarize 2/3": "summarize",
    "firstlast:1/4": "firstlast", "first 1 + last 4": "firstlast",
    "full+budget:3000": "budget", "budget:3000": "budget", "budget 2,500": "budget",
    "full history + budget 3000": "budget",
    "with compaction": "compact",
    "my own memory": "other",
}


@pytest.mark.parametrize(("name", "family"), sorted(FAMILIES.items()))
def test_each_name_falls_in_its_family(name, family):
    assert strategy_key(name).family == family


@pytest.mark.parametrize(("spec", "label"), [
    ("full", "full history"),
    ("trim:8", "trim 8"),
    ("trim:3", "trim 3 turns"),
    ("trim:4+state", "trim 4 + state"),
    ("trim:4+recall", "trim 4 + recall"),
    ("trim:8/4", "trim 8 step 4"),
    ("trim:8@4000", "trim 8 ≤4000 tok"),
    ("summarize:2/4", "summarize 2/4"),
    ("firstlast:1/4", "first 1 + last 4"),
    ("full+budget:3000", "full history + budget 3000"),
    ("budget:2500", "budget 2,500"),
])
def test_a_spec_and_its_label_look_the_same(spec, label):
    assert strategy_style(spec) == strategy_style(label)


def test_the_style_depends_on_the_name_only():
    names = list(FAMILIES)
    first = [strategy_style(n) for n in names]
    again = [strategy_style(n) for n in reversed(names)][::-1]
    assert first == again
    color, linestyle, marker = strategy_style("trim 3")  # unpacks like a tuple
    assert isinstance(strategy_style("trim 3"), StrategyStyle)
    assert (color, linestyle, marker) == ("#D77474", ":", "o")  # fixed across releases


def test_strategy_colours_are_never_state_or_section_colours():
    for name in FAMILIES:
        color = strategy_style(name).color
        assert color not in RESERVED
        assert min(color_distance(color, r) for r in RESERVED) >= 20, name
    for family in STRATEGY_FAMILIES:
        for size in (0.0, 0.25, 0.5, 0.75, 1.0):
            color = family_shade(family, size)
            assert min(color_distance(color, r) for r in RESERVED) >= 25, (family, size)


def test_families_are_told_apart_at_every_shade():
    sizes = (0.0, 0.25, 0.5, 0.75, 1.0)
    for a, b in itertools.combinations(STRATEGY_FAMILIES, 2):
        closest = min(color_distance(family_shade(a, s), family_shade(b, t))
                      for s in sizes for t in sizes)
        assert closest >= 25, (a, b)


def test_variants_of_a_family_share_the_hue_and_differ_in_style():
    trims = ["trim 3", "trim 8", "trim 4 + state", "trim 4 + recall", "trim:8/4"]
    styles = [strategy_style(n) for n in trims]
    assert len(set(styles)) == len(styles)
    assert strategy_style("trim 8").linestyle != strategy_style("trim 3").linestyle
    # more memory is darker: trim 8 is darker than trim 3, budget 6000 than budget 2000
    def lightness(name: str) -> float:
        return color_distance(strategy_style(name).color, "#000000")

    assert lightness("trim 8") < lightness("trim 3")
    assert lightness("budget:6000") < lightness("budget:2000")
    assert strategy_style("trim:4+state").marker == "s"
    assert strategy_style("trim:4+recall").marker == "^"
    assert strategy_style("trim:8/4").marker != strategy_style("trim:8").marker
    assert strategy_style("trim:4+state").hatch != strategy_style("trim:4+recall").hatch
    # every family keeps its hue: a variant is closer to its family than to any other
    for name in ("trim 2", "trim 12", "summarize 1/10", "firstlast:2/6", "budget:1200"):
        family = strategy_key(name).family
        color = strategy_style(name).color
        own = min(color_distance(color, c) for c in STRATEGY_FAMILIES[family])
        others = min(color_distance(color, c) for f, pair in STRATEGY_FAMILIES.items()
                     if f != family for c in pair)
        assert own < others, name


def test_the_lessons_line_ups_get_distinct_styles():
    line_ups = [
        ["full history", "trim 8 turns", "trim 3 turns"],  # lesson 02
        ["full history", "trim 3 turns", "summarize 2/3"],  # lesson 03
        ["full history", "budget 2,500"], ["full history", "with compaction"],  # lesson 04
        ["full", "trim:8", "summarize:2/4", "full+budget:3000", "trim:4+state",
         "trim:4+recall"],  # lesson 06
        ["full", "trim:4", "trim:8", "trim:8/4", "trim:8/2"],  # prompt caching
    ]
    for names in line_ups:
        assert len({strategy_style(n) for n in names}) == len(names), names


def test_unknown_names_are_stable_and_bad_names_are_refused():
    assert strategy_style("my own memory") == strategy_style("My  own memory")
    assert strategy_key("my own memory").family == "other"
    with pytest.raises(ValueError, match="non-empty string"):
        strategy_style("  ")
    with pytest.raises(ValueError, match="unknown strategy family 'nope'"):
        family_color("nope")
    with pytest.raises(ValueError, match="size must be between 0 and 1"):
        family_shade("trim", 1.5)
    assert family_color("trim") == STRATEGY_FAMILIES["trim"][0]


#: Pairs the lessons draw side by side that learners found hard to tell apart, with the
#: colour distance (CIE76) each must keep. The first edition's values, kept below as the
#: broken variant, fail them.
DISTINCT_PAIRS = {
    ("full", "trim:8"): 50.0,  # a dark wine next to charcoal, both solid lines with circles
    ("trim:4+state", "trim:4+recall"): 15.0,  # were one colour, told apart by marker only
    ("trim:8", "trim:3"): 20.0,
    ("trim:8", "trim:4+state"): 15.0,  # lesson 06 draws all three trims together
    ("trim:8", "trim:4+recall"): 15.0,
}
FIRST_EDITION_TRIM = ("#5C0F1E", "#CC5A66")


def _pair_distances() -> dict[tuple[str, str], float]:
    return {pair: color_distance(strategy_style(pair[0]).color, strategy_style(pair[1]).color)
            for pair in DISTINCT_PAIRS}


def test_strategies_drawn_together_differ_in_colour(monkeypatch: pytest.MonkeyPatch):
    distances = _pair_distances()
    for pair, least in DISTINCT_PAIRS.items():
        assert distances[pair] >= least, (pair, round(distances[pair], 1))
    # the same test on the first edition's colours: it fails, so it can catch a regression
    import ctxlab.viz.palette as palette

    monkeypatch.setitem(palette.STRATEGY_FAMILIES, "trim", FIRST_EDITION_TRIM)
    monkeypatch.setattr(palette, "MODIFIER_SHADES", {})
    old = _pair_distances()
    failing = {pair for pair, least in DISTINCT_PAIRS.items() if old[pair] < least}
    assert {("full", "trim:8"), ("trim:4+state", "trim:4+recall")} <= failing, old

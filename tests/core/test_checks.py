"""The argument checks shared by the registries (``register_strategy``, ``register_component``,
``register_store``): one wording, and nothing registered when a check fails."""

from __future__ import annotations

import pytest

from ctxlab.core.checks import check_registration
from ctxlab.sessions.strategies import register_strategy, strategies
from ctxlab.stores.registry import register_store, store_adapters


@pytest.mark.parametrize(("value", "name", "taken", "replace", "label", "message"), [
    (3, "x", set(), False, None, "expected a str, got int"),
    ("s", "Bad Name", set(), False, "thing name", "thing name 'Bad Name' must be a lowercase"),
    ("s", "Bad Name", set(), False, None, None),  # no name rule without a label
    ("s", "taken", {"taken"}, False, "thing name",
     "a thing named 'taken' is already registered; pass replace=True"),
    ("s", "taken", {"taken"}, True, "thing name", None),
    ("s", "free", {"taken"}, False, "thing name", None),
])
def test_a_registration_is_refused_with_what_is_wrong(value, name, taken, replace, label,
                                                      message):
    def check():
        check_registration(value, str, noun="thing", name=name, taken=taken, replace=replace,
                           name_label=label)

    if message is None:
        check()
    else:
        with pytest.raises(ValueError, match=message):
            check()


def test_the_registries_refuse_and_keep_what_they_had():
    before_strategies = {s.name: s for s in strategies()}
    before_stores = [a.name for a in store_adapters()]
    with pytest.raises(ValueError, match="expected a StrategySpec, got str"):
        register_strategy("trim")
    spec = before_strategies["trim"]
    with pytest.raises(ValueError, match="a strategy named 'trim' is already registered"):
        register_strategy(spec)
    with pytest.raises(ValueError, match="expected a StoreAdapter, got dict"):
        register_store({"name": "x"})
    with pytest.raises(ValueError, match="a store adapter named 'sqlite' is already"):
        register_store(next(a for a in store_adapters() if a.name == "sqlite"))
    assert {s.name: s for s in strategies()} == before_strategies
    assert [a.name for a in store_adapters()] == before_stores

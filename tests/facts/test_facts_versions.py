"""A bare version is the device's firmware unless the words before it name another
component (a driver, an app, an OS, a service in a trace); a labelled one always is."""

from __future__ import annotations

import pytest

from ctxlab.facts.typed import ALL_FACT_KINDS, facts_in_text


def firmware(text: str) -> list[str]:
    return [f.value for f in facts_in_text(text, kinds=ALL_FACT_KINDS) if f.kind == "firmware"]


@pytest.mark.parametrize("text", [
    "rule-engine v3.2 evaluated 57 rules",
    "req=7f3a2c policy-svc v1.4 cache=miss",
    "I installed the new driver v3.1 yesterday.",
    "The app v5.2.1 crashes on start.",
    "My phone runs iOS v17.1.",
    "驱动v2.1装好了",
    "规则引擎 v3.2 处理了 57 条规则",
    "手机App v5.2还是闪退",
])
def test_a_version_of_another_component_is_not_firmware(text):
    assert firmware(text) == []


@pytest.mark.parametrize(("text", "value"), [
    ("I'm on v2.4.7 now.", "v2.4.7"),
    ('{"serial": "J9WZ8GN7NMWX", "firmware": "v4.1.6"}', "v4.1.6"),
    ("It upgraded itself to v4.2.0 overnight.", "v4.2.0"),
    ("Aurora 14 v1.0.3", "v1.0.3"),
    ("driver firmware v1.0.9", "v1.0.9"),
    ("固件已经升级到了v2.1.0", "v2.1.0"),
    ("现在是v3.0.3", "v3.0.3"),
])
def test_a_bare_or_labelled_device_version_is_firmware(text, value):
    assert firmware(text) == [value]


def test_the_component_rule_only_looks_at_the_words_right_before_the_value():
    text = "The driver was fine. Firmware is now v2.0.1, and later I saw v2.0.2."
    assert firmware(text) == ["v2.0.1", "v2.0.2"]

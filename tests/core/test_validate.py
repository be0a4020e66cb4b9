"""The validator reports every way the API would reject a sequence; repair and safe_cut."""

from __future__ import annotations

import pytest

from ctxlab import InvalidSequenceError, assert_valid, is_valid, repair, safe_cut, validate_items

from conftest import assistant, call, output, reasoning, user


def codes(items):
    return [(p.index, p.code) for p in validate_items(items)]


def test_valid_sequence_has_no_problems():
    items = [user("q"), reasoning("rs"), call("c1"), call("c2"), output("c2"), output("c1"),
             assistant("a")]
    assert validate_items(items) == []
    assert is_valid(items)
    assert_valid(items)


def test_orphan_output():
    assert codes([user("q"), output("c9"), assistant("a")]) == [(1, "orphan_output")]


def test_output_before_its_call_is_an_orphan_and_the_call_is_open():
    assert codes([user("q"), output("c1"), call("c1")]) == [
        (1, "orphan_output"), (2, "call_without_output")]


def test_call_without_output():
    assert codes([user("q"), call("c1"), assistant("a")]) == [(1, "call_without_output")]


def test_reasoning_without_follower():
    assert codes([user("q"), reasoning("r")]) == [(1, "reasoning_without_follower")]
    assert codes([user("q"), reasoning("r"), user("again")]) == [
        (1, "reasoning_without_follower")]
    assert codes([user("q"), reasoning("r"), output("c")]) == [
        (1, "reasoning_without_follower"), (2, "orphan_output")]
    # consecutive reasoning items share the follower
    assert codes([user("q"), reasoning("r1"), reasoning("r2"), assistant("a")]) == []


def test_unknown_keys_and_bad_items():
    items = [{"role": "user", "content": "x", "metadata": {"a": 1}}, 42]
    assert codes(items) == [(0, "unknown_keys"), (1, "bad_item")]
    problems = validate_items(items)
    assert "'metadata'" in problems[0].message
    assert validate_items(items[:1], check_keys=False) == []


def test_duplicate_call_id_while_waiting():
    found = codes([user("q"), call("c1"), call("c1"), output("c1")])
    assert (2, "duplicate_call_id") in found and (1, "call_without_output") in found


def test_assert_valid_lists_every_problem():
    with pytest.raises(InvalidSequenceError) as err:
        assert_valid([output("x"), call("y"), reasoning("r")])
    assert len(err.value.problems) == 3
    assert "orphan_output" in str(err.value) and "call_without_output" in str(err.value)


def test_repair_removes_what_the_validator_reports():
    items = [user("q"), reasoning("r1"), call("c1"), output("c0"), user("u"), assistant("a")]
    dropped = repair(items)
    assert sorted(dropped) == [1, 2, 3]  # open call, its reasoning, the orphan
    kept = [it for i, it in enumerate(items) if i not in dropped]
    assert is_valid(kept)


def test_safe_cut_never_splits_a_pair_or_reasoning():
    items = [user("q"), reasoning("r"), call("a"), call("b"), output("a"), output("b"),
             assistant("x")]
    assert safe_cut(items, 0) == 0
    assert safe_cut(items, 1) == 1
    assert safe_cut(items, 2) == 6  # 2: reasoning before; 3..5: pairs open
    assert safe_cut(items, 7) == 7
    assert safe_cut(items, 99) == 7

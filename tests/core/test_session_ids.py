"""Session ids: fresh UUID4s, and clear errors for ids unsafe as storage keys."""

from __future__ import annotations

import uuid

import pytest
from agents import SQLiteSession

from ctxlab import TrimmingSession
from ctxlab.core.session_ids import (
    MAX_SESSION_ID_LENGTH,
    InvalidSessionIdError,
    check_session_id,
    new_session_id,
)


def test_new_session_ids_are_uuid4_and_safe():
    ids = {new_session_id() for _ in range(200)}
    assert len(ids) == 200
    for value in ids:
        assert uuid.UUID(value).version == 4
        assert check_session_id(value) == value


@pytest.mark.parametrize(
    "bad, fragment",
    [
        ("", "must not be empty"),
        (None, "must be a string, got NoneType"),
        (42, "must be a string, got int"),
        ("x" * (MAX_SESSION_ID_LENGTH + 1), f"at most {MAX_SESSION_ID_LENGTH} are allowed"),
        ("alice:messages", "unsafe in storage keys and file names: ':'"),
        ("../etc/passwd", "'/'"),
        ("a b", "' '"),
        ("tab\there", "'\\t'"),
        ("user*", "'*'"),
        ("日本", "'日'"),
        (".hidden", "must not start with '.'"),
        ("-rf", "must not start with '-'"),
    ],
)
def test_unsafe_ids_are_rejected_with_a_reason(bad, fragment):
    with pytest.raises(InvalidSessionIdError, match="session_id") as err:
        check_session_id(bad)
    assert fragment in str(err.value)
    assert isinstance(err.value, ValueError)


def test_longest_allowed_id_and_every_allowed_character():
    assert check_session_id("a" * MAX_SESSION_ID_LENGTH)
    assert check_session_id("Az09_.-x{y}") == "Az09_.-x{y}"  # braces: RedisStore encodes them


def test_ids_used_as_store_keys_are_checked(tmp_path):
    with pytest.raises(InvalidSessionIdError, match="the store's session_id 'a:b'"):
        TrimmingSession(store=SQLiteSession("a:b", tmp_path / "x.db"))
    with pytest.raises(ValueError, match="does not match the store's session_id 'b'"):
        TrimmingSession("a", store=SQLiteSession("b", tmp_path / "x.db"))
    with pytest.raises(ValueError, match="store must be an Agents SDK session"):
        TrimmingSession("a", store="chat.db")  # type: ignore[arg-type]
    assert TrimmingSession(store=SQLiteSession("b", tmp_path / "x.db")).session_id == "b"

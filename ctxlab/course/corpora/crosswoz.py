"""CrossWOZ (Chinese, Apache-2.0) as :class:`~.dialogues.Dialogue`.

The package ships a subset of the validation split (``ctxlab/data/crosswoz``: 160 dialogues
and the license); :func:`load_crosswoz` reads it, or the full split from a directory holding
the upstream ``val.json.zip`` (or ``val.json``). The state after each user turn comes from
CrossWOZ's ``user_state``: one topic per sub-goal (``景点#1``, ``酒店#2``, ...), each slot
with the value the sub-goal holds at that point (the user's constraints, the venue chosen,
what the agent answered). Placeholders (``#CX``, ``id=2``), yes/no
answers and lists are not values.
"""

from __future__ import annotations

import gzip
import json
import zipfile
from collections.abc import Mapping
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from .dialogues import Dialogue, State, Turn

PACKAGED = ("data", "crosswoz")
#: Yes/no answers (a facility the user asked for): no value a dialogue can be asked back.
BOOLEAN = frozenset({"是", "否"})


def _value(value: Any) -> str | None:
    if not isinstance(value, str) or not value.strip() or value.startswith("#"):
        return None
    if "id=" in value or value in BOOLEAN:
        return None
    return value.strip()


def _state(user_state: list[list[Any]]) -> State:
    state: dict[str, dict[str, tuple[str, ...]]] = {}
    for goal_id, domain, slot, value, _mentioned in user_state:
        text = _value(value)
        if text is not None:
            state.setdefault(f"{domain}#{goal_id}", {})[slot] = (text,)
    return state


def crosswoz_dialogue(task_id: str, raw: Mapping[str, Any]) -> Dialogue:
    """One upstream CrossWOZ record (``val.json[task_id]``) as a :class:`Dialogue`."""
    try:
        turns = tuple(
            Turn("user" if m["role"] == "usr" else "agent", m["content"],
                 _state(m.get("user_state", [])) if m["role"] == "usr" else None)
            for m in raw["messages"])
        topics = tuple(dict.fromkeys(f"{g[1]}#{g[0]}" for g in raw.get("goal", [])))
        return Dialogue(str(task_id), "crosswoz", "zh", turns, topics,
                        {"type": raw.get("type", "")})
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"crosswoz_dialogue: not a CrossWOZ record ({exc!r})") from None


def _read_split(directory: Path) -> dict[str, Any]:
    if (directory / "val.json").exists():
        return json.loads((directory / "val.json").read_text(encoding="utf-8"))
    archive = directory / "val.json.zip"
    if not archive.exists():
        raise FileNotFoundError(f"load_crosswoz: no val.json or val.json.zip in {directory}")
    with zipfile.ZipFile(archive) as zf:
        return json.loads(zf.read("val.json").decode("utf-8"))


@lru_cache(maxsize=4)
def _load(directory: str | None) -> tuple[Dialogue, ...]:
    if directory is None:
        raw = resources.files("ctxlab").joinpath(*PACKAGED, "dialogues.json.gz").read_bytes()
        records = json.loads(gzip.decompress(raw).decode("utf-8"))
    else:
        records = _read_split(Path(directory))
    return tuple(crosswoz_dialogue(k, v) for k, v in records.items())


def load_crosswoz(directory: str | Path | None = None) -> list[Dialogue]:
    """The packaged CrossWOZ subset, or the validation split in ``directory``."""
    return list(_load(None if directory is None else str(Path(directory))))

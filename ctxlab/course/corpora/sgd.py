"""Schema-Guided Dialogue (SGD, English, CC BY-SA 4.0) as :class:`~.dialogues.Dialogue`.

The package ships a subset of the dev split (``ctxlab/data/sgd``: 160 dialogues, the dev
schema and the license); :func:`load_sgd` reads it, or the full split from a directory that
holds the upstream ``dev_dialogues_*.json(.gz)`` files and ``dev_schema.json``. Each user
turn carries the state after it: ``{service: {slot: (surface form, ...)}}``.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Mapping
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from .dialogues import Dialogue, State, Turn

PACKAGED = ("data", "sgd")


def _packaged_bytes(name: str) -> bytes:
    return resources.files("ctxlab").joinpath(*PACKAGED, name).read_bytes()


def _json(raw: bytes, name: str) -> Any:
    if name.endswith(".gz"):
        raw = gzip.decompress(raw)
    return json.loads(raw.decode("utf-8"))


def _state(frames: list[Mapping[str, Any]]) -> State | None:
    states = {f["service"]: f["state"]["slot_values"] for f in frames if "state" in f}
    if not states:
        return None
    return {svc: {slot: tuple(v) for slot, v in slots.items()} for svc, slots in states.items()}


def _asks(frames: list[Mapping[str, Any]]) -> tuple[str, ...]:
    """The services a user turn asks something of: it requests one of their slots
    ("What's their address?") or states one of their intents ("check my balance")."""
    return tuple(f["service"] for f in frames if f.get("state", {}).get("requested_slots")
                 or any(a.get("act") == "INFORM_INTENT" for a in f.get("actions", [])))


def sgd_dialogue(raw: Mapping[str, Any]) -> Dialogue:
    """One upstream SGD dialogue record as a :class:`Dialogue`."""
    try:
        turns = tuple(
            Turn("user", t["utterance"], _state(t.get("frames", [])), _asks(t.get("frames", [])))
            if t["speaker"] == "USER" else Turn("agent", t["utterance"])
            for t in raw["turns"])
        return Dialogue(str(raw["dialogue_id"]), "sgd", "en", turns, tuple(raw["services"]))
    except (KeyError, TypeError) as exc:
        raise ValueError(f"sgd_dialogue: not an SGD dialogue record (missing {exc})") from None


@lru_cache(maxsize=4)
def _load(directory: str | None) -> tuple[Dialogue, ...]:
    if directory is None:
        records = _json(_packaged_bytes("dialogues.json.gz"), "dialogues.json.gz")
    else:
        files = sorted(Path(directory).glob("dev_dialogues_*.json*"))
        if not files:
            raise FileNotFoundError(f"load_sgd: no dev_dialogues_*.json(.gz) in {directory}")
        records = [r for p in files for r in _json(p.read_bytes(), p.name)]
    return tuple(sgd_dialogue(r) for r in records)


def load_sgd(directory: str | Path | None = None) -> list[Dialogue]:
    """The packaged SGD subset, or every dialogue of the upstream files in ``directory``."""
    return list(_load(None if directory is None else str(Path(directory))))


def load_sgd_schema(directory: str | Path | None = None) -> list[dict[str, Any]]:
    """SGD's schema (services, their slots and intents): packaged, or ``dev_schema.json``
    from ``directory``."""
    if directory is None:
        return _json(_packaged_bytes("schema.json"), "schema.json")
    return _json((Path(directory) / "dev_schema.json").read_bytes(), "dev_schema.json")

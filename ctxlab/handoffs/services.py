"""Services (topics) from a schema: what tells a customer's turn which service it is about.

A customer who books a table, then asks for a taxi to the restaurant, has two issues, and
neither is a device. :class:`ServiceSchema` reads the services a deployment offers from
its schema (SGD's ``schema.json``: services with a description, intents and slots; the
CrossWOZ domain schema the package ships; or a plain ``{service: [slot, ...]}`` dict) and
finds, in a message, the services it asks for:

* **cue words** (also said with "-ing"/"-ed": "staying" is "stay") come from each
  service's name, description, intents and ``keywords``
  (``RentalCars_1``: rental, car, ...; ``酒店``: 酒店, 宾馆, 住宿); a word several services
  share counts for each of them by ``1 / (services sharing it)``, so "find" or "book"
  decide nothing and "restaurant" decides a lot;
* **slot words** ("phone number", "address", 电话, 周边餐馆) name what is asked *about* a
  service. They never open a service: "What's their phone number?" asks about the current
  one. A slot phrase that contains another service's cue (景点的"周边餐馆") is masked
  before cues are counted, also with words between and in other words for "around"
  ("附近有什么好吃的", :data:`NEARBY_ZH`): a question about the venue's surroundings.

Variants of one service (``Hotels_1``, ``Hotels_4``) are one service (``Hotels``): a
customer's words cannot tell them apart.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

#: Words that say nothing about which service a message is about.
STOP_WORDS = frozenset("""
a an the of to for in on at by and or with from your you user users my me i it its is are be
this that these those any some all given based according particular certain new selected
one way favorite choice near wide widest popular definitive comprehensive biggest best
service services provider portal database easily manage make get set find search look
discover browse check call use used using optional optionally lowest prices selection range
add already another available book booking buy calling category condition content country
coverage demand destination device extensive finding getting has head interest listening
lookup network number pair place price reservation reserve reserving right round searching
seat schedule scheduling setting sharing them ticket trip widely wish point location date
city visit oneway rent home travel genre director actor
""".split())  # noqa: SIM905


#: Words of a slot name that make it a place ("city", "pickup location", "destination").
PLACE_WORDS = frozenset({"city", "location", "area", "destination", "place"})

#: Words of a slot name that make it a city or an area ("pickup city", "location").
CITY_WORDS = frozenset({"city", "location", "area"})

#: Words of a slot name that make it where a trip starts ("origin city", "from location").
ORIGIN_WORDS = frozenset({"origin", "from", "departure", "source"})


def stem(word: str) -> str:
    """A crude English stem: lower case, plural endings off ("restaurants" -> "restaurant",
    "buses" -> "bus", "movies" -> "movie")."""
    word = word.lower()
    if len(word) > 4 and word.endswith("ies"):
        return word[:-1]
    if len(word) > 4 and word.endswith(("ses", "xes", "ches", "shes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def _forms(word: str) -> list[str]:
    """``word`` (lower case) as a cue may have it: its :func:`stem`, then without "-ing"
    or "-ed" ("staying" -> "stay", "rented" -> "rent", "dining" -> "dine")."""
    out = [stem(word)]
    for end in ("ing", "ed"):
        if len(word) > len(end) + 2 and word.endswith(end):
            base = word[: -len(end)]
            out += [base, base + "e", base[:-1] if base[-1:] == base[-2:-1] else base]
    return out


def _words(text: str) -> list[str]:
    """Latin words of ``text`` (CamelCase and snake_case split), stemmed, stop words out."""
    spaced = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", text).replace("_", " ")
    return [stem(w) for w in re.findall(r"[A-Za-z]+", spaced)
            if len(w) > 1 and stem(w) not in STOP_WORDS]


def _cjk_terms(text: str) -> list[str]:
    return [t for t in re.split(r"[^\u4e00-\u9fff]+", text) if t]


@dataclass(frozen=True)
class Service:
    """One service: its ``name`` (variants merged), cue words, slot phrases and the values
    its categorical slots take (SGD's ``possible_values``: an event's category "Music", an
    account type "savings"): they say what a turn is *about* ("a rock concert with music"
    during an event search is about the event; :meth:`ServiceSchema.value_scores`)."""

    name: str
    cues: tuple[str, ...]
    slots: tuple[str, ...]
    values: tuple[str, ...] = ()  # what a categorical slot takes ("Music", "First Class")


@dataclass(frozen=True)
class ServiceSchema:
    """The services a schema offers (see the module docstring)."""

    services: tuple[Service, ...]

    def __post_init__(self) -> None:
        if not self.services:
            raise ValueError("ServiceSchema: a schema needs at least one service")

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(s.name for s in self.services)

    def service(self, name: str) -> Service:
        for s in self.services:
            if s.name == name:
                return s
        raise KeyError(f"no service {name!r} in this schema (services: {', '.join(self.names)})")

    @property
    def weights(self) -> dict[str, dict[str, float]]:
        """cue -> {service: weight}: 1 / the number of services that share the cue."""
        return _weights(self)

    def masked(self, text: str) -> str:
        """``text`` without the slot phrases that contain another service's cue (so
        "景点周边餐馆" asks about the attraction, not for a restaurant)."""
        return _masker(self).sub(" ", text) if _masker(self).pattern else text

    def around(self, text: str) -> list[str]:
        """The services ``text`` asks about around a venue ("附近有什么好吃的餐馆": 餐馆),
        each once, in order: the service of each masked phrase's last cue."""
        pattern = _cjk_pattern(self)
        if pattern is None or not _masker(self).pattern:
            return []
        out = []
        for phrase in _masker(self).finditer(text):
            cues = [m.group(0) for m in pattern.finditer(phrase.group(0))]
            if cues and len(self.weights[cues[-1]]) == 1:
                out.append(next(iter(self.weights[cues[-1]])))
        return list(dict.fromkeys(out))

    def scores(self, text: str) -> dict[str, float]:
        """Per service, the weight of its cues in ``text`` (services with none left out)."""
        return {name: score for name, (score, _at) in self.cues_in(text).items()}

    def cues_in(self, text: str, among: Sequence[str] = (),
                current: str | None = None) -> dict[str, tuple[float, int]]:
        """Per service: the weight of its cues in ``text`` and where its last cue ends.
        ``among``: services under way; a cue they share with others counts for them only
        ("the tickets" during an event search is the event's, not a flight's).
        ``current``: the service being talked about; a cue that is one of its slot words
        counts for it only ("0 transfers?" during a bus search is the bus's)."""
        text = self.masked(text).lower()
        weights = self.weights
        found: dict[str, int] = {}
        for match in re.finditer(r"[a-z]+", text):
            word = next((w for w in _forms(match.group(0)) if w in weights), None)
            if word is not None:
                found[word] = match.end()
        pattern = _cjk_pattern(self)
        if pattern is not None:  # longest cue first, no overlaps: "游玩" is not also "玩"
            for match in pattern.finditer(text):
                found[match.group(0)] = match.end()
        out: dict[str, tuple[float, int]] = {}
        for cue, end in found.items():
            owners = weights[cue]
            if current is not None and current in _slot_owners(self).get(cue, ()):
                owners = {current: 1.0}
            elif len(owners) > 1 and (mine := [n for n in owners if n in among]):
                owners = {n: 1.0 / len(mine) for n in mine}
            for name, weight in owners.items():
                score, last = out.get(name, (0.0, -1))
                out[name] = (score + weight, max(last, end))
        return out

    def slot_scores(self, text: str) -> dict[str, float]:
        """Per service, the weight of its slot words in ``text`` (1 / services sharing
        the word): what a turn asks about, which never opens a service on its own."""
        owners = _slot_owners(self)
        lowered = text.lower()
        found = {w for w in _words(text) if w in owners}
        found |= {w for w in owners if not w.isascii() and w in lowered}
        scores: dict[str, float] = {}
        for word in sorted(found):  # sorted: the same order (and ties) in every process
            for name in owners[word]:
                scores[name] = scores.get(name, 0.0) + 1.0 / len(owners[word])
        return scores

    def value_scores(self, text: str) -> dict[str, float]:
        """Per service, the weight of its categorical values that ``text`` names, each
        value as a whole ("a music event": Events' category; "first thing tomorrow" is
        not "First Class"): like slot words, they say what a turn is about."""
        scores: dict[str, float] = {}
        for pattern, names in _value_owners(self):
            if pattern.search(text):
                for name in names:
                    scores[name] = scores.get(name, 0.0) + 1.0 / len(names)
        return scores

    def asks_place(self, service: str) -> bool:
        """Whether ``service`` has a slot for a place (a city, a location, an area, a
        destination), by the slot names' words."""
        return self._slot_named(service, PLACE_WORDS)

    def asks_city(self, service: str) -> bool:
        """Whether ``service`` has a slot for a city or an area ("city", "area",
        "location"), not only for an address to go to ("destination")."""
        return self._slot_named(service, CITY_WORDS)

    def leaves_from(self, service: str) -> bool:
        """Whether ``service`` is a trip with a slot for where it starts ("origin city",
        "from location", "出发地"): "from Fresno" is then its origin, not where it is."""
        return self._slot_named(service, ORIGIN_WORDS) or any(
            "出发" in slot for slot in self.service(service).slots)

    def picks_up(self, service: str) -> bool:
        """Whether ``service`` is taken somewhere (a "pickup location": a rental car), so
        "from NYC" says where it is, not where the customer comes from."""
        return self._slot_named(service, frozenset({"pickup"}))

    def _slot_named(self, service: str, words: frozenset[str]) -> bool:
        """Whether a slot name of ``service`` holds one of ``words``."""
        return any(set(re.findall(r"[a-z]+", slot.lower())) & words
                   for slot in self.service(service).slots)

    def slots_in(self, text: str, service: str) -> list[str]:
        """The slot phrases of ``service`` that ``text`` names."""
        lowered = text.lower()
        words = set(_words(text))
        return [slot for slot in self.service(service).slots
                if (all(w in words for w in _words(slot)) if slot.isascii()
                    else slot in lowered)]


#: Words for "around" in a slot phrase such as "周边餐馆" (the venue's surroundings).
NEARBY_ZH = ("周边", "附近", "周围", "旁边", "边上", "就近", "周遭")


@lru_cache(maxsize=16)
def _weights(schema: ServiceSchema) -> dict[str, dict[str, float]]:
    owners: dict[str, dict[str, None]] = {}  # a dict, not a set: the schema's order
    for service in schema.services:
        for cue in service.cues:
            owners.setdefault(cue, {})[service.name] = None
    return {cue: {name: 1.0 / len(names) for name in names} for cue, names in owners.items()}


@lru_cache(maxsize=16)
def _slot_owners(schema: ServiceSchema) -> dict[str, dict[str, None]]:
    owners: dict[str, dict[str, None]] = {}  # a dict, not a set: the schema's order
    for service in schema.services:
        for slot in service.slots:
            for word in (_words(slot) if slot.isascii() else [slot]):
                owners.setdefault(word, {})[service.name] = None
    return owners


@lru_cache(maxsize=16)
def _value_owners(schema: ServiceSchema) -> tuple[tuple[re.Pattern[str], tuple[str, ...]], ...]:
    """Per categorical value (compiled once: a whole phrase, a plural allowed), the
    services that take it."""
    owners: dict[str, dict[str, None]] = {}  # a dict, not a set: the schema's order
    for service in schema.services:
        for value in service.values:
            owners.setdefault(value.lower(), {})[service.name] = None
    return tuple((re.compile(r"(?<![\w-])" + re.escape(value) + r"s?(?![\w-])", re.IGNORECASE),
                  tuple(names)) for value, names in sorted(owners.items()))


@lru_cache(maxsize=16)
def _cjk_cues(schema: ServiceSchema) -> tuple[str, ...]:
    return tuple(c for c in _weights(schema) if not c.isascii())


@lru_cache(maxsize=16)
def _cjk_pattern(schema: ServiceSchema) -> re.Pattern[str] | None:
    cues = sorted(_cjk_cues(schema), key=len, reverse=True)
    return re.compile("|".join(re.escape(c) for c in cues)) if cues else None


@lru_cache(maxsize=16)
def _masker(schema: ServiceSchema) -> re.Pattern[str]:
    cues = {s.name: set(s.cues) for s in schema.services}
    masked = []
    for service in schema.services:
        others = set().union(*(c for n, c in cues.items() if n != service.name))
        for slot in service.slots:  # CJK slot phrases longer than the cue they contain
            if not slot.isascii() and any(not c.isascii() and c in slot and c != slot
                                          for c in others):
                masked.append(slot)
    masked.sort(key=len, reverse=True)
    kins = _gapped(schema, masked)
    # one greedy gap per prefix: "附近有什么好吃的餐馆" to its last cue, not to "好吃"
    parts = [re.escape(p) + r"[^，。？！,.?!]{0,8}(?:" + "|".join(
        re.escape(c) for c in sorted(kins[p], key=lambda c: (-len(c), c))) + ")"
        for p in sorted(kins, key=lambda p: (-len(p), p))]
    parts += [re.escape(m) for m in masked]
    return re.compile("|".join(parts), re.IGNORECASE)


def _gapped(schema: ServiceSchema, masked: Sequence[str]) -> dict[str, set[str]]:
    """Per slot-phrase prefix ("周边"), the cues that may end it with words between:
    "周边餐馆" also as "周边有哪些餐馆", in other words for "around" ("附近有什么好吃的",
    "旁边有可玩的景点吗") and with any cue of the service it names (a question about the
    venue's surroundings)."""
    kins: dict[str, set[str]] = {}
    for m in masked:
        for cue in _cjk_cues(schema):
            prefix = m[: m.index(cue)] if m.endswith(cue) and m != cue else ""
            if not prefix:
                continue
            kin = {c for s in schema.services if cue in s.cues for c in s.cues
                   if not c.isascii()}
            for p in NEARBY_ZH if prefix in NEARBY_ZH else (prefix,):
                kins.setdefault(p, set()).update(kin)
    return kins


#: Categorical values that name no word of a service (flags and counts).
_NOT_WORDS = frozenset({"true", "false", "none", "dontcare"})


def _categories(raw: Mapping[str, Any]) -> list[str]:
    """The words a service's categorical slots take ("Music", "savings"), without flags
    and numbers."""
    return [str(v) for slot in raw.get("slots", []) if isinstance(slot, Mapping)
            and slot.get("is_categorical") for v in slot.get("possible_values", [])
            if re.search(r"[^\W\d_]", str(v)) and str(v).lower() not in _NOT_WORDS]


def _sgd_service(raw: Mapping[str, Any]) -> tuple[str, list[str], list[str]]:
    name = str(raw["service_name"]).split("_")[0]
    text = " ".join([name, str(raw.get("description", "")),
                     *(f"{i.get('name', '')} {i.get('description', '')}"
                       for i in raw.get("intents", []))])
    cues = _words(text) + _cjk_terms(name)
    cues += [k if not k.isascii() else stem(k) for k in raw.get("keywords", [])]
    slots = []
    for slot in raw.get("slots", []):
        label = str(slot["name"] if isinstance(slot, Mapping) else slot)
        slots.append(label.replace("_", " ").lower())
    return name, cues, slots


def service_schema(schema: Any) -> ServiceSchema:
    """A :class:`ServiceSchema` from: a ServiceSchema; an SGD-style list of services
    (``service_name``, ``description``, ``intents``, ``slots``, optional ``keywords``); a
    ``{service: [slot, ...]}`` dict (the service name is its cue); or a path to such JSON."""
    if isinstance(schema, ServiceSchema):
        return schema
    if isinstance(schema, (str, Path)):
        return service_schema(json.loads(Path(schema).read_text(encoding="utf-8")))
    merged: dict[str, tuple[list[str], list[str], list[str]]] = {}
    try:
        if isinstance(schema, Mapping):
            entries = [{"service_name": k, "slots": list(v)} for k, v in schema.items()]
        else:
            entries = list(schema)
        for raw in entries:
            name, cues, slots = _sgd_service(raw)
            have = merged.setdefault(name, ([], [], []))
            have[0].extend(cues)
            have[1].extend(slots)
            have[2].extend(_categories(raw))
    except (KeyError, TypeError, AttributeError) as exc:
        raise ValueError(f"service_schema: not a schema (a list of services with "
                         f"'service_name', or a {{service: [slots]}} dict): {exc!r}") from None
    return ServiceSchema(tuple(Service(n, tuple(dict.fromkeys(c)), tuple(dict.fromkeys(s)),
                                       tuple(dict.fromkeys(v)))
                               for n, (c, s, v) in merged.items()))


def packaged_schema(corpus: str) -> ServiceSchema:
    """The schema the package ships for ``corpus`` ("sgd" or "crosswoz"); SGD's upstream
    schema gets the words customers use for its services (``data/sgd/keywords.json``)."""
    if corpus not in ("sgd", "crosswoz"):
        raise ValueError(f"packaged_schema: expected 'sgd' or 'crosswoz', got {corpus!r}")
    return _packaged(corpus)


@lru_cache(maxsize=2)
def _packaged(corpus: str) -> ServiceSchema:
    folder = resources.files("ctxlab").joinpath("data", corpus)
    services = json.loads(folder.joinpath("schema.json").read_text("utf-8"))
    extra = folder.joinpath("keywords.json")
    if extra.is_file():  # customers' words per service, written for ctxlab (SGD)
        words = json.loads(extra.read_text("utf-8"))
        services = [{**s, "keywords": [*s.get("keywords", []),
                                       *words.get(str(s["service_name"]).split("_")[0], [])]}
                    for s in services]
    return service_schema(services)


def schema_of(services: Sequence[str], schema: ServiceSchema) -> ServiceSchema:
    """``schema`` narrowed to ``services`` (the ones a deployment offers)."""
    wanted = [s for s in schema.services if s.name in set(services)]
    return ServiceSchema(tuple(wanted))

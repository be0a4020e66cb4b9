"""Which service (topic) each turn of a task conversation belongs to, by a schema.

:func:`split_services` is :func:`~ctxlab.handoffs.issues.split_issues` with a schema
(:class:`~ctxlab.handoffs.services.ServiceSchema`): the issues are the services a customer
asks for (a table, then a taxi to it; 酒店, then 出租), not devices. Per user turn, by its
text and the agent's replies around it:

1. a turn whose cue words point to a service (:meth:`ServiceSchema.cues_in`, at least
   ``threshold``) opens an issue about it, or resumes the open issue of that service. The
   most cue weight decides; the current service's slot words count for it ("three bed
   rooms" in an apartment search, "0 transfers?" on a bus); a cue several services share
   counts for the ones under way ("the tickets" during an event search); a service word
   inside a name asks for nothing ("a psychiatrist in Menlo Park"); a tie goes to the
   service the agent's answer names ("a bus ride" -> "how many tickets?"), then to the one
   named last ("the hotel will work; can you check the weather there?": the weather). In
   English, a turn stays with the current service when the agent's answer goes on with it
   and says nothing of the other ("checking in" -> "1 room from March 10th?"). Asking for
   one more of a service whose issue is under way ("再推荐一个景点") opens a second issue
   of it. In Chinese, a question about what is around the current venue
   ("附近有什么好吃的餐馆吗") asks about it, not for a restaurant
   (:meth:`ServiceSchema.masked`), unless it sets a constraint ("周边有没有免费的景点", or
   "这几个里边有没有4.5分以上的" about the venues just listed around it): then it looks
   for one more of that service. A venue offered in one service's issue whose name holds
   another service's word ("北京前门建国饭店" offered as a hotel) counts for the service it
   was offered in when named again. A journey from one place to another
   ("从饭店坐地铁到酒店") asks for the ride (a service with an origin slot: 地铁, 出租),
   not for the venues at its ends;
2. a short yes to the agent's offer ("Yes, please." or "Could you do so?" after "Shall I
   book a taxi?") takes the service the offer's question named (not one its statements
   named: "Okay." after "There are 0 transfers." is not about a bank);
3. a turn that names a value first said in another open issue's turns (a restaurant's
   name) resumes that issue when no cue decides (an issue closed by a goodbye stays
   closed: the same city on another day is another booking);
4. any other turn stays with the current issue: "What's their phone number?" names a
   slot, not a service;
5. a goodbye that asks nothing ("That's all I need", "就这些"), or a thank-you that also
   names no service ("Thanks a lot!", "好的，谢谢"), closes every issue: the same service
   asked for afterwards is a new issue (another day, another booking). Turns after it
   that name no service wait for the next issue ("I'm looking for a place in Concord"
   before "an apartment" is said); slot words alone may place them ("four seats next
   friday toronto": a flight). A thank-you the agent answers with a question ("Thanks!"
   -> "Anything else?") only pauses the conversation: a back-reference after it still
   sees the places named before it, the next issue still carries them, and a yes to the
   agent's offer about the same service goes on with its issue ("Thanks!" -> "Shall I
   book the appointment?" -> "Yes."); a goodbye, or a thank-you the agent answers with a
   farewell, ends it; so does the agent's farewell after any turn ("Great, I'll take
   that." -> "Have a good journey."). A venue the agent found, named again ("that hotel
   you found"), resumes the latest issue of its service in this conversation.

A tie between services that the agent's answer does not settle goes to the service whose
slot words, or categorical slot values (SGD's ``possible_values``), the turn itself uses
("a music event": the event's category, not the music player). Such a value also weighs
for the service under way ("a rock concert or anything else with music" during an event
search), but never opens a service nor counts as its cue ("play some music" is music).

A turn that opens an issue with a back-reference ("a hotel there", "附近的酒店") records
what it points to (:attr:`Issue.context`: the place the customer named last since the last
goodbye, where they go rather than where they leave from, unless the agent's reply names
it; in Chinese their previous sentence) for the issue's handover note; so does a service
asked for a place (the weather on a date during a hotel search) opened while another issue
is open. Another service opened that way ("Check my savings balance" after a flight
search) records nothing: the flight's city is not the bank's. An issue opened right after
another one (no goodbye between) for a service with a city or an area among its slots
(:meth:`ServiceSchema.asks_city`: a hotel, not a ride's "destination" address), whose own
turns name no place, carries the last place the customer went to or stayed at in that
issue ("to San Diego", "in Concord"; not "from Fresno", nor "United Airlines"; a rental
picked up "from NYC" is at NYC): the hotel after a flight is at its destination even when
that was said many turns before. A back-reference whose place the agent's reply names
carries nothing, nor one whose issue's own turns say where it is ("a rental car there?"
... "I'll pick it up in Toronto"; a trip's own origin, "from Fresno", does not count).
A trip (a service with an origin slot: a flight, a bus) opened right after another trip
is the same journey: it goes where that one went, leaves from where it left and for as
many people ("for four people"), for what its own turns do not say.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..core.items import is_user_message, item_text
from ..core.turns import segment_turns
from .issues import CUSTOMER, Issue, IssueSplit
from .services import ServiceSchema, service_schema

Item = Mapping[str, Any]

#: Goodbyes: the conversation (a day's session) ends here.
CLOSING = re.compile(
    r"\b(?:that'?s\s+(?:all(?!\s+(?:correct|right|good|fine|true))|it|everything)|"
    r"that\s+is\s+(?:all(?!\s+(?:correct|right|good|fine|true))|it|what\s+i)|that\s+will\s+be|"
    r"that\s+would\s+be\s+all|that'?ll\s+be\s+all|nothing(?:\s+else)?|nope|"
    r"not\s+(?:at\s+this\s+time|for\s+now|right\s+now|for\s+anything)|no\s+more|"
    r"(?:don'?t|do\s+not)\s+(?:need|have)\s+any|i'?m\s+(?:done|good)|all\s+set|"
    r"go(?:ing)?\s+now|hold\s+off|everything\s+i\s+need|for\s+the\s+time\s+being|thanks?\b|thank\s+you|appreciate|(?:good)?bye|so\s+long|take\s+care)"
    r"|就这些|没有了|没别的|没其他|再见|拜拜|谢谢|感谢|多谢|没问题了|没有问题|没什么了",
    re.IGNORECASE)
#: Goodbyes that end the conversation even when they name a service ("No, I don't want to
#: reserve a room now. That's all I need.").
GOODBYE = re.compile(r"\b(?:that'?s\s+all(?!\s+(?:correct|right|good|fine|true))|"
                     r"that\s+is\s+all(?!\s+(?:correct|right|good|fine|true))|that\s+will\s+be\s+all|"
                     r"that'?ll\s+be\s+all|i'?m\s+(?:done|good\s+to\s+go)|all\s+set|"
                     r"(?:good)?bye)\b|就这些|再见|拜拜|没有问题了|没问题了", re.IGNORECASE)
#: A short yes to what the agent just offered.
AFFIRM = re.compile(r"^\W*(?:yes|yeah|yep|sure|ok(?:ay)?|please\s+do|sounds\s+good|"
                    r"(?:could|can|would)\s+you\s+(?:please\s+)?do\s+(?:so|that|it)|"
                    r"go\s+ahead|let'?s\s+do|"
                    r"that\s+(?:would|sounds)|好的|好啊|好|可以|行|嗯|要|需要)", re.IGNORECASE)
#: Asking for one more of a service ("再给我推荐一个景点", "再帮我看看4.5分以上的景点"): a new
#: sub-goal, not an alternative.
ANOTHER = re.compile(r"(?:推荐|找)(?:一个|一家|一下|个|家)|想去(?:一个|一家)"
                     r"|再(?:帮我)?(?:看看|查查|推荐|找)")
#: A search for one more of a service, when the clause names it ("有没有能玩3天的景点",
#: "哪家有豉汁蒸凤爪"), not a question about something else ("有没有附近的酒店").
SEARCH = re.compile(r"(?:有没有|哪家有)[^，。？！,.?!]*")
#: A constraint in a search ("评分4.5分以上", "门票免费"): a question about the venues around
#: the current one that holds one looks for one more of them, it does not just ask.
CONSTRAINT = re.compile(r"\d|免费")
#: Words that point into the list the agent just gave ("这几个餐馆中", "这些景点里").
AMONG = re.compile(r"这些|这几|那些|那几|其中|里边|里面|当中|之中")
#: Words that refer back to the turn before ("a hotel there", "在那附近"): the issue they
#: open starts with that turn too.
BACKREF = re.compile(r"\b(?:there|that\s+(?:area|city|place|day|date)|same|around\s+there)\b"
                     r"|那里|那儿|那边|附近|周边|这附近|同一", re.IGNORECASE)
#: Values that tie a later turn back to an issue: capitalised names, CJK names, numbers.
_NAME = re.compile(r"(?:[A-Z][\w'&.-]+(?:\s+(?:[A-Z][\w'&.-]*|of|the|de|and|&))*"
                   r"\s+[A-Z][\w'&.-]+)|[\u4e00-\u9fff][\u4e00-\u9fff（）()A-Za-z0-9]{3,11}")
#: Capitalised words that start sentences rather than names ("Can I", "Yes Please").
_STARTERS = frozenset("""I Can Could Would Will What Where When Which Who How Yes No Please
Thanks Thank The That This Is Are Do Does Did Okay Ok Sure Great Hi Hello Also And But So
Find Book Search Let Get Make Reserve Tell Give Show""".split())  # noqa: SIM905

#: Capitalised words that name a day, not a place ("return it this Saturday").
_DATES = frozenset("""January February March April May June July August September October
November December Jan Feb Mar Apr Jun Jul Aug Sep Sept Oct Nov Dec Monday Tuesday Wednesday
Thursday Friday Saturday Sunday Today Tomorrow Tonight""".split())  # noqa: SIM905


def places_in(text: str) -> list[str]:
    """Names a back-reference may point to: capitalised words and names that do not
    start a sentence."""
    words = re.findall(r"(?<![.!?]\s)(?<!^)\b[A-Z][A-Za-z]+(?:,?\s+[A-Z][A-Za-z]+)*", text)
    return [w for w in words if w.split()[0] not in _STARTERS and w.split()[0] not in _DATES]


#: Where a customer leaves from ("leaving from San Francisco", "departing Fresno").
_ORIGIN = re.compile(r"\b(?:from|leaving|departing|leave|out\s+of)\s+$", re.IGNORECASE)


#: Where a customer goes or stays ("to San Diego", "in Concord", "visiting Paris").
_TOWARD = re.compile(r"\b(?:to|in|at|into|near|around|visit(?:ing)?)\s+$", re.IGNORECASE)


def bound_for(lines: Sequence[str], *, origins: bool = True) -> list[str]:
    """The places of ``lines`` (:func:`places_in`) without where the customer leaves
    from when they also name where they go: "a hotel there" after "to San Diego" and
    "leaving from San Francisco" is in San Diego; after "the car from Concord", in
    Concord (without ``origins``, nothing)."""
    places = [(p, bool(_ORIGIN.search(line[: line.find(p)])))
              for line in lines for p in places_in(line)]
    return [p for p, origin in places if not origin] or [p for p, _o in places if origins]


#: A name of two or more capitalised words inside a sentence ("in Menlo Park").
_INNER_NAME = re.compile(r"(?<=[a-z,]\s)(?:[A-Z][A-Za-z'&-]*\s+)+[A-Z][A-Za-z'&-]*")


def unnamed(text: str) -> str:
    """``text`` without the names inside its sentences: a service's word in a place's or
    a venue's name ("a psychiatrist in Menlo Park", "Tonayan in Rohnert Park") does not
    ask for that service."""
    return _INNER_NAME.sub(lambda m: " " * len(m.group(0)), text)


def names_in(text: str) -> list[str]:
    """Names and values a turn may share with an earlier issue's turns."""
    return [v.strip() for v in _NAME.findall(text) if v.split()[0] not in _STARTERS]


#: Where a Chinese reply breaks between names ("推荐您去A和B").
_NAME_BREAK = re.compile(r"[^\u4e00-\u9fff·A-Za-z0-9]|和|或|及|去|在|是|有|为|的|吧")


def misleading_names(reply: str, service: str, schema: ServiceSchema) -> list[str]:
    """Venue names in a Chinese reply about ``service`` whose own service word names
    another service ("北京前门建国饭店推荐给您" in a hotel search: 饭店 is a restaurant
    word): the run of at least two characters before the word, and the word."""
    out = []
    for part in _NAME_BREAK.split(reply):
        for name, cues in _named(part, schema):
            if service not in cues:
                out.append(name)
    return out


def _named(part: str, schema: ServiceSchema) -> list[tuple[str, set[str]]]:
    """(name, services of its word) for the first service word in ``part`` that at least
    two characters precede."""
    for match in re.finditer("|".join(sorted((c for c in schema.weights if not c.isascii()),
                                             key=len, reverse=True)) or "$^", part):
        if match.start() >= 2 and schema.masked(part[: match.end()]) == part[: match.end()]:
            return [(part[: match.end()], set(schema.weights[match.group(0)]))]
    return []


@dataclass
class _State:
    issues: list[tuple[str, list[int]]] = field(default_factory=list)  # (service, turns)
    open: dict[str, int] = field(default_factory=dict)  # service -> open issue
    owners: dict[str, int] = field(default_factory=dict)  # value -> issue first said in
    current: int = CUSTOMER
    closed: bool = False
    pending: list[int] = field(default_factory=list)  # turns waiting for their issue
    context: dict[int, tuple[str, ...]] = field(default_factory=dict)  # issue -> back-refs
    said: list[str] = field(default_factory=list)  # the customer's turns so far
    around: str | None = None  # the service the last turn asked for around a venue
    venues: dict[str, str] = field(default_factory=dict)  # misleading name -> its service
    since: int = 0  # where in ``said`` the conversation since the last goodbye starts
    carry: dict[int, tuple[str, ...]] = field(default_factory=dict)  # issue -> places before
    paused: bool = False  # closed by a thank-you the agent answered with a question
    follows: dict[int, int] = field(default_factory=dict)  # trip -> the trip just before


def split_services(items: Sequence[Item], schema: Any, *,
                   threshold: float = 0.5) -> IssueSplit:
    """Assign each user turn of ``items`` to a service issue (see the module docstring)."""
    schema = service_schema(schema)
    seg = segment_turns(items)
    state = _State()
    assignment = []
    previous_reply = ""
    for turn in seg.turns:
        first = items[turn.start]
        text = item_text(first) if is_user_message(first) else ""
        waiting = state.current == CUSTOMER or state.closed
        went_on = state.closed and state.paused  # "Thanks!" -> "Anything else?" -> "A flight there"
        before = len(state.issues), state.current
        replies = [item_text(items[i]) for i in turn.indices[1:]
                   if items[i].get("role") == "assistant"]
        _assign(state, schema, text, (previous_reply, " ".join(replies)), threshold)
        _place(state, assignment, turn.number, before=before, waiting=waiting)
        if state.current != CUSTOMER:
            _join(state, schema, items, turn, text,
                  previous=CUSTOMER if waiting and not went_on else before[1],
                  opened=len(state.issues) > before[0])
        previous_reply = replies[-1] if replies else ""
        _after_turn(state, schema, text, replies)
    _carried(state, schema)
    issues = tuple(Issue(n + 1, service, tuple(sorted(set(turns))),
                         state.context.get(n + 1, ()))
                   for n, (service, turns) in enumerate(state.issues))
    return IssueSplit(tuple(items), tuple(assignment), issues)


def _place(state: _State, assignment: list[int], number: int, *,
           before: tuple[int, int], waiting: bool) -> None:
    """Turn ``number`` takes the current issue. If it opened or switched to one, the turns
    waiting for a cue join it; a turn while waiting that changed nothing waits too."""
    moved = (len(state.issues), state.current) != before or (waiting and not state.closed)
    if moved and state.pending:
        for waited in state.pending:  # "I need a place in Concord." before the cue
            _move(state, assignment, waited, state.current)
        state.pending.clear()
    assignment.append(state.current)
    if waiting and not moved:
        state.pending.append(number)


def _after_turn(state: _State, schema: ServiceSchema, text: str, replies: list[str]) -> None:
    """What a turn leaves for the next ones: what was said, the service asked for around a
    venue, the venues the agent's replies named for the current service, and a goodbye."""
    state.said.append(text)
    state.around = next(iter(schema.around(text)[-1:]), None)
    service = _service(state)
    if service is not None and state.around is None:
        for reply in replies:
            for name in misleading_names(reply, service, schema):
                state.venues.setdefault(name, service)
    if _closing(text, schema) or _farewell(replies[-1:]):
        state.open.clear()
        state.closed = True
        # a thank-you the agent answers with "anything else?" pauses the conversation; a
        # goodbye, or one it answers with a farewell, ends it (another day may follow)
        state.paused = not GOODBYE.search(text) and _asks(replies[-1:])
        if not state.paused:
            state.since = len(state.said)


def _join(state: _State, schema: ServiceSchema, items: Sequence[Item], turn: Any, text: str,
          *, previous: int, opened: bool) -> None:
    """Turn ``turn`` joins the current issue (:func:`_record`); an issue it opens for a
    service with a city carries the place of the ``previous`` issue (:func:`_carry`)."""
    service = state.issues[state.current - 1][0]
    _record(state, items, turn, text, opened=opened, placed=schema.asks_place(service))
    if opened and previous != CUSTOMER and schema.asks_city(service):
        _carry(state, previous, origins=schema.picks_up(state.issues[previous - 1][0]))
    if opened and previous != CUSTOMER and schema.leaves_from(service) \
            and schema.leaves_from(state.issues[previous - 1][0]):
        state.follows[state.current] = previous


def _record(state: _State, items: Sequence[Item], turn: Any, text: str, *,
            opened: bool, placed: bool = False) -> None:
    """Turn ``turn`` joins the current issue; the names it holds are remembered."""
    state.issues[state.current - 1][1].append(turn.number)
    back = BACKREF.search(text) is not None
    implied = placed and len(state.open) > 1 and not places_in(text)
    if opened and turn.number > 1 and (back or implied):
        # "an apartment there", or the weather (a service asked for a city) on a date
        # while a hotel search is open: the place the customer named last
        # (not before the last goodbye: "there" on another day is not that day's place)
        said = state.said[state.since:]
        places = bound_for(said[-4:], origins=back)  # "driving in from Fresno": no city
        reply = " ".join(item_text(items[i]) for i in turn.indices[1:])
        if places:  # unless the agent's reply names one ("pick it up in Long Beach?")
            named = any(p in reply for p in places)  # () carries nothing (:func:`_carried`)
            state.context[state.current] = () if named else (places[-1],)
        elif back and said and not _english(said[-1]):  # "附近有什么酒店": the sentence before
            state.context[state.current] = (said[-1],)
    for index in turn.indices:
        for value in names_in(item_text(items[index])):
            state.owners.setdefault(value, state.current)


def _carry(state: _State, previous: int, *, origins: bool) -> None:
    """The places the customer named in the ``previous`` issue (since the last goodbye),
    for the issue just opened."""
    lines = _said_in(state, previous, since=state.since)
    places = [p for line in lines for p in located(line, origins=origins)]
    if places:
        state.carry[state.current] = (places[-1],)


def _said_in(state: _State, number: int, *, since: int = 0) -> list[str]:
    """The customer's turns of issue ``number`` (from turn ``since`` + 1 on), in order."""
    return [state.said[n - 1] for n in sorted(set(state.issues[number - 1][1]))
            if since < n <= len(state.said)]


def toward(line: str) -> list[str]:
    """The places of ``line`` the customer goes to or stays at ("to San Diego", "in
    Concord"; not "from Fresno", nor "United Airlines")."""
    return located(line, origins=False)


#: Where a city is said to be the issue's own ("in Toronto", "to Denver"); "at Sino" and
#: "near Pike Place" name a venue or a landmark in it.
_IN_CITY = re.compile(r"\b(?:to|in|into)\s+$", re.IGNORECASE)


def located(line: str, *, origins: bool = True, cities: bool = False) -> list[str]:
    """The places of ``line`` named as where something is or goes (:func:`toward`; with
    ``cities`` only the city it is in or goes to: "in Toronto", not "at Sino") and, with
    ``origins``, where it is taken from ("pick it up from Delhi")."""
    where = _IN_CITY if cities else _TOWARD
    return [p for p in places_in(line) if where.search(line[: line.find(p)])
            or (origins and _ORIGIN.search(line[: line.find(p)]))]


def _carried(state: _State, schema: ServiceSchema) -> None:
    """An issue whose own turns name no place carries the place of the issue before; a
    back-reference's place is dropped when the issue's own turns name where it is ("a
    rental car there?" ... "in Toronto", "pick it up from Delhi"; a trip's origin is not
    where it goes: "a flight there ... from Fresno" keeps the note)."""
    for number, context in list(state.context.items()):
        origins = not schema.leaves_from(state.issues[number - 1][0])  # a flight's origin
        if context and all(_english(c) for c in context) and any(
                located(line, origins=origins, cities=True) for line in _said_in(state, number)):
            state.context[number] = ()
    _same_trip(state)
    for number, places in state.carry.items():
        origins = not schema.leaves_from(state.issues[number - 1][0])
        if number not in state.context and not any(
                located(line, origins=origins) for line in _said_in(state, number)):
            state.context[number] = places


def _ends(state: _State, number: int) -> tuple[str | None, str | None]:
    """Where trip ``number`` goes and where it leaves from, by its customer's turns or,
    for where it goes, its back-reference."""
    lines = _said_in(state, number)
    to = [p for line in lines for p in toward(line)] or list(state.context.get(number, ()))
    since = [p for line in lines for p in places_in(line)
             if _ORIGIN.search(line[: line.find(p)])]
    return (to[-1] if to else None), (since[-1] if since else None)


#: How many travel ("for four people", "2 tickets", "3 persons").
_PARTY = re.compile(r"\b(?:\d+|two|three|four|five|six|seven|eight|nine|ten)\s+"
                    r"(?:people|persons?|passengers?|tickets?|seats?|travell?ers|adults)\b",
                    re.IGNORECASE)


def _party(state: _State, number: int) -> str | None:
    """The last party size the customer's turns of issue ``number`` name."""
    found = [m.group(0) for line in _said_in(state, number) for m in _PARTY.finditer(line)]
    return found[-1] if found else None


def _same_trip(state: _State) -> None:
    """A trip opened right after another trip ("a flight there" after a bus from
    Washington to New York for four people) goes where that one went, leaves from where
    it left and for as many people, for what its own turns do not say."""
    for number, previous in sorted(state.follows.items()):
        goes, leaves = _ends(state, previous)
        own_leaves = _ends(state, number)[1]
        own = _said_in(state, number)
        if any(toward(line) for line in own):
            goes = None
        if own_leaves is not None:
            leaves = None
        party = _party(state, previous)
        if party and any(_PARTY.search(line) for line in own):
            party = None
        note = tuple(p for p in (goes, leaves, party) if p)
        if note:
            state.context[number] = note


#: An agent's farewell: the conversation is over, whatever the customer's last words
#: ("Great, I think I'll take that." -> "Ok, have a good journey.").
FAREWELL = re.compile(r"\b(?:have\s+an?\s+(?:(?:very|really|most)\s+)?(?:nice|good|great|"
                      r"wonderful|lovely|safe|pleasant|fantastic|fabulous|beautiful|happy|"
                      r"awesome|splendid|terrific|excellent|marvell?ous|fine|relaxing|"
                      r"enjoyable|productive|blessed)\s+(?:\w+\s+)?(?:day|journey|trip|time|"
                      r"evening|night|weekend|flight|stay|one|afternoon|morning|meal|ride)|"
                      r"enjoy\s+(?:your|the\s+rest\s+of\s+your)\s+(?:day|evening|weekend)|"
                      r"good\s*-?bye|bye|take\s+care)\b"
                      r"|再见|拜拜|祝您?[^，。！？]{0,8}愉快", re.IGNORECASE)


def _farewell(replies: Sequence[str]) -> bool:
    """Whether the agent's last reply says goodbye and asks nothing."""
    return any(FAREWELL.search(r) and not re.search(r"[?？]", r) for r in replies)


def _asks(replies: Sequence[str]) -> bool:
    """Whether the agent's last reply asks something ("Could I further assist you?")."""
    return any(re.search(r"[?？]", r) for r in replies)


def _closing(text: str, schema: ServiceSchema) -> bool:
    """A goodbye ("that's all I need"), or a thank-you that names no service, asking
    nothing."""
    if re.search(r"[?？]", text) or not CLOSING.search(text):
        return False
    return bool(GOODBYE.search(text)) or not schema.scores(text)


def _move(state: _State, assignment: list[int], number: int, to: int) -> None:
    """Turn ``number`` (1-based) joins issue ``to``."""
    was = assignment[number - 1]
    if was != CUSTOMER:
        state.issues[was - 1][1].remove(number)
    assignment[number - 1] = to
    state.issues[to - 1][1].append(number)


def _service(state: _State) -> str | None:
    return state.issues[state.current - 1][0] if state.current != CUSTOMER else None


def _cues(state: _State, schema: ServiceSchema, text: str, offer: str
          ) -> tuple[dict[str, tuple[float, int]], str | None]:
    """The turn's cue weights per service (see the module docstring) and the current
    service (None after a goodbye)."""
    current = _service(state) if not state.closed else None
    trip = _journey(schema, text)
    if trip:  # "从颐和园到居楽屋的地铁站": the subway, not the venues at its ends
        return trip, current
    cues = dict(schema.cues_in(unnamed(_without_venues(state, text)), among=list(state.open),
                               current=current))
    for name, service in state.venues.items():  # "北京饭店的评分": the hotel it was offered as
        if name in text:
            score, last = cues.get(service, (0.0, -1))
            cues[service] = (score + 1.0, max(last, text.rfind(name) + len(name)))
    if not cues and _yes(text):
        cues = dict(schema.cues_in(_questions(offer)))
    slots = schema.slot_scores(text)
    about = slots.get(current, 0.0) + schema.value_scores(text).get(current, 0.0) \
        if current is not None else 0.0
    if current is not None and cues and about:  # "three bed rooms" (Homes), "with music"
        score, _at = cues.get(current, (0.0, -1))
        cues[current] = (score + about, len(text) + 1)  # a tie stays with it
    wanted = _searched(schema, text, state.around)
    if wanted is not None:  # "周边有没有人均50-100元的餐馆": a search, not a slot question
        score, _at = cues.get(wanted, (0.0, -1))
        cues[wanted] = (score + 1.0, len(text) + 1)
    if not cues and current is None:  # "four seats next friday toronto" before any service
        cues = {s: (v, 0) for s, v in slots.items() if v >= 1.0}
    return cues, current


#: A journey from one place to another in Chinese ("从饭店坐地铁到酒店", "从颐和园至…").
FROM_TO = re.compile(r"从[^，。？！,.?!]{1,40}?(?:到|至)")


def _journey(schema: ServiceSchema, text: str) -> dict[str, tuple[float, int]]:
    """The cues of the trip services (a taxi, the subway) in a Chinese turn that asks for
    a journey from one place to another; the venues at its ends ask for nothing."""
    if _english(text) or not FROM_TO.search(text):
        return {}
    return {s: v for s, v in schema.cues_in(text).items() if schema.leaves_from(s)}


def _without_venues(state: _State, text: str) -> str:
    """``text`` without the misleading venue names already offered."""
    for name in sorted((n for n in state.venues if n in text), key=len, reverse=True):
        text = text.replace(name, " ")
    return text


def _searched(schema: ServiceSchema, text: str, listed: str | None = None) -> str | None:
    """The service a question about a venue's surroundings searches for, when it sets a
    constraint ("附近有没有评分4.5分以上的景点", or among the ``listed`` venues around it
    the turn before: "这几个里边有没有评分4.5分以上的"); None for a plain question
    ("附近有什么景点")."""
    if not CONSTRAINT.search(text):
        return None
    around = schema.around(text)
    if around:
        return around[-1]
    return listed if listed is not None and AMONG.search(text) else None


def _questions(reply: str) -> str:
    """The sentences of an agent reply that ask something: what a short yes answers
    ("Shall I book a taxi?"), not what it reported ("There are 0 transfers.")."""
    return " ".join(s for s in sentences(reply) if re.search(r"[?？]\s*$", s))


def _assign(state: _State, schema: ServiceSchema, text: str, replies: tuple[str, str],
            threshold: float) -> None:
    """Turn ``text`` joins an issue; ``replies``: the agent's reply before it (an offer a
    yes may take) and its reply to it (which settles a tie)."""
    offer, answer = replies
    cues, current = _cues(state, schema, text, offer)
    chosen = _choose(cues, threshold, answer, schema, text)
    if chosen is not None and current is not None and chosen != current \
            and _english(text) and _answered_as(answer, schema, current, chosen):
        chosen = current  # "I wouldn't be checking in until the 10th" -> "1 room, March 10th?"
    if chosen is None:
        owner = next((state.owners[v] for v in names_in(text) if v in state.owners), None)
        if owner is not None and not state.closed and owner in state.open.values():
            state.current = owner  # an issue still open (not the same service on another day)
        return
    resumed = _resumed(state, schema, text, chosen)
    if resumed is None:
        state.issues.append((chosen, []))
        resumed = len(state.issues)
    state.current = state.open[chosen] = resumed
    state.closed = False


def _resumed(state: _State, schema: ServiceSchema, text: str, chosen: str) -> int | None:
    """The issue of ``chosen`` that ``text`` goes on with: the open one (unless it asks for
    one more), the one a thank-you paused when it says yes to the agent's offer, or the
    one whose venue it names again ("that hotel you found"); None: a new issue."""
    again = (chosen in state.open and _another(schema, text, chosen, state.around)
             and len(state.issues[state.open[chosen] - 1][1]) >= 2)
    if chosen in state.open and not again:
        return state.open[chosen]
    if state.closed and state.paused and _service(state) == chosen and _yes(text):
        return state.current  # "Thanks!" -> "Shall I book it?" -> "Yes."
    if RECALLED.search(text):
        return _earlier(state, chosen)  # "that hotel you found" this session
    return None


#: What the agent found earlier, named again ("that hotel you found", "the event you
#: mentioned before").
RECALLED = re.compile(r"\b(?:that|the|this)\s+(?:\w+\s+){0,2}?(?:you|we)\s+(?:just\s+)?"
                      r"(?:found|mentioned|told|suggested|recommended|showed)\b", re.IGNORECASE)


def _earlier(state: _State, service: str) -> int | None:
    """The latest issue about ``service`` in this conversation (since the last goodbye
    that ended it; a paused one does not)."""
    for number in range(len(state.issues), 0, -1):
        subject, turns = state.issues[number - 1]
        if subject == service and turns and max(turns) > state.since:
            return number
    return None


def _yes(text: str) -> bool:
    """A short yes to what the agent just offered ("Yes, that would be great!")."""
    return AFFIRM.match(text) is not None and len(text) < 60 and not CLOSING.search(text)


def _another(schema: ServiceSchema, text: str, chosen: str, around: str | None) -> bool:
    """Whether ``text`` asks for one more of ``chosen`` ("再推荐一个景点", "有没有能玩3天的
    景点", a search with a constraint around a venue), not for an alternative."""
    return ANOTHER.search(text) is not None or chosen == _searched(schema, text, around) or any(
        chosen in schema.scores(m.group(0)) or (m.group(0).startswith("哪家") and
                                                  not schema.scores(m.group(0)))
        for m in SEARCH.finditer(text))


def _english(text: str) -> bool:
    """No Chinese in ``text`` (the English-only rules; CrossWOZ keeps its own)."""
    return re.search(r"[\u4e00-\u9fff]", text) is None


def _answered_as(answer: str, schema: ServiceSchema, current: str, chosen: str) -> bool:
    """Whether the agent's answer to a turn goes on with the ``current`` service and
    says nothing of the ``chosen`` one (a customer's word that looked like another
    service's: "checking in" is not a bank's checking account)."""
    said = schema.cues_in(answer, current=current)
    return said.get(current, (0.0, 0))[0] >= 1.0 and chosen not in said


def _choose(cues: Mapping[str, tuple[float, int]], threshold: float, answer: str,
            schema: ServiceSchema, text: str = "") -> str | None:
    """The service a turn is about (None: no cue decides): the most cue weight; a tie
    to the one the agent's answer names most ("I need to book a bus ride." -> "How many
    tickets?"), else to the one named last."""
    strong = {s: v for s, v in cues.items() if v[0] >= threshold}
    if not strong:
        return None
    top = max(v[0] for v in strong.values())
    tied = [s for s, v in strong.items() if abs(v[0] - top) < 1e-9]
    said: Mapping[str, float] = {}
    if len(tied) > 1 and answer:
        said = {s: schema.scores(answer).get(s, 0.0) + schema.slot_scores(answer).get(s, 0.0)
                for s in tied}
    about = _about(schema, text) if len(tied) > 1 else {}
    return max(tied, key=lambda s: (said.get(s, 0.0), about.get(s, 0.0), strong[s][1]))


def _about(schema: ServiceSchema, text: str) -> dict[str, float]:
    """Per service, the weight of the slot words and categorical values ``text`` names."""
    out = dict(schema.slot_scores(text))
    for name, score in schema.value_scores(text).items():
        out[name] = out.get(name, 0.0) + score
    return out


#: Where a reply's sentences end (English and Chinese).
_SENTENCE = re.compile(r"(?<=[.!?])(?=\s)|(?<=[。！？；])")


def sentences(text: str) -> list[str]:
    """``text`` cut into sentences (their own spacing kept, so joined back they read as
    written)."""
    return [s for s in _SENTENCE.split(text) if s.strip()]


def reply_for(text: str, service: str, others: Sequence[str], schema: Any) -> str:
    """The sentences of an agent reply that belong to ``service``: a sentence whose cue
    words name one of ``others`` (the customer's other issues) and not ``service`` is
    left out ("Your table is booked. The taxi arrives at 7 pm." in the restaurant's
    handover keeps the first sentence only); a sentence that names no service stays."""
    schema = service_schema(schema)
    rivals = set(others) - {service}
    kept = [s for s in sentences(text)
            if not rivals or service in (named := set(schema.scores(s))) or not named & rivals]
    return "".join(kept).strip()

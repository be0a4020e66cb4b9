"""Issues by a schema: services and domains instead of device words (issue 30), and the
per-service handover that keeps another issue's values out."""

from __future__ import annotations

import pytest

from ctxlab.eval.dialogue_handoffs import score_view
from ctxlab.handoffs import (
    IssueHandover,
    packaged_schema,
    service_schema,
    split_issues,
    view_text,
)
from ctxlab.handoffs.issues import IssueSplit

from conftest import arun, assistant, user

SGD = packaged_schema("sgd")
ZH = packaged_schema("crosswoz")


def _chat() -> list[dict]:
    return [user("I want to book a table at Sino in San Jose for 2 people."),
            assistant("Booked: Sino, San Jose, 2 people, 11:30 am."),
            user("Great. What's their phone number?"),
            assistant("Their phone number is 408-247-8880."),
            user("I also need a taxi to get there, for 3 people."),
            assistant("Your cab to Sino for 3 people is on its way."),
            user("Thanks.")]


def test_phone_number_is_a_slot_not_a_phone_issue():
    split = split_issues(_chat(), schema=SGD)
    assert [i.subject for i in split.issues] == ["Restaurants", "RideSharing"]
    assert split.turn_issue == (1, 1, 2, 2)
    # the device-word rules (the planted chats') read "phone" as a device: the first edition
    assert [i.subject for i in split_issues(_chat()).issues] == ["phone"]


def test_chinese_domains_and_slots_that_name_another_domain():
    items = [user("帮我找一个门票免费的景点。"), assistant("推荐您去天安门广场。"),
             user("这个景点周边有哪些餐馆？"), assistant("周边有全聚德(前门店)。"),
             user("吃完饭我想找一家提供wifi的酒店住下。"),
             assistant("推荐北京饭店，电话65137766。"),
             user("好的，谢谢。")]
    split = split_issues(items, schema=ZH)
    assert [i.subject for i in split.issues] == ["景点", "酒店"]
    assert split.turn_issue == (1, 1, 2, 2)


def test_a_goodbye_closes_the_day_and_the_same_service_is_a_new_issue():
    items = [user("Find me a restaurant in Napa."), assistant("Bistro Don Giovanni?"),
             user("Yes. That's all, thanks."), assistant("Enjoy!"),
             user("I need a restaurant in Fremont for tomorrow."), assistant("Vic's Grill?")]
    split = split_issues(items, schema=SGD)
    assert [(i.subject, i.turns) for i in split.issues] == [("Restaurants", (1, 2)),
                                                           ("Restaurants", (3,))]


def test_schema_forms_and_bad_schemas():
    plain = service_schema({"Plumbing": ["address", "visit_date"], "Cleaning": ["rooms"]})
    split = split_issues([user("My plumbing leaks, can you send someone?"), assistant("Yes."),
                          user("What address should they come to?"), assistant("Yours."),
                          user("Also book a cleaning for the 3 rooms.")],
                         schema=plain)
    assert [i.subject for i in split.issues] == ["Plumbing", "Cleaning"]
    with pytest.raises(ValueError, match="service_name"):
        service_schema([{"name": "no service name"}])
    with pytest.raises(ValueError, match="at least one service"):
        service_schema([])


class LeakyHandover(IssueHandover):
    """Broken on purpose: the issue's turns plus the conversation's last turn, whatever
    issue it belongs to (a 'recent context' shortcut)."""

    async def issue_items(self, split: IssueSplit, number: int, *,
                          before: int | None = None) -> list[dict]:
        mine = await super().issue_items(split, number, before=before)
        return mine + [dict(i) for i in split.items[-2:]]


@pytest.mark.parametrize("handover, leaks", [(IssueHandover(schema=SGD), False),
                                             (LeakyHandover(schema=SGD), True)])
def test_the_score_catches_a_handover_that_leaks_another_issues_value(handover, leaks):
    from ctxlab.course.corpora.dialogues import SlotFact

    def fact(topic: str, slot: str, value: str) -> SlotFact:
        return SlotFact("d", topic, slot, value, (value,), (), "user", 0)

    items = _chat()[:-1]
    facts = {(0, "Restaurants_2"): [fact("Restaurants_2", "restaurant_name", "Sino"),
                                    fact("Restaurants_2", "party_size", "2")],
             (0, "RideSharing_1"): [fact("RideSharing_1", "number_of_riders", "3")]}
    split = handover.split(items)
    view = arun(handover.issue_items(split, split.issues[0].number))
    missing, leaked, stale = score_view(view_text(view), (0, "Restaurants_2"), facts,
                                        view_text(split.items_of(1)), "en")
    assert not missing and not stale
    assert bool(leaked) is leaks
    assert "408-247-8880" in view_text(view)  # the slot answer stays with its issue


def test_the_handover_note_takes_customer_facts_from_the_customer_only():
    items = [user("Hi, I want a hotel in Leeds."),
             assistant("The Queens Hotel, phone 0113 243 1323, email info@queens.example."),
             user("Book it please."), assistant("Done.")]
    from ctxlab.memory.state_memory import StateMemory

    everything = StateMemory()
    arun(everything.feed(items))
    assert everything.state.user.email == "info@queens.example"  # what the check guards
    view = arun(IssueHandover(schema=SGD).view([*items, user("Pass me on, please.")], []))
    note = view[1]["content"]
    assert "queens.example" not in note and "243 1323" not in note


_ORDER_PROBE = """
from ctxlab.handoffs.services import _masker, _weights, packaged_schema
for corpus in ("sgd", "crosswoz"):
    schema = packaged_schema(corpus)
    print([(cue, list(names)) for cue, names in _weights(schema).items()])
    print(_masker(schema).pattern)
    for text in ("What is the phone number and the address of the hotel?",
                 "I need a ride and a restaurant for dinner, what time?",
                 "景点周边有哪些餐馆？酒店的电话和地址是什么？"):
        print(list(schema.slot_scores(text).items()), list(schema.scores(text).items()))
"""


def test_service_scores_come_out_in_the_same_order_in_every_process():
    """Ties between services are broken by order; with sets the order followed the string
    hash seed, and the per-service handover and topic recall changed from run to run."""
    import os
    import subprocess
    import sys

    def run(seed: str) -> str:
        env = {**os.environ, "PYTHONHASHSEED": seed}
        return subprocess.run([sys.executable, "-c", _ORDER_PROBE], env=env, check=True,
                              capture_output=True, text=True).stdout

    outputs = {run(seed) for seed in ("1", "2", "3", "4")}
    assert len(outputs) == 1


def _two_services_in_one_turn() -> list[dict]:
    return [user("I want a table at Sino in San Jose for 2 people."),
            assistant("Sino has a table at 7 pm. Shall I book it?"),
            user("I also need a taxi there for 3 people."),
            assistant("Where should the cab pick you up?"),
            user("From home. Book the taxi and the restaurant now, please."),
            assistant("Your table at the restaurant is booked for 2 people. The taxi to Sino "
                      "for 3 riders arrives at 6:40 pm.")]


def _keep_every_sentence(text: str, service: str, others, schema) -> str:
    """Broken on purpose: the reply as it is, whatever services its sentences answer."""
    return text


_OWN = {"Restaurants": "booked for 2 people", "RideSharing": "arrives at 6:40 pm"}


@pytest.mark.parametrize("broken", [False, True])
def test_a_reply_that_answers_two_services_is_split_by_sentence(broken, monkeypatch):
    from ctxlab.handoffs import service_split

    if broken:
        monkeypatch.setattr(service_split, "reply_for", _keep_every_sentence)
    handover = IssueHandover(schema=SGD, split_replies=True)
    split = handover.split(_two_services_in_one_turn())
    assert [i.subject for i in split.issues] == ["Restaurants", "RideSharing"]
    owner = split.issue(split.turn_issue[-1])  # the issue the two-service turn went to
    other = next(s for s in _OWN if s != owner.subject)
    view = view_text(arun(handover.issue_items(split, owner.number)))
    assert _OWN[owner.subject] in view  # its own sentence stays
    assert (_OWN[other] in view) is broken  # the other service's sentence leaks when broken
    if not broken:  # without split_replies the whole reply goes with the turn, as before
        plain = IssueHandover(schema=SGD)
        assert _OWN[other] in view_text(arun(plain.issue_items(split, owner.number)))


def test_reply_sentences_keep_what_names_no_service_and_cut_chinese_too():
    from ctxlab.handoffs.service_split import reply_for, sentences

    assert sentences("Booked. It is at 7 pm! Ok?") == ["Booked.", " It is at 7 pm!", " Ok?"]
    assert reply_for("The taxi is on its way. It is sunny today.", "Restaurants",
                     ["Restaurants", "RideSharing"], SGD) == "It is sunny today."
    assert reply_for("The taxi is on its way.", "Restaurants", ["Restaurants"], SGD) \
        == "The taxi is on its way."  # no other issue: nothing to take out
    assert reply_for("酒店已订好。出租车7点到。", "酒店", ["酒店", "出租"], ZH) == "酒店已订好。"
    with pytest.raises(ValueError, match="split_replies"):
        IssueHandover(schema=SGD, split_replies="yes")


def test_a_day_is_not_the_place_a_back_reference_points_to():
    from ctxlab.handoffs.service_split import places_in

    assert places_in("I want the car at 3 pm from Concord, back this Saturday.") == ["Concord"]
    assert places_in("I leave on March 7th from Fresno.") == ["Fresno"]
    items = [user("I'm looking to rent a car."), assistant("Where from?"),
             user("I want the car at 3 pm from Concord, back this Saturday."),
             assistant("A Honda Accord at Concord Station."),
             user("Good. I also want to look for an apartment around there."),
             assistant("How many bedrooms?")]
    split = split_issues(items, schema=SGD)
    assert [(i.subject, i.context) for i in split.issues] == [("RentalCars", ()),
                                                             ("Homes", ("Concord",))]


@pytest.mark.parametrize("broken", [False, True])
def test_asking_for_one_more_attraction_opens_a_second_sub_goal_a_question_does_not(
        broken, monkeypatch):
    import re

    from ctxlab.handoffs import service_split

    if broken:  # any 有没有 as a new search, whatever the clause asks about
        monkeypatch.setattr(service_split, "ANOTHER",
                            re.compile(service_split.ANOTHER.pattern + "|有没有"))
    start = [user("帮我推荐一个免费的景点。"), assistant("推荐您去天安门广场。"),
             user("天安门广场适合游玩多久？"), assistant("1小时。")]
    more = split_issues([*start, user("有没有能玩3天左右、没有门票费的景点呢？"),
                         assistant("玛莱特红酒庄园。")], schema=ZH)
    assert [i.subject for i in more.issues] == ["景点", "景点"]
    hotel = split_issues([*start, user("那恭王府门票多少？游玩结束有没有附近的酒店可以住宿？"),
                          assistant("免费。")], schema=ZH)
    assert ([i.subject for i in hotel.issues] == ["景点"]) is not broken


def _around_chat() -> list[dict]:
    return [user("帮我推荐一个评分4.5分以上的景点。"), assistant("推荐您去颐和园。"),
            user("这个景点的附近有什么好吃的餐馆吗？"), assistant("有小吊梨汤、白家大院。"),
            user("旁边还有可以玩的景点吗？"), assistant("有圆明园。"),
            user("好的。我还想找一家人均消费100-150元的餐馆。"), assistant("推荐您去鼎泰丰。")]


@pytest.mark.parametrize("broken", [False, True])
def test_a_question_about_what_is_around_a_venue_stays_with_it(broken, monkeypatch):
    """"附近有什么好吃的餐馆" asks about the attraction's surroundings (its 周边餐馆 slot),
    in words other than the slot's own; a restaurant asked for opens the restaurant."""
    from ctxlab.handoffs import services

    if broken:  # only the slot's own word for "around", as before
        monkeypatch.setattr(services, "NEARBY_ZH", ("周边",))
    services._masker.cache_clear()
    schema = services.service_schema(list(_zh_services()))
    try:
        split = split_issues(_around_chat(), schema=schema)
    finally:
        services._masker.cache_clear()
    wanted = (("景点", (1, 2, 3)), ("餐馆", (4,)))
    assert (tuple((i.subject, i.turns) for i in split.issues) == wanted) is not broken


def _zh_services() -> list[dict]:
    """The packaged CrossWOZ schema as a list (a fresh ServiceSchema: no cached masker)."""
    import json
    from importlib import resources

    raw = resources.files("ctxlab").joinpath("data", "crosswoz", "schema.json")
    return json.loads(raw.read_text("utf-8"))


_NEVER = r"(?!)"
_SEARCHES = {
    # a question about what is around a venue that sets a constraint looks for one more
    "constraint": ([user("帮我推荐一个门票免费的景点。"), assistant("推荐您去天安门广场。"),
                    user("天安门广场的地址在哪？"), assistant("在北京市东城区长安街。"),
                    user("天安门广场周边还有免费的景点吗？"), assistant("有中国古动物馆。"),
                    user("中国古动物馆能玩多久？"), assistant("可以玩1小时。")],
                   (("景点", (1, 2)), ("景点", (3, 4))), "CONSTRAINT"),
    # a search among the venues the agent just listed around one
    "among": ([user("帮我找一家评分4.5分以上的餐馆。"), assistant("推荐您去全聚德。"),
               user("全聚德的电话是多少？"), assistant("电话是65112418。"),
               user("它周边有哪些餐馆？"), assistant("有四季民福和大董。"),
               user("这几家里有没有人均100-150元的？"), assistant("四季民福人均120元。")],
              (("餐馆", (1, 2, 3)), ("餐馆", (4,))), "AMONG"),
    # a hotel whose name holds a restaurant word (饭店), named back by the customer
    "name": ([user("帮我找一家评分4.5分以上的酒店。"), assistant("北京前门建国饭店推荐给您。"),
              user("北京前门建国饭店的电话是多少？"), assistant("电话是63016688。"),
              user("我还想找一家人均100元左右的餐馆。"), assistant("推荐您去全聚德。")],
             (("酒店", (1, 2)), ("餐馆", (3,))), "misleading_names"),
}


@pytest.mark.parametrize("broken", [False, True])
@pytest.mark.parametrize("case", sorted(_SEARCHES))
def test_searches_for_one_more_and_names_that_hold_another_services_word(case, broken,
                                                                         monkeypatch):
    import re

    from ctxlab.handoffs import service_split

    items, wanted, rule = _SEARCHES[case]
    if broken:  # the rule switched off: the first edition's split
        if rule == "misleading_names":
            monkeypatch.setattr(service_split, rule, lambda *args: [])
        else:
            monkeypatch.setattr(service_split, rule, re.compile(_NEVER))
    split = split_issues(items, schema=ZH)
    got = tuple((i.subject, i.turns) for i in split.issues)
    assert (got == wanted) is not broken, got


def _bus_then_hotel() -> list[dict]:
    return [user("I need a bus to Fresno on March 8th."),
            assistant("One leaves at 7 am with 0 transfers for $25."),
            user("Okay, sounds good."),
            assistant("Your ticket is booked. Shall I find you a hotel there?"),
            user("Yes, please."),
            assistant("The Hilton Fresno has a room.")]


@pytest.mark.parametrize("broken", [False, True])
def test_a_yes_takes_the_service_the_offer_asks_about_not_one_it_reports(broken,
                                                                          monkeypatch):
    from ctxlab.handoffs import service_split

    if broken:  # the first edition: every service the whole offer names
        monkeypatch.setattr(service_split, "_questions", lambda reply: reply)
    split = split_issues(_bus_then_hotel(), schema=SGD)
    subjects = [split.issue(n).subject for n in split.turn_issue]
    # "Okay" after "0 transfers" is about the bus, not a bank transfer
    assert (subjects == ["Buses", "Buses", "Hotels"]) is not broken


@pytest.mark.parametrize("broken", [False, True])
def test_a_service_word_inside_a_name_asks_for_nothing(broken, monkeypatch):
    from ctxlab.handoffs import service_split

    if broken:
        monkeypatch.setattr(service_split, "unnamed", lambda text: text)
    items = [user("I need a psychiatrist in Menlo Park."), assistant("Dr. Nathan?"),
             user("Yes. Book an appointment on March 3rd."), assistant("Booked.")]
    split = split_issues(items, schema=SGD)
    assert ([i.subject for i in split.issues] == ["Services"]) is not broken


@pytest.mark.parametrize("broken", [False, True])
def test_a_shared_cue_counts_for_the_service_under_way(broken, monkeypatch):
    from ctxlab.handoffs.services import ServiceSchema

    if broken:  # every owner of a cue counts alike, whatever is under way
        plain = ServiceSchema.cues_in
        monkeypatch.setattr(ServiceSchema, "cues_in",
                            lambda self, text, among=(), current=None: plain(self, text))
    items = [user("Find me a concert in Berkeley."), assistant("Nattali Rize on March 4th."),
             user("Check my checking account balance first."), assistant("It is $9,286."),
             user("Okay, I want to purchase the tickets."), assistant("How many?"),
             user("Four tickets."), assistant("Booked.")]
    split = split_issues(items, schema=SGD)
    subjects = [split.issue(n).subject for n in split.turn_issue]
    # "the tickets" (a bus's, a flight's or an event's) is the concert's: it is under way
    assert (subjects == ["Events", "Banks", "Events", "Events"]) is not broken


@pytest.mark.parametrize("broken", [False, True])
def test_a_tie_goes_to_the_service_the_agent_answers_about(broken, monkeypatch):
    from ctxlab.handoffs import service_split

    if broken:  # the tie to the service named last only
        choose = service_split._choose
        monkeypatch.setattr(service_split, "_choose",
                            lambda cues, threshold, answer, schema, text="":
                            choose(cues, threshold, "", schema))
    items = [user("I need to book a bus ride."),
             assistant("Where from, where to, and how many tickets?"),
             user("One person from SF to Los Angeles."), assistant("Leaving when?")]
    split = split_issues(items, schema=SGD)
    assert ([i.subject for i in split.issues] == ["Buses"]) is not broken


@pytest.mark.parametrize("broken", [False, True])
def test_there_is_where_the_customer_goes_not_where_they_leave_from(broken, monkeypatch):
    from ctxlab.handoffs import service_split

    if broken:  # the last place named, wherever it was
        monkeypatch.setattr(service_split, "bound_for", lambda lines, origins=True: [
            p for line in lines for p in service_split.places_in(line)])
    items = [user("I need a bus. I have to get to San Diego."), assistant("From where?"),
             user("I will be leaving from San Francisco."), assistant("Booked, 11 am."),
             user("I need a hotel around there."), assistant("The Bahia Resort Hotel?")]
    split = split_issues(items, schema=SGD)
    assert split.issues[-1].subject == "Hotels"
    assert (split.issues[-1].context == ("San Diego",)) is not broken


def test_another_day_is_neither_resumed_nor_the_place_there_points_to():
    items = [user("Find me a one way flight to New York from Paris."), assistant("Air France?"),
             user("Good. That's all I want for now, thanks."), assistant("Bye."),
             user("I need a one way flight from Phoenix."), assistant("Where to?"),
             user("I'm going to New York on the 9th."), assistant("United at 5 am."),
             user("Thanks, that's all."), assistant("Bye."),
             user("I've got a trip. I'm not sure how long I'll be there; find a flight."),
             assistant("From where?"), user("From Denver."), assistant("Delta at 9 am.")]
    split = split_issues(items, schema=SGD)
    # "New York" on day 2 is day 2's flight, not a return to day 1's
    assert [(i.subject, i.turns) for i in split.issues] == [
        ("Flights", (1, 2)), ("Flights", (3, 4, 5)), ("Flights", (6, 7))]
    # "there" on day 3 does not point to a place said on another day
    assert split.issues[2].context == ()
    # a second service opened without a back-reference carries no place: a bank has none
    bank = split_issues([user("Find a flight to Portland from Los Angeles."),
                         assistant("Alaska at 11:45 am."),
                         user("Ok. Check my savings balance."), assistant("$14,774.")],
                        schema=SGD)
    assert [(i.subject, i.context) for i in bank.issues] == [("Flights", ()), ("Banks", ())]


@pytest.mark.parametrize("broken", [False, True])
def test_the_agents_answer_keeps_a_look_alike_word_with_the_service(broken, monkeypatch):
    from ctxlab.handoffs import service_split

    if broken:
        monkeypatch.setattr(service_split, "_answered_as", lambda *args: False)
    items = [user("I want one room at a 2 star hotel in San Francisco."),
             assistant("Beck's Motor Lodge. Are you checking in on March 8th?"),
             user("No, I wouldn't be checking in until the 10th of March."),
             assistant("To confirm: 1 room at the hotel from March 10th?")]
    split = split_issues(items, schema=SGD)
    # "checking in" is a bank's word ("checking account"); the answer is about the room
    assert ([i.subject for i in split.issues] == ["Hotels"]) is not broken


@pytest.mark.parametrize("broken", ["", "no carry", "any place slot"])
def test_a_new_issue_that_names_no_city_carries_the_one_the_customer_just_went_to(
        broken, monkeypatch):
    from ctxlab.handoffs import service_split
    from ctxlab.handoffs.services import ServiceSchema

    if broken == "no carry":
        monkeypatch.setattr(service_split, "_carried", lambda state, schema: None)
    if broken == "any place slot":  # a ride's "destination" taken for a city
        monkeypatch.setattr(ServiceSchema, "asks_city", ServiceSchema.asks_place)
    flight = [user("Find me a flight to San Diego, leaving from Fresno."),
              assistant("Alaska Airlines at 9 am."), user("I prefer United Airlines."),
              assistant("United at 11 am."), user("Any in economy?"),
              assistant("Yes, for $120."), user("How many stops?"), assistant("None."),
              user("When does it land?"), assistant("At 1 pm."), user("Book it."),
              assistant("Booked.")]
    hotel = split_issues([*flight, user("Good. Now I need a hotel for 2 nights."),
                          assistant("How many rooms?")], schema=SGD)
    # the hotel's city is never said in its own turns, nor in the last four: the flight's
    # destination (not where it leaves from, nor the airline) is carried into its handover
    assert [i.subject for i in hotel.issues] == ["Flights", "Hotels"]
    assert (hotel.issues[1].context == ("San Diego",)) is (broken != "no carry")
    # a hotel whose own turns name its place carries nothing
    named = split_issues([*flight, user("Good. Now I need a hotel in Oakland."),
                          assistant("How many rooms?")], schema=SGD)
    assert named.issues[1].context == ()
    # a ride has no city, only an address to go to: the restaurant's city is not it
    ride = split_issues([user("Book a table at a restaurant in San Jose."),
                         assistant("Sino at 7 pm?"), user("Is it pricey?"),
                         assistant("Moderate."), user("Do they serve alcohol?"),
                         assistant("Yes."), user("Outdoor seats?"), assistant("No."),
                         user("Book it."), assistant("Booked."),
                         user("Great. I also need a cab for 2 people."),
                         assistant("Where to?")], schema=SGD)
    assert [i.subject for i in ride.issues] == ["Restaurants", "RideSharing"]
    assert (ride.issues[1].context == ()) is (broken != "any place slot")


@pytest.mark.parametrize("broken", ["", "digits only", "every word", "no one"])
def test_the_score_reads_small_counts_said_in_words(broken, monkeypatch):
    import re

    from ctxlab.course.corpora.dialogues import SlotFact
    from ctxlab.eval import dialogue_handoffs

    if broken == "digits only":
        monkeypatch.setattr(dialogue_handoffs, "NUMBER_WORDS", ())
    if broken == "no one":  # "one room" not read as the count 1
        monkeypatch.setattr(dialogue_handoffs, "ONE", re.compile(r"(?!)"))
    if broken == "every word":  # "one" taken for the count 1
        monkeypatch.setattr(dialogue_handoffs, "NUMBER_WORDS",
                            ("zero", "one", *dialogue_handoffs.NUMBER_WORDS[2:]))

    def fact(topic: str, slot: str, value: str) -> SlotFact:
        return SlotFact("d", topic, slot, value, (value,), (), "user", 0)

    facts = {(0, "Flights_3"): [fact("Flights_3", "number_checked_bags", "0"),
                                fact("Flights_3", "passengers", "2")],
             (1, "Flights_3"): [fact("Flights_3", "passengers", "1")]}
    view = "A one-way flight for two people, please. I have zero bags."
    missing, leaked, _stale = score_view(view, (0, "Flights_3"), facts, "", "en")
    # "zero bags" and "two people" say the answer key's "0" and "2"
    assert (missing == ()) is (broken != "digits only")
    # "one-way" is not the other day's count of 1 passenger
    assert (leaked == ()) is (broken != "every word")
    # "one room" is the count 1 (not read, the hotel's handover would miss it)
    rooms = {(0, "Hotels_4"): [fact("Hotels_4", "number_of_rooms", "1")]}
    missing, _leaked, _stale = score_view("I need one room in Anaheim.", (0, "Hotels_4"),
                                          rooms, "", "en")
    assert (missing == ()) is (broken != "no one")


@pytest.mark.parametrize("broken", [False, True])
def test_an_english_there_never_points_to_the_sentence_before(broken, monkeypatch):
    from ctxlab.handoffs import service_split

    if broken:  # the Chinese fallback for English too: "there" is the sentence before
        monkeypatch.setattr(service_split, "_english", lambda text: False)
    items = [user("I need a bus to New York from Washington for 4 people."),
             assistant("One leaves at 8:10 am."), user("Which station does it leave from?"),
             assistant("Union Station."), user("Any other buses?"), assistant("One at 8:20."),
             user("Okay, that sounds fine."), assistant("Shall I buy the tickets?"),
             user("No, not now."), assistant("Anything else?"),
             user("Um, are there any hotels there?"),
             assistant("For how many nights?")]
    split = split_issues(items, schema=SGD)
    assert [i.subject for i in split.issues] == ["Buses", "Hotels"]
    # no place in the last four turns: the bus's destination, not "No, not now."
    assert (split.issues[1].context == ("New York",)) is not broken


@pytest.mark.parametrize("broken", [False, True])
def test_a_chinese_journey_from_one_venue_to_another_asks_for_the_ride(broken, monkeypatch):
    from ctxlab.handoffs import service_split

    if broken:  # the venues at the journey's ends count as asked for
        monkeypatch.setattr(service_split, "_journey", lambda schema, text: {})
    items = [user("我想找一家评分4.5分以上的餐馆，人均100元左右。"),
             assistant("推荐您去四季民福烤鸭店（故宫店）。"),
             user("好的，它家的地址在哪？"), assistant("在东城区南池子大街。"),
             user("吃完饭我想从饭店坐地铁到酒店，应该在哪站上车、哪站下车？"),
             assistant("您可以从天安门东站上车，到王府井站下车。")]
    split = split_issues(items, schema=ZH)
    # 饭店 and 酒店 are where the ride starts and ends: the turn asks for the subway
    assert ([i.subject for i in split.issues] == ["餐馆", "地铁"]) is not broken


@pytest.mark.parametrize("broken", [False, True])
def test_a_yes_in_other_words_takes_the_offered_service(broken, monkeypatch):
    import re

    from ctxlab.handoffs import service_split

    if broken:  # only the plain yes words
        monkeypatch.setattr(service_split, "AFFIRM", re.compile(
            r"^\W*(?:yes|yeah|yep|sure|ok(?:ay)?|please\s+do|sounds\s+good)", re.IGNORECASE))
    items = [user("I need a one-way flight to Sydney from Seattle."),
             assistant("Alaska Airlines at 7:30 am for $320."),
             user("Good. Could you check my savings balance?"), assistant("It's $13,536."),
             user("I see, thanks!"), assistant("Would you like to make a transfer?"),
             user("Could you do so please?"), assistant("To whom, and how much?"),
             user("Send 260 bucks to Diego."), assistant("Transfer initiated."),
             user("That's all."), assistant("Bye."),
             user("I need a one-way flight on the 11th."), assistant("From where?")]
    split = split_issues(items, schema=SGD)
    subjects = [split.issue(n).subject for n in split.turn_issue]
    # "Could you do so please?" says yes to the transfer: it and what follows are the
    # bank's, not left waiting for the next day's flight
    assert (subjects[3:6] == ["Banks", "Banks", "Banks"]) is not broken, subjects


@pytest.mark.parametrize("broken", [False, True])
def test_a_yes_to_the_offer_after_a_thank_you_goes_on_with_the_same_issue(broken,
                                                                           monkeypatch):
    from ctxlab.handoffs import service_split

    if broken:  # the first edition: after a thank-you no issue is under way to go on with
        monkeypatch.setattr(service_split, "_service", lambda state: None)
    therapist = [user("Can you find a family counselor in Los Gatos?"),
                 assistant("Emily Rosenbaum is a family counselor in Los Gatos."),
                 user("Thank you, that one sounds good!"),
                 assistant("Would you like me to book an appointment with the therapist?"),
                 user("Yes, that would be great!"), assistant("What date?"),
                 user("The 12th, please."), assistant("Booked for March 12th.")]
    split = split_issues(therapist, schema=SGD)
    assert ([(i.subject, i.turns) for i in split.issues] == [("Services", (1, 2, 3, 4))]) \
        is not broken
    if broken:
        return
    # a yes to another service's offer after the thank-you opens that one
    ride = split_issues([*therapist[:3], assistant("Shall I book you a cab there?"),
                         user("Yes, that would be great!"), assistant("For how many?")],
                        schema=SGD)
    assert [i.subject for i in ride.issues] == ["Services", "RideSharing"]


@pytest.mark.parametrize("broken", [False, True])
def test_the_venue_the_agent_found_named_again_resumes_its_issue(broken, monkeypatch):
    import re

    from ctxlab.handoffs import service_split

    if broken:
        monkeypatch.setattr(service_split, "RECALLED", re.compile(_NEVER))
    hotel = [user("Can you find me a hotel in New York?"),
             assistant("The AC Hotel Times Square has 4 stars."), user("Sounds great."),
             assistant("Shall I reserve it?"), user("No, not now, thank you."),
             assistant("Anything else?"), user("What's the weather on March 5th?"),
             assistant("73 degrees, 51 percent chance of rain.")]
    split = split_issues([*hotel, user("Okay, I want to stay in that hotel you found "
                                       "for four days."), assistant("From March 5th?")],
                         schema=SGD)
    # the same hotel, found before the weather: one issue, not a second hotel search
    assert ([i.subject for i in split.issues] == ["Hotels", "Weather"]) is not broken
    # after a goodbye that ended the day, "the hotel you found" is another day's: new issue
    ended = split_issues([*hotel[:4], user("No, that's all."), assistant("Bye."),
                          user("Book that hotel you found for me."), assistant("Which?")],
                         schema=SGD)
    assert [i.subject for i in ended.issues] == ["Hotels", "Hotels"]


@pytest.mark.parametrize("broken", [False, True])
def test_the_agents_farewell_ends_the_conversation(broken, monkeypatch):
    import re

    from ctxlab.handoffs import service_split

    if broken:  # only the customer's goodbye ends it
        monkeypatch.setattr(service_split, "FAREWELL", re.compile(_NEVER))
    items = [user("I need a one way flight to Portland on March 9th."),
             assistant("From where?"), user("From New York."),
             assistant("Delta at 6:40 pm for $210."),
             user("Great, I think I can choose that."), assistant("Ok, have a good journey."),
             user("I need a one way flight."), assistant("Where are you going?"),
             user("To San Francisco, from Philadelphia."), assistant("American at 2:35 pm.")]
    split = split_issues(items, schema=SGD)
    # the agent said goodbye: the next flight is another day's booking
    assert ([i.subject for i in split.issues] == ["Flights", "Flights"]) is not broken
    # "Anything else?" after a goodbye-like phrase asks on: no end there; nor is "I have
    # a Delta Airlines flight" a wish
    for reply in ("Have a good day! Anything else?", "I have a Delta Airlines flight."):
        going = split_issues([*items[:5], assistant(reply), *items[6:]], schema=SGD)
        assert [i.subject for i in going.issues] == ["Flights"], reply

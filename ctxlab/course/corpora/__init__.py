"""Conversations to test memory on: real transcripts, the course's examples, your own logs.

Every conversation comes back as a list of Responses input items in the shapes the Agents
SDK stores in a session, so it can be replayed through any memory strategy as it is:

* :func:`load_tau_bench`: 200 airline customer-service transcripts (tau-bench, MIT);
* :func:`load_abcd`: 3 human-to-human customer-service chats (ABCD, MIT);
* :func:`load_zh_support`: 14 Chinese IT and appliance support chats written for ctxlab
  (CC BY 4.0), the source article's fridge example among them;
* :func:`seed_trimming_flow`, :func:`seed_router_flow`, :func:`seed_support_conversation`:
  the course's own example conversations;
* :func:`load_conversation_file`: a log of your own (JSON or JSONL, Chat Completions
  messages or Responses items);
* :func:`chat_to_responses`: the converter from Chat Completions messages underneath;
* :func:`load_sgd` (English, CC BY-SA 4.0) and :func:`load_crosswoz` (Chinese, Apache-2.0):
  annotated task dialogues as :class:`Dialogue` records, with :func:`answer_key` (current
  and superseded value per slot, who said it, from the state annotations) and
  :func:`chain_customers` (dialogues chained as one customer's days).

Each :class:`Conversation` carries :class:`Fact` records: the identifiers a memory strategy
must keep available (reservation codes, ticket numbers, emails, ...), with the index of the
item that first mentions each one. The data files ship inside the package
(``ctxlab/data``, see its README for sources and licenses).

Modules: :mod:`.records` (the types), :mod:`.convert` (Chat Completions and files),
:mod:`.datasets` (packaged transcripts), :mod:`.seeds` (the course's examples),
:mod:`.dialogues` (annotated task dialogues), :mod:`.sgd`, :mod:`.crosswoz`.
"""

from __future__ import annotations

from .convert import chat_to_responses, load_conversation_file
from .crosswoz import crosswoz_dialogue, load_crosswoz
from .datasets import (
    ABCD_FACT_KEYS,
    TAU_FACT_KEYS,
    ZH_SOURCE,
    load_abcd,
    load_tau_bench,
    load_zh_support,
)
from .dialogues import (
    Customer,
    Dialogue,
    SlotFact,
    Turn,
    answer_key,
    chain_customers,
    split_half,
)
from .records import Conversation, Fact, locate_facts
from .seeds import (
    Probe,
    seed_router_flow,
    seed_support_conversation,
    seed_trimming_flow,
    support_chat_script,
)
from .sgd import load_sgd, load_sgd_schema, sgd_dialogue

__all__ = [
    "ABCD_FACT_KEYS",
    "TAU_FACT_KEYS",
    "ZH_SOURCE",
    "Conversation",
    "Customer",
    "Dialogue",
    "Fact",
    "Probe",
    "SlotFact",
    "Turn",
    "answer_key",
    "chain_customers",
    "chat_to_responses",
    "crosswoz_dialogue",
    "load_abcd",
    "load_conversation_file",
    "load_crosswoz",
    "load_sgd",
    "load_sgd_schema",
    "load_tau_bench",
    "load_zh_support",
    "locate_facts",
    "seed_router_flow",
    "seed_support_conversation",
    "seed_trimming_flow",
    "sgd_dialogue",
    "split_half",
    "support_chat_script",
]

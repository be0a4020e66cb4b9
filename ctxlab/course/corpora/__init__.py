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
* :func:`chat_to_responses`: the converter from Chat Completions messages underneath.

Each :class:`Conversation` carries :class:`Fact` records: the identifiers a memory strategy
must keep available (reservation codes, ticket numbers, emails, ...), with the index of the
item that first mentions each one. The data files ship inside the package
(``ctxlab/data``, see its README for sources and licenses).

Modules: :mod:`.records` (the types), :mod:`.convert` (Chat Completions and files),
:mod:`.datasets` (packaged transcripts), :mod:`.seeds` (the course's examples).
"""

from __future__ import annotations

from .convert import chat_to_responses, load_conversation_file
from .datasets import (
    ABCD_FACT_KEYS,
    TAU_FACT_KEYS,
    ZH_SOURCE,
    load_abcd,
    load_tau_bench,
    load_zh_support,
)
from .records import Conversation, Fact, locate_facts
from .seeds import (
    Probe,
    seed_router_flow,
    seed_support_conversation,
    seed_trimming_flow,
    support_chat_script,
)

__all__ = [
    "ABCD_FACT_KEYS",
    "TAU_FACT_KEYS",
    "ZH_SOURCE",
    "Conversation",
    "Fact",
    "Probe",
    "chat_to_responses",
    "load_abcd",
    "load_conversation_file",
    "load_tau_bench",
    "load_zh_support",
    "locate_facts",
    "seed_router_flow",
    "seed_support_conversation",
    "seed_trimming_flow",
    "support_chat_script",
]

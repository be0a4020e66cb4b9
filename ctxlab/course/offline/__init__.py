"""ctxlab's offline backend: a deterministic IT-support simulator and its data.

* :class:`OfflineSupportModel` (:mod:`.model`): an Agents SDK ``Model`` that answers only
  from its input, so the course runs without an API key and memory effects stay visible.
* :func:`find_facts` (:mod:`.facts`): ticket ids, serials, error codes, ... in a
  conversation; shared with structured memory and evaluation.
* :mod:`.catalog`: the devices and tickets behind the support agent's tools.
* :mod:`.playbook`, :mod:`.intents`, :mod:`.responder`, :mod:`.replies`: the rules the
  simulator follows, small enough to read in one sitting.
"""

from ...facts.typed import (
    FACT_KINDS,
    FACT_LABELS,
    INSTRUCTIONS_INDEX,
    Found,
    distinct_values,
    facts_in_text,
    find_facts,
    latest_fact,
)
from ...memory.playbook import PLAYBOOK, PLAYBOOK_ZH, Symptom, SymptomMatch, match_symptoms
from .catalog import AS_OF, DEVICES, TICKETS, device_record, ticket_status, warranty_status
from .model import OFFLINE_MODEL_NAME, OfflineResult, OfflineSupportModel, stream_events
from .reader import RealisticReader

__all__ = [
    "AS_OF",
    "DEVICES",
    "FACT_KINDS",
    "FACT_LABELS",
    "INSTRUCTIONS_INDEX",
    "OFFLINE_MODEL_NAME",
    "PLAYBOOK",
    "PLAYBOOK_ZH",
    "TICKETS",
    "Found",
    "OfflineResult",
    "OfflineSupportModel",
    "RealisticReader",
    "Symptom",
    "SymptomMatch",
    "device_record",
    "distinct_values",
    "facts_in_text",
    "find_facts",
    "latest_fact",
    "match_symptoms",
    "stream_events",
    "ticket_status",
    "warranty_status",
]

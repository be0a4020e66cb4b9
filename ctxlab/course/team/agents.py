"""The course's support team: a support agent, a repair desk and the support staff.

    team = make_support_team(input_filter=IssueHandover())
    result = await Runner.run(team["support"], "Back to my laptop: can you pass me to the "
                              "repair team?", session=session)

The support agent (the course's IT-support agent, its tools plus any ``extra_tools``) can
hand off to the repair desk and escalate to a person; the repair desk (warranty and device
tools) can escalate to a person. Offline, every agent runs on :class:`OfflineTeamModel`;
with a real backend configured (``choose_backend``), on that model.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agents import Agent
from agents.models.interface import Model

from ...handoffs import HumanQueue, connect, human_agent
from ..agent import SUPPORT_INSTRUCTIONS, check_warranty, lookup_device, make_support_agent
from ..backends import Backend, choose_backend
from ..offline import OfflineSupportModel
from .model import OfflineTeamModel

REPAIR_INSTRUCTIONS = """\
You are the repair desk of an IT support team. Customers are passed to you when a device
needs a repair. Check the device's warranty first (check_warranty with the device's serial
number), then explain the repair options in a few short steps. Use only identifiers the
customer or a tool gave for *this* device; if the handover mentions other devices, leave
them alone.
"""

SALES_INSTRUCTIONS = """\
You are the sales assistant of an IT shop. You help customers choose and buy devices and
accessories, and answer questions about offers and prices. Keep answers short.
"""

#: What the support agent is told about the team it belongs to.
TEAM_NOTE = """
You work in a team. Pass the customer to the repair desk when a device needs a repair and
they ask for it; escalate to the support staff when they ask for a person.
"""


def team_model(model: Backend | Model | str | None) -> Backend | Model | str:
    """``model``, or (None) the configured backend: :class:`OfflineTeamModel` offline."""
    if model is not None:
        return model
    backend = choose_backend()
    return OfflineTeamModel() if isinstance(backend.model, OfflineSupportModel) else backend


def make_support_team(model: Backend | Model | str | None = None, *,
                      input_filter: Any = None, queue: HumanQueue | None = None,
                      extra_tools: Sequence[Any] = ()) -> dict[str, Agent[Any]]:
    """The team as ``{"support": ..., "repair": ..., "human": ...}`` (see the module doc).

    ``input_filter`` is what every handoff gives the receiver (default: the SDK's, the
    whole history); ``queue`` collects escalations (a new :class:`HumanQueue` by default,
    reachable as ``team["human"].model.queue``).
    """
    model = team_model(model)
    support = make_support_agent(model, name="Support",
                                 instructions=SUPPORT_INSTRUCTIONS + TEAM_NOTE,
                                 tools=[*make_support_agent(model).tools, *extra_tools])
    repair = make_support_agent(model, name="Repair desk", instructions=REPAIR_INSTRUCTIONS,
                                tools=[check_warranty, lookup_device])
    repair.handoff_description = "the repair desk, for devices that need a repair"
    human = human_agent(queue if queue is not None else HumanQueue())
    return connect({"support": support, "repair": repair, "human": human},
                   {"support": ["repair", "human"], "repair": ["human"]},
                   input_filter=input_filter)

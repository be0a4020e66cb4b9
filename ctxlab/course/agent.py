"""The course's IT-support agent: instructions, three tools, and a factory.

The tools read the fixed help-desk catalog in :mod:`ctxlab.course.offline.catalog`, so they return
the same JSON on every machine; an unknown serial or ticket id gives JSON with an
``"error"`` field, never an exception. ``lookup_device`` returns a deliberately bulky record
(about 2,000 tokens) so a later lesson can show the token spike and compact it.

Example::

    agent = make_support_agent()                # the backend choose_backend() picks
    agent = make_support_agent("gpt-4.1-mini")  # or a model name, a Model or a Backend
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from agents import Agent, FunctionTool, ModelSettings, OpenAIChatCompletionsModel, function_tool
from agents.models.interface import Model

from .backends import Backend, choose_backend
from .offline import OfflineSupportModel, catalog
from .offline.reader import RealisticReader

SUPPORT_INSTRUCTIONS = """\
You are a patient IT support assistant. You help people with their laptops, phones,
peripherals and work software.

How you work:
- Keep answers short. Give troubleshooting steps as a numbered list, one action per step.
- When something is unclear, ask one focused clarifying question, then wait for the answer.
  Never ask several questions at once.
- A conversation can cover several issues. Keep track of each one, work on one at a time,
  and check with the user that an issue is solved before you move on to the next.
- Use your tools instead of guessing: lookup_device for a device's record, check_warranty
  for coverage and repair authorisations, get_ticket_status for an existing ticket.
- Only use serial numbers, ticket ids, RMA numbers and other identifiers that the user
  gave you or that a tool returned. Never make one up; if you need one you do not have,
  ask for it.
"""


def _dump(data: dict[str, Any]) -> str:
    return json.dumps(data, ensure_ascii=False)


@function_tool
def lookup_device(serial: str) -> str:
    """Look up a device in the asset catalog: model, purchase date, firmware, owner and
    full diagnostics (event log, sensor readings, installed software).

    Args:
        serial: The device's serial number (or service tag), for example as printed on
            the label under the laptop.
    """
    return _dump(catalog.device_record(serial))


@function_tool
def check_warranty(serial: str) -> str:
    """Check a device's warranty: covered or expired, the end date and, when covered,
    the RMA number for a repair.

    Args:
        serial: The device's serial number (or service tag).
    """
    return _dump(catalog.warranty_status(serial))


@function_tool
def get_ticket_status(ticket_id: str) -> str:
    """Get the status, owner and last update of a support ticket.

    Args:
        ticket_id: The ticket id, for example as given in the ticket confirmation email.
    """
    return _dump(catalog.ticket_status(ticket_id))


#: The support agent's tools, in the order the agent lists them.
SUPPORT_TOOLS: tuple[FunctionTool, ...] = (lookup_device, check_warranty, get_ticket_status)


def make_support_agent(
    model: Backend | Model | str | None = None,
    *,
    name: str = "IT Support",
    instructions: str = SUPPORT_INSTRUCTIONS,
    tools: Sequence[Any] | None = None,
    model_settings: ModelSettings | None = None,
    reader: RealisticReader | None = None,
) -> Agent[Any]:
    """The IT-support agent, on the given model.

    Args:
        model: None for the backend :func:`ctxlab.course.backends.choose_backend` picks from the
            environment (offline when no key is set); a :class:`~ctxlab.course.backends.Backend`;
            an ``agents`` ``Model`` instance; or a model name such as ``"gpt-4.1-mini"``.
        name: the agent's name.
        instructions: the system instructions (default :data:`SUPPORT_INSTRUCTIONS`).
        tools: the tools to offer (default :data:`SUPPORT_TOOLS`); pass ``[]`` for none.
        model_settings: the agent's model settings. Default: the backend's (on an
            OpenAI-compatible server: usage on streamed runs and a reply cap); for an
            ``OpenAIChatCompletionsModel`` passed directly, ``include_usage=True`` so that
            streamed runs report tokens; otherwise the SDK's defaults.
        reader: on the offline model only, how it reads its window: None (every fact in
            view is found) or a :class:`~ctxlab.course.offline.reader.RealisticReader`
            ("lost in the middle", a labelled simulation). A real model reads as it reads,
            so the argument is ignored for one.
    """
    if model is None:
        model = choose_backend()
    if model_settings is not None and not isinstance(model_settings, ModelSettings):
        raise TypeError(
            f"model_settings must be an agents ModelSettings, got {type(model_settings).__name__}"
        )
    if reader is not None and not isinstance(reader, RealisticReader):
        raise TypeError(f"reader must be None or a RealisticReader, got {type(reader).__name__}")
    model, model_settings = _model_and_settings(model, model_settings, reader)
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"name must be a non-empty string, got {name!r}")
    if not isinstance(instructions, str):
        raise TypeError(f"instructions must be a str, got {type(instructions).__name__}")
    return Agent(name=name, instructions=instructions, model=model, tools=_tool_list(tools),
                 model_settings=model_settings or ModelSettings())


def _model_and_settings(
    model: Backend | Model | str,
    model_settings: ModelSettings | None,
    reader: RealisticReader | None,
) -> tuple[Model | str, ModelSettings | None]:
    """The model the agent runs on (a backend unwrapped, the offline model given the
    reader) and its settings (the backend's, or usage on for Chat Completions)."""
    if isinstance(model, Backend):
        model_settings = model_settings or model.model_settings
        model = model.model
    if reader is not None and isinstance(model, OfflineSupportModel):
        model = OfflineSupportModel(model.model_name, encoding=model.encoding,
                                    words_per_delta=model.words_per_delta, reader=reader)
    elif model_settings is None and isinstance(model, OpenAIChatCompletionsModel):
        model_settings = ModelSettings(include_usage=True)
    if isinstance(model, str):
        if not model.strip():
            raise ValueError("model name must not be empty")
    elif not isinstance(model, Model):
        raise TypeError(
            "model must be None, a ctxlab Backend, an agents Model instance or a model name "
            f"string; got {type(model).__name__}"
        )
    return model, model_settings


def _tool_list(tools: Sequence[Any] | None) -> list[Any]:
    if tools is None:
        return list(SUPPORT_TOOLS)
    if isinstance(tools, (str, bytes)) or not isinstance(tools, Sequence):
        raise TypeError(f"tools must be a list of tools, got {type(tools).__name__}")
    return list(tools)

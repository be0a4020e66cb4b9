"""Did the agent do what it says it did? A verdict from what is stored, never from the reply.

A model can say "I've deleted everything" or "I've passed you to a person" without calling
the tool that does it: a small model often does, and on ``llama-cpp-python[server]`` every
model does, because the server drops the request's tools unless ``tool_choice`` is sent
(:data:`~ctxlab.course.server_limits.TOOLS_NEED_TOOL_CHOICE`). A lesson that shows an
action checks it:

    gone = case.user_id not in await memory.users()          # what is stored, read back
    print(check_action("delete the customer's data", happened=gone, result=result,
                       tool="delete_my_data"))

:func:`check_action` takes ``happened`` from the caller (a read of the store, the queue, the
file), the run's result for what the model *called* and *said*, and the backend for why a
tool may never have reached the model. The reply is reported as a claim, and never decides
the verdict. :class:`ActionCheck` prints as one line (plus the reason when the action did
not happen); :meth:`ActionCheck.require` raises :class:`ActionNotTaken`, an error that names
the server limit when it is the reason (so ``scripts/real_server_smoke.py`` counts it as a
named limit, not a failure).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .server_limits import LLAMA_CPP_PYTHON, TOOLS_ADVICE, TOOLS_NEED_TOOL_CHOICE

__all__ = ["ActionCheck", "ActionNotTaken", "called_tools", "check_action"]


@dataclass(frozen=True)
class ActionCheck:
    """The verdict on one action (see the module docstring).

    ``happened`` comes from what is stored; ``called`` are the tools (and handoffs) the
    model called in the run; ``claim`` is its final reply, a claim only; ``reason`` says why
    the action did not happen ("" when it did); ``limit`` names the server limit when that
    is the reason.
    """

    action: str
    happened: bool
    tool: str | None = None
    called: tuple[str, ...] = ()
    claim: str = ""
    reason: str = ""
    limit: str | None = None

    def __bool__(self) -> bool:
        return self.happened

    def __str__(self) -> str:
        if self.happened:
            how = f" (the model called {self.tool})" if self.tool in self.called else ""
            return f"checked: {self.action}: it happened{how}"
        lines = [f"checked: {self.action}: it did NOT happen. {self.reason}"]
        if self.claim:
            lines.append(f"  the reply (a claim, not evidence): {_short(self.claim)}")
        return "\n".join(lines)

    def require(self) -> ActionCheck:
        """This check, or :class:`ActionNotTaken` when the action did not happen."""
        if not self.happened:
            raise ActionNotTaken(self)
        return self


class ActionNotTaken(RuntimeError):
    """An action an agent was to take did not happen; ``check`` says why, ``limit`` names
    the server limit when it is the cause."""

    def __init__(self, check: ActionCheck) -> None:
        super().__init__(str(check))
        self.check = check
        self.limit = check.limit


def _short(text: str, width: int = 160) -> str:
    line = " ".join(str(text).split())
    return repr(line if len(line) <= width else line[: width - 1] + "…")


def called_tools(result: Any) -> tuple[str, ...]:
    """The names of the tools and handoffs the model called in a run (``RunResult``)."""
    names = []
    for item in getattr(result, "new_items", None) or ():
        if getattr(item, "type", "") in ("tool_call_item", "handoff_call_item"):
            name = getattr(item.raw_item, "name", None)
            if name is None and isinstance(item.raw_item, dict):
                name = item.raw_item.get("name")
            if name:
                names.append(str(name))
    return tuple(names)


def _server_reason(backend: Any) -> tuple[str, str | None]:
    """Why a tool may never have reached the model on ``backend`` (a Backend, or a model
    the agents ran on), and the limit if known."""
    from .backends import Backend
    from .offline import OfflineSupportModel

    name = backend.name if isinstance(backend, Backend) else None
    if name == "offline" or isinstance(backend, OfflineSupportModel):
        return "the offline model chose not to call it (its rules did not match the message)", None
    if name != "openai-compatible":
        return "the model chose not to call it", None
    from .backends import server_check

    found = server_check(backend)
    if found is not None and found.kind == LLAMA_CPP_PYTHON:
        return (f"the server is {LLAMA_CPP_PYTHON}: server limit: {TOOLS_NEED_TOOL_CHOICE}; "
                f"the model never saw the tool. What to do: {TOOLS_ADVICE}"), \
            TOOLS_NEED_TOOL_CHOICE
    return ("the model chose not to call it, or the server did not pass the tools on "
            f"({LLAMA_CPP_PYTHON} drops them unless tool_choice is sent; see the README's "
            "Tools section)"), None


def check_action(action: str, *, happened: bool, result: Any = None, tool: str | None = None,
                 backend: Any = None, called: Sequence[str] | None = None) -> ActionCheck:
    """The verdict on ``action`` (see the module docstring).

    Args:
        action: what was to happen, as a phrase ("delete the customer's data").
        happened: whether it did, read from what is stored (not from the reply).
        result: the run's ``RunResult``: what the model called and said.
        tool: the tool or handoff that does it (``"delete_my_data"``,
            ``"transfer_to_human_agent"``).
        backend: the backend (or the model) the agents ran on (default: the one the
            environment picks, as ``make_support_team`` does).
        called: the tools called, when there is no ``result``.
    """
    if not isinstance(action, str) or not action.strip():
        raise ValueError(f"action must be a non-empty phrase, got {action!r}")
    if not isinstance(happened, bool):
        raise TypeError("happened must be a bool read from what is stored (e.g. "
                        f"`user not in await memory.users()`), got {type(happened).__name__}")
    names = tuple(called) if called is not None else called_tools(result)
    claim = str(getattr(result, "final_output", "") or "")
    if happened:
        return ActionCheck(action, True, tool, names, claim)
    limit = None
    if tool is not None and tool in names:
        reason = f"The model called {tool}, but nothing changed: the tool failed or was refused."
    else:
        if backend is None:
            from .backends import choose_backend

            backend = choose_backend()
        why, limit = _server_reason(backend)
        what = f"call {tool}" if tool else "call any tool"
        reason = f"The model did not {what}: {why}."
    return ActionCheck(action, False, tool, names, claim, reason, limit)

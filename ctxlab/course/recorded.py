"""Model outputs recorded once and shipped with the course, so a lesson can show them offline.

:func:`recorded_llm_summary` loads ``ctxlab/data/recorded/llm_summary.json``: an
:class:`~ctxlab.LLMSummarizer` fold recorded on a real model server (which server, which model,
when, the exact request and the reply). A lesson that prints it says that it is a recording.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from typing import Any

from ..core.display import wrap_lines
from ..facts.identifiers import identifier_values


@dataclass(frozen=True)
class RecordedSummary:
    """One recorded LLMSummarizer call (see the module docstring)."""

    recorded: str
    server: str
    model: str
    seconds: float
    request: dict[str, Any]
    reply: str
    usage: dict[str, int | None]
    folded_items: list[dict[str, Any]]

    @property
    def system_prompt(self) -> str:
        return str(self.request["messages"][0]["content"])

    @property
    def user_message(self) -> str:
        return str(self.request["messages"][1]["content"])

    def missing_identifiers(self) -> list[str]:
        """Identifiers of the folded turns that the reply does not contain."""
        said = "\n".join(str(item.get("content", "")) for item in self.folded_items)
        return [v for v in identifier_values(said) if v not in self.reply]

    def describe(self) -> str:
        """Where, when and with what it was recorded, in three lines (each wrapped at spaces
        to fit a notebook line)."""
        return wrap_lines(f"RECORDED on {self.recorded} (not run now): {self.model}\n"
                          f"served by {self.server}\n"
                          f"{self.usage.get('input_tokens')} input tokens, "
                          f"{self.usage.get('output_tokens')} output tokens "
                          f"(max_tokens={self.request.get('max_tokens')}), {self.seconds} s")


def recorded_llm_summary() -> RecordedSummary:
    """The recorded LLMSummarizer fold shipped with ctxlab."""
    path = resources.files("ctxlab") / "data" / "recorded" / "llm_summary.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    return RecordedSummary(
        recorded=data["recorded"], server=data["server"], model=data["model"],
        seconds=float(data["seconds"]), request=data["request"], reply=data["reply"],
        usage=dict(data["usage"]), folded_items=list(data["folded_items"]))

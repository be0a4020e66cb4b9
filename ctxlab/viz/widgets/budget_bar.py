"""BudgetBar: the tokens a model call is sent, by section, against the full history."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import ipywidgets as widgets

from ...core.sections import FULL_HISTORY, SECTIONS, budget_sections, full_tokens, sent_tokens
from .render import budget_html

KNOWN_KEYS = frozenset((*SECTIONS, FULL_HISTORY))


def check_sections(sections: Mapping[str, Any]) -> dict[str, int]:
    """``sections`` with every key present; ValueError naming unknown keys or bad values."""
    if not isinstance(sections, Mapping):
        raise ValueError(f"sections must be a mapping of section -> tokens, got "
                         f"{type(sections).__name__}")
    unknown = sorted(set(sections) - KNOWN_KEYS)
    if unknown:
        raise ValueError(
            f"unknown budget section(s) {unknown}; expected some of {[*SECTIONS, FULL_HISTORY]}"
        )
    checked = dict.fromkeys((*SECTIONS, FULL_HISTORY), 0)
    for key, value in sections.items():
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"tokens for section {key!r} must be an integer >= 0, got {value!r}")
        checked[key] = value
    return checked


class BudgetBar(widgets.VBox):
    """Two bars on one scale: what the model is sent now, split by section (instructions,
    structured state, summary, recent turns, tool outputs, retrieved memory, new input), and
    what it would be sent with the full history.

    ``sections`` is what :func:`~ctxlab.core.sections.budget_sections` returns; use
    :meth:`from_ledger` or :meth:`from_session` to compute it.
    """

    def __init__(self, sections: Mapping[str, int] | None = None, *, title: str | None = None):
        super().__init__()
        self.add_class("ctxlab-budget")
        self.title = title
        self.html = widgets.HTML()
        self.children = (self.html,)
        self._sections: dict[str, int] = {}
        self.show(sections or {})

    @classmethod
    def from_ledger(
        cls,
        ledger: Any,
        *,
        instructions_tokens: int = 0,
        new_input_tokens: int = 0,
        title: str | None = None,
    ) -> BudgetBar:
        sections = budget_sections(
            ledger, instructions_tokens=instructions_tokens, new_input_tokens=new_input_tokens
        )
        return cls(sections, title=title)

    @classmethod
    async def from_session(
        cls,
        session: Any,
        *,
        instructions_tokens: int = 0,
        new_input_tokens: int = 0,
        limit: int | None = None,
        title: str | None = None,
    ) -> BudgetBar:
        """The budget of the next model call of ``session`` (any object with ``ledger()``)."""
        ledger = await session.ledger(limit)
        return cls.from_ledger(
            ledger,
            instructions_tokens=instructions_tokens,
            new_input_tokens=new_input_tokens,
            title=title,
        )

    @property
    def sections(self) -> dict[str, int]:
        return dict(self._sections)

    @property
    def sent_tokens(self) -> int:
        return sent_tokens(self._sections)

    @property
    def full_tokens(self) -> int:
        return full_tokens(self._sections)

    def show(self, sections: Mapping[str, int]) -> None:
        """Draw new section totals."""
        self._sections = check_sections(sections)
        self.html.value = budget_html(self._sections, title=self.title)

    def to_html(self) -> str:
        return budget_html(self._sections, title=self.title)

    def _repr_html_(self) -> str:
        return self.to_html()

    def __repr__(self) -> str:
        return f"BudgetBar(sent={self.sent_tokens}, full_history_call={self.full_tokens})"

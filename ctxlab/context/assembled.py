"""The result of assembling one model call: the items, and where every token went."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..core.display import NOTEBOOK_COLUMNS, wrap
from ..core.items import item_text, preview
from ..core.sections import SECTIONS

if TYPE_CHECKING:
    from agents.run_config import ModelInputData


@dataclass(frozen=True)
class AssembledContext:
    """One model call as a :class:`~ctxlab.context.ContextManager` built it.

    ``items`` go to the model with ``instructions``; ``item_sections`` names the section of
    each item (same length as ``items``); ``sections`` holds the tokens of every section of
    :data:`ctxlab.core.sections.SECTIONS` (``instructions`` includes the tool schemas and
    any stored preamble; ``tool_tokens`` and ``preamble_tokens`` give those parts). The
    sections add up to ``total``, which equals
    ``ctxlab.core.tokens.count_request_tokens(instructions, items, tools)["total"]``.

    ``floor`` is what can never be dropped (instructions, tool schemas, preamble, the
    current turn); ``dropped`` says, in order, what was left out to meet ``budget`` and
    ``shortened`` which earlier turns were shortened role-aware, counted back from the newest
    (0 = the newest earlier turn).
    ``repaired`` counts items removed because the API would reject them (orphan outputs,
    unanswered calls, dangling reasoning in the input).
    """

    instructions: str | None
    items: list[dict[str, Any]]
    item_sections: tuple[str, ...]
    sections: dict[str, int]
    budget: int
    floor: int
    tool_tokens: int = 0
    preamble_tokens: int = 0
    dropped: tuple[str, ...] = ()
    shortened: tuple[int, ...] = ()
    repaired: int = 0
    warning: str | None = None
    item_tokens: tuple[int, ...] = field(default=(), repr=False)

    @property
    def total(self) -> int:
        """Tokens of the whole request (instructions, tool schemas and items)."""
        return sum(self.sections.values())

    @property
    def over_budget(self) -> bool:
        """True when even the part that is never dropped exceeds the budget."""
        return self.total > self.budget

    def model_input(self) -> ModelInputData:
        """What a ``call_model_input_filter`` returns to the Runner."""
        from agents.run_config import ModelInputData

        return ModelInputData(input=list(self.items), instructions=self.instructions)  # type: ignore[arg-type]

    def items_in(self, section: str) -> list[dict[str, Any]]:
        """The items of one section, in order."""
        if section not in SECTIONS:
            raise ValueError(f"unknown section {section!r}; expected one of {', '.join(SECTIONS)}")
        return [it for it, s in zip(self.items, self.item_sections, strict=True) if s == section]

    def table(self, width: int = 60, *, max_items: int | None = None) -> str:
        """A fixed-width breakdown: sections, then the items with their section and tokens
        (with ``max_items``, only the first and last few, and a line saying how many were
        left out; ``max_items=0`` shows the sections only). What was dropped and the
        warning are wrapped at spaces to fit a notebook line."""
        lines = [f"{'section':<17} {'tokens':>7}"]
        lines += [f"{name:<17} {self.sections[name]:>7}" for name in SECTIONS]
        lines.append(f"{'total':<17} {self.total:>7}  (budget {self.budget}, floor {self.floor})")
        rows = list(enumerate(zip(self.items, self.item_sections, strict=True)))
        shown = rows
        if max_items is not None and len(rows) > max_items:
            head = max_items // 2
            shown = rows[:head] + rows[len(rows) - (max_items - head):] if max_items else []
        for k, (n, (item, section)) in enumerate(shown):
            if k and shown[k - 1][0] != n - 1:
                lines.append(f"    … {n - shown[k - 1][0] - 1} more items …")
            tokens = self.item_tokens[n] if n < len(self.item_tokens) else 0
            lines.append(f"{n:>3} {section:<17} {tokens:>6}  {preview(item_text(item), width)}")
        if max_items == 0 and rows:
            lines.append(f"({len(rows)} items; table(max_items=N) lists some)")
        if self.dropped:
            lines += wrap("dropped: " + "; ".join(self.dropped), NOTEBOOK_COLUMNS, indent="  ")
        if self.warning:
            lines += wrap(f"warning: {self.warning}", NOTEBOOK_COLUMNS, indent="  ")
        return "\n".join(lines)

    def __repr__(self) -> str:
        parts = ", ".join(f"{k}={v}" for k, v in self.sections.items() if v)
        return (
            f"AssembledContext(total={self.total}, budget={self.budget}, items={len(self.items)}, "
            f"{parts})"
        )


def empty_sections() -> dict[str, int]:
    """Every section of :data:`~ctxlab.core.sections.SECTIONS` at zero tokens."""
    return dict.fromkeys(SECTIONS, 0)

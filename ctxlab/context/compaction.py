"""Tool-output compaction: older, bulky tool outputs shown to the model as compact previews.

A device lookup returns ~2,000 tokens of JSON; the model needs them once, in the turn that
asked for them. Afterwards every model call pays for them again. :class:`ToolOutputCompactor`
replaces such outputs, in the model's view only, with a preview that keeps what a later turn
may need:

* **JSON**: the top-level fields that name or identify something (``status``, ``error``,
  ``*_id``, ``serial``, ``rma``, ``email``, ...) verbatim, other short top-level values,
  nested objects as their keys and lists as their length, and then **every identifier**
  found anywhere in the payload (:func:`ctxlab.facts.identifiers.identifier_values`; a long run
  of timestamps is shown as its count and range);
* **text**: its first characters, then the identifiers of the rest.

The preview starts with ``[compacted <tool> output: ...]`` so the model knows it is looking
at a digest, and compacting is idempotent. Stored items are never changed: the compactor
returns new items (or a new ``ModelInputData``), so the session keeps the full output.

Use it as a plain function over items (:meth:`ToolOutputCompactor.compact`) or as the SDK's
``RunConfig(call_model_input_filter=ToolOutputCompactor(...))``. Compared with
``agents.extensions.ToolOutputTrimmer`` (a character preview of the first
``preview_chars``), identifiers and status fields that sit deep inside a payload survive.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from ..core.items import item_text, item_type, loads_json
from ..core.tokens import DEFAULT_ENCODING, ITEM_OVERHEAD_TOKENS, TokenCounter, get_token_counter
from ..core.turns import turn_starts
from ..facts.identifiers import STRICT_KINDS, find_identifiers

if TYPE_CHECKING:
    from agents.run_config import CallModelData, ModelInputData

#: The marker every preview starts with (used to recognize an output already compacted).
COMPACTED_MARK = "[compacted "

#: Top-level keys kept verbatim whatever their length: status, errors and identifiers.
KEY_FIELD = re.compile(
    r"(?:^|_)(?:id|ids|status|state|error|errors|code|serial|number|rma|ticket|order|"
    r"reservation|email|result|success|ok|message|reason|name|model|version|firmware)$",
    re.IGNORECASE,
)

#: Output item types whose ``output`` is a string or a list of content parts.
_OUTPUT_TYPES = frozenset({"function_call_output", "custom_tool_call_output"})
_DATE_KINDS = frozenset({"date", "timestamp", "time"})


# ---------------------------------------------------------------------------- previews


def _short(value: Any, limit: int) -> Any:
    """A scalar as is, or a long string cut to ``limit`` characters."""
    if isinstance(value, str) and len(value) > limit:
        return value[: limit - 1] + "…"
    return value


def _shape(value: Any) -> str:
    """A container described by its size: ``[18 items]`` or ``{3 keys: a, b, c}``."""
    if isinstance(value, list):
        return f"[{len(value)} item{'s' if len(value) != 1 else ''}]"
    if isinstance(value, Mapping):
        inner = ", ".join(
            f"{k}: {_shape(v)}" if isinstance(v, (list, Mapping)) else str(k)
            for k, v in value.items()
        )
        return f"{{{len(value)} keys: {inner}}}"
    return repr(value)


def _json_preview(data: Any, field_chars: int) -> Any:
    """The top level of ``data`` with key fields verbatim and containers described."""
    compact_json = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    if len(compact_json) <= field_chars:
        return data
    if isinstance(data, list):
        keys: list[str] = []
        for entry in data:
            if isinstance(entry, Mapping):
                keys.extend(k for k in entry if k not in keys)
        return f"[{len(data)} items" + (f"; keys: {', '.join(keys)}]" if keys else "]")
    if not isinstance(data, Mapping):
        return _short(data, field_chars)
    out: dict[str, Any] = {}
    for key, value in data.items():
        if isinstance(value, (list, Mapping)):
            small = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
            out[key] = value if len(small) <= field_chars else _shape(value)
        elif KEY_FIELD.search(str(key)):
            out[key] = value
        else:
            out[key] = _short(value, field_chars)
    return out


def _identifier_line(text: str, shown: str, max_dates: int) -> str:
    """Identifiers of ``text`` not already in ``shown``; long date runs become a range."""
    values: dict[str, None] = {}
    dates: dict[str, None] = {}
    for ident in find_identifiers(text):
        if (ident.kind not in STRICT_KINDS and ident.kind != "timestamp") or ident.value in shown:
            continue
        (dates if ident.kind in _DATE_KINDS else values).setdefault(ident.value, None)
    parts = list(values)
    if len(dates) > max_dates:
        ordered = sorted(dates)
        parts.append(f"{len(dates)} timestamps {ordered[0]} … {ordered[-1]}")
    else:
        parts.extend(dates)
    return "; ".join(parts)


def compact_tool_output(
    output: str,
    *,
    tool: str | None = None,
    head_chars: int = 300,
    field_chars: int = 80,
    max_dates: int = 4,
    tokens: int | None = None,
) -> str:
    """A compact preview of one tool output (see the module docstring for what it keeps).

    Args:
        output: the output text (JSON or not).
        tool: the tool's name, for the preview's header.
        head_chars: for non-JSON output, how many leading characters to keep.
        field_chars: longer top-level JSON values (other than key fields) are cut to this.
        max_dates: more distinct dates/times than this are shown as a count and a range.
        tokens: the output's token count, for the header (counted when None).
    """
    if not isinstance(output, str):
        raise ValueError(
            f"compact_tool_output expects the output text (a str), got {type(output).__name__}"
        )
    for name, value in (
        ("head_chars", head_chars),
        ("field_chars", field_chars),
        ("max_dates", max_dates),
    ):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"{name} must be an integer >= 0, got {value!r}")
    if tokens is None:
        tokens = get_token_counter(DEFAULT_ENCODING).count(output)
    header = (
        f"{COMPACTED_MARK}{tool or 'tool'} output: {len(output):,} chars, {tokens:,} tokens; "
        "preview of key fields and identifiers, the full output is stored]"
    )
    try:
        data = loads_json(output)
        is_json = isinstance(data, (dict, list))
    except ValueError:
        data, is_json = None, False
    if is_json:
        body = json.dumps(_json_preview(data, field_chars), ensure_ascii=False)
    else:
        body = output[:head_chars] + (
            f" … [{len(output) - head_chars:,} more chars]" if len(output) > head_chars else ""
        )
    rest = output if is_json else output[head_chars:]
    idents = _identifier_line(rest, body, max_dates)
    lines = [header, body]
    if idents:
        lines.append(f"identifiers: {idents}")
    return "\n".join(lines)


# ---------------------------------------------------------------------------- the compactor


@dataclass(frozen=True)
class CompactedOutput:
    """One output that was replaced: where, which tool, and its size before and after."""

    index: int
    call_id: str
    tool: str
    tokens_before: int
    tokens_after: int

    @property
    def saved(self) -> int:
        return self.tokens_before - self.tokens_after


@dataclass(frozen=True)
class CompactionResult:
    """The items with previews in place of older bulky outputs, and what changed."""

    items: list[dict[str, Any]]
    compacted: tuple[CompactedOutput, ...]

    @property
    def tokens_saved(self) -> int:
        return sum(c.saved for c in self.compacted)


def _names(value: str | Iterable[str] | None, label: str) -> frozenset[str] | None:
    if value is None:
        return None
    if isinstance(value, str):
        return frozenset({value})
    if isinstance(value, bytes) or not isinstance(value, Iterable):
        raise ValueError(f"{label} must be a tool name or a list of tool names, got {value!r}")
    names = frozenset(value)
    bad = [n for n in names if not isinstance(n, str) or not n]
    if bad:
        raise ValueError(f"{label} must hold non-empty tool names, got {bad!r}")
    return names


class ToolOutputCompactor:
    """Replace older, large tool outputs with compact previews in the model's view.

    Args:
        keep_recent_turns: the newest user turns (counted back from the last real user
            message, which is the current turn inside a run) whose outputs stay untouched.
            0 compacts every large output, even one the model has not answered yet.
        min_tokens: outputs smaller than this many tokens are left alone.
        tools: compact only these tools' outputs (None: every tool).
        exclude_tools: never compact these tools' outputs (wins over ``tools``).
        head_chars, field_chars, max_dates: passed to :func:`compact_tool_output`.
        counter: the token counter (o200k_base by default).

    Stored items are never modified: :meth:`compact` and the filter return new items.
    """

    def __init__(
        self,
        *,
        keep_recent_turns: int = 1,
        min_tokens: int = 200,
        tools: str | Iterable[str] | None = None,
        exclude_tools: str | Iterable[str] = (),
        head_chars: int = 300,
        field_chars: int = 80,
        max_dates: int = 4,
        counter: TokenCounter | None = None,
    ):
        for name, value in (("keep_recent_turns", keep_recent_turns), ("min_tokens", min_tokens)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"{name} must be an integer >= 0, got {value!r}")
        self.keep_recent_turns = keep_recent_turns
        self.min_tokens = min_tokens
        self.tools = _names(tools, "tools")
        self.exclude_tools = _names(exclude_tools, "exclude_tools") or frozenset()
        self.head_chars = head_chars
        self.field_chars = field_chars
        self.max_dates = max_dates
        self.counter = counter or get_token_counter(DEFAULT_ENCODING)
        self._count = lru_cache(maxsize=4096)(self.counter.count)
        self._previews: dict[tuple[str, str], str] = {}
        compact_tool_output(
            "", head_chars=head_chars, field_chars=field_chars, max_dates=max_dates, tokens=0
        )  # validate the options now

    def __repr__(self) -> str:
        return (
            f"ToolOutputCompactor(keep_recent_turns={self.keep_recent_turns}, "
            f"min_tokens={self.min_tokens}, tools={sorted(self.tools) if self.tools else None}, "
            f"exclude_tools={sorted(self.exclude_tools)})"
        )

    def eligible(self, tool: str) -> bool:
        """True when this tool's outputs may be compacted."""
        if tool in self.exclude_tools:
            return False
        return self.tools is None or tool in self.tools

    def boundary(
        self, items: Sequence[Mapping[str, Any]], keep_recent_turns: int | None = None
    ) -> int:
        """Index of the first item of the protected recent turns (``len(items)`` if none)."""
        keep = self.keep_recent_turns if keep_recent_turns is None else keep_recent_turns
        if keep == 0:
            return len(items)
        starts = turn_starts(items)
        if not starts:
            return 0
        return starts[max(0, len(starts) - keep)]

    def preview(self, item: Mapping[str, Any], tool: str) -> tuple[dict[str, Any], int, int] | None:
        """A compacted copy of one output item with its tokens before and after, or None
        when it is too small, already compacted, or the preview would not be smaller."""
        if item_type(item) not in _OUTPUT_TYPES:
            return None
        text = item_text(item)
        if text.startswith(COMPACTED_MARK):
            return None
        before = self._count(text)
        if before < self.min_tokens:
            return None
        key = (text, tool)
        preview = self._previews.get(key)
        if preview is None:
            preview = compact_tool_output(
                text,
                tool=tool,
                head_chars=self.head_chars,
                field_chars=self.field_chars,
                max_dates=self.max_dates,
                tokens=before,
            )
            if len(self._previews) >= 512:
                self._previews.clear()
            self._previews[key] = preview
        after = self._count(preview)
        if after >= before:
            return None
        copy = dict(item)
        copy["output"] = preview
        return copy, before + ITEM_OVERHEAD_TOKENS, after + ITEM_OVERHEAD_TOKENS

    def compact(
        self, items: Sequence[Mapping[str, Any]], *, keep_recent_turns: int | None = None
    ) -> CompactionResult:
        """``items`` with older large outputs replaced by previews (inputs are not changed).

        ``keep_recent_turns`` overrides the compactor's setting for this call (0: every
        eligible output, as when the caller already knows the items are old).
        """
        if isinstance(items, (str, bytes)) or not isinstance(items, Sequence):
            raise ValueError(f"compact expects a list of items, got {type(items).__name__}")
        names = tool_names(items)
        end = self.boundary(items, keep_recent_turns)
        out: list[dict[str, Any]] = []
        done: list[CompactedOutput] = []
        for index, item in enumerate(items):
            if not isinstance(item, Mapping):
                raise ValueError(f"item {index} must be a dict, got {type(item).__name__}")
            if index < end:
                call_id = str(item.get("call_id", ""))
                tool = names.get(call_id, "tool")
                if self.eligible(tool):
                    replaced = self.preview(item, tool)
                    if replaced is not None:
                        copy, before, after = replaced
                        out.append(copy)
                        done.append(CompactedOutput(index, call_id, tool, before, after))
                        continue
            out.append(item)  # type: ignore[arg-type]
        return CompactionResult(out, tuple(done))

    def __call__(self, data: CallModelData[Any]) -> ModelInputData:
        """The ``RunConfig.call_model_input_filter`` form: compact the model input."""
        from agents.run_config import ModelInputData

        model_data = data.model_data
        result = self.compact(model_data.input)  # type: ignore[arg-type]
        return ModelInputData(input=result.items, instructions=model_data.instructions)  # type: ignore[arg-type]


def tool_names(items: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """``call_id`` -> tool name, for every call in ``items``."""
    names: dict[str, str] = {}
    for item in items:
        if isinstance(item, Mapping) and item_type(item) in ("function_call", "custom_tool_call"):
            call_id = item.get("call_id")
            if isinstance(call_id, str):
                names[call_id] = str(item.get("name") or item_type(item))
    return names


@dataclass(frozen=True)
class CompactionComparison:
    """One way of shrinking old tool outputs, measured on a conversation."""

    name: str
    tokens_before: int
    tokens_after: int
    identifiers: int  # identifier-like values (not dates) in the original tool outputs
    identifiers_kept: int  # of those, how many the shrunk view still contains verbatim


def compare_with_sdk_trimmer(
    items: Sequence[Mapping[str, Any]],
    *,
    recent_turns: int = 1,
    instructions: str | None = None,
) -> list[CompactionComparison]:
    """Shrink ``items`` with :class:`ToolOutputCompactor` and with the Agents SDK's
    ``ToolOutputTrimmer`` (both as model-input filters, keeping ``recent_turns`` turns
    verbatim) and measure tokens and surviving identifiers for each.

    Dates and times are left out of the identifier count: the compactor reports long runs of
    event-log timestamps as a count and a range, on purpose.
    """
    from agents.extensions import ToolOutputTrimmer
    from agents.run_config import CallModelData, ModelInputData

    counter = get_token_counter()
    originals = [item_text(it) for it in items if item_type(it) in _OUTPUT_TYPES]
    wanted = {
        ident.value
        for text in originals
        for ident in find_identifiers(text)
        if ident.kind in STRICT_KINDS and ident.kind not in _DATE_KINDS
    }
    data = CallModelData(
        model_data=ModelInputData(input=[dict(it) for it in items], instructions=instructions),
        agent=None,  # type: ignore[arg-type]
        context=None,
    )
    results = []
    for name, shrink in (
        ("ctxlab ToolOutputCompactor", ToolOutputCompactor(keep_recent_turns=recent_turns)),
        ("SDK ToolOutputTrimmer", ToolOutputTrimmer(recent_turns=recent_turns)),
    ):
        shrunk = shrink(data).input
        outputs = "\n".join(item_text(it) for it in shrunk if item_type(it) in _OUTPUT_TYPES)
        results.append(CompactionComparison(
            name,
            counter.count_items(items),
            counter.count_items(shrunk),
            len(wanted),
            sum(1 for v in wanted if v in outputs),
        ))
    return results

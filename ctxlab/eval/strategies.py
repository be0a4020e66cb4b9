"""Memory strategies as replayable recipes, and the spec syntax that names them.

A :class:`Strategy` is a name plus a factory for a fresh Agents SDK session and, optionally,
a factory for a *transform*: a function applied to (instructions, history + new input)
before the model sees it, as a ``RunConfig(call_model_input_filter=...)`` would be. Every
strategy is replayed the same way (:mod:`ctxlab.eval.replay`), so their numbers compare.

Spec syntax (what ``--strategy`` accepts)::

    SPEC   := [BASE] ("+" ADDON)*          a missing BASE means "full"
    BASE   := full                         keep everything (FullHistorySession)
            | trim:N[@T]                   TrimmingSession(max_turns=N[, max_tokens=T])
            | summarize:K/L                SummarizingSession(keep_last_n_turns=K,
                                           context_limit=L), extractive summaries offline
                                           (also K@T, K@P%/W: fold past T tokens or P% of
                                           a W-token window)
            | firstlast:F/N | tokentail:T  and every other registered strategy
                                           (ctxlab.sessions.strategies; ``python -m ctxlab
                                           strategies`` lists them)
    ADDON  := budget:T                     ContextManager(max_tokens=T): a hard token budget
            | state                        structured state memory (StateMemory)
            | slots[:ask,sgd]              values per topic in any domain (TopicMemory)
            | recall[:K]                   recall of evicted turns (Recall, top K snippets)
            | compact                      older bulky tool outputs as compact previews

Examples: ``full``, ``trim:8``, ``trim:8@4000``, ``summarize:2/4``, ``budget:3000``
(= ``full+budget:3000``), ``trim:4+state``, ``trim:4+recall:4``, ``trim:6+state+budget:3000``.
All addons of one strategy run in a single :class:`~ctxlab.context.ContextManager`.
Names are canonical (base first, addons in the order compact, state, recall, budget), so
``state+trim:4`` is an error and ``budget:3000`` is reported as ``full+budget:3000``.

New components can be registered (:func:`register_component`); a :class:`Strategy` can also
be built directly from two functions, for memory that no spec describes.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any, Literal

from agents.memory import SessionSettings

from ..context import ContextManager, RequestCounter
from ..context.compaction import ToolOutputCompactor
from ..core.checks import check_registration
from ..core.items import clone
from ..facts.topics import SchemaTopics
from ..memory import Recall, StateMemory
from ..memory.topic_memory import TopicMemory
from ..sessions.strategies import StrategySpec, strategies, whole_number
from ..summarizers import ExtractiveSummarizer
from ..summarizers.metered import MeteredSummarizer

#: The budget a ContextManager gets when a strategy names no ``budget:T`` (no limit).
NO_BUDGET = 10**12


@dataclass(frozen=True)
class TransformResult:
    """What a transform made of one model input: the items sent, what it left out to meet
    a budget (in words), and a warning when even the part it never drops is over budget."""

    items: list[dict[str, Any]]
    dropped: tuple[str, ...] = ()
    warning: str | None = None


Transform = Callable[[str | None, list[dict[str, Any]]], Awaitable[TransformResult]]
SessionFactory = Callable[[str], Any]
TransformFactory = Callable[[Any, Sequence[Any]], Transform]


@dataclass(frozen=True)
class Strategy:
    """A memory strategy to replay.

    ``make_session(session_id)`` returns a fresh Agents SDK session;
    ``make_transform(session, tools)``, when given, returns an async
    ``transform(instructions, items) -> TransformResult`` applied before every model call
    (``tools`` are the tool schemas the agent offers, for budgets that count them).
    ``name`` identifies the strategy in results (the canonical spec for parsed ones).
    """

    name: str
    make_session: SessionFactory
    make_transform: TransformFactory | None = None
    label: str = ""
    description: str = ""
    params: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise ValueError(f"strategy name must be a non-empty string, got {self.name!r}")
        if not callable(self.make_session):
            raise ValueError(f"strategy {self.name!r}: make_session must be callable")
        if self.make_transform is not None and not callable(self.make_transform):
            raise ValueError(f"strategy {self.name!r}: make_transform must be callable or None")

    @property
    def title(self) -> str:
        """The label, or the name when there is none."""
        return self.label or self.name


class FullHistorySession:
    """The baseline: an in-memory Agents SDK session that keeps and returns every item.

    It does what ``agents.SQLiteSession(session_id)`` does for a single process, without a
    database thread, so replaying hundreds of conversations stays fast.
    """

    def __init__(self, session_id: str):
        if not isinstance(session_id, str) or not session_id:
            raise ValueError(f"session_id must be a non-empty string, got {session_id!r}")
        self.session_id = session_id
        self.session_settings = SessionSettings()
        self._items: list[dict[str, Any]] = []

    async def get_items(self, limit: int | None = None) -> list[dict[str, Any]]:
        items = self._items if limit is None else self._items[-limit:] if limit > 0 else []
        return clone(items)

    async def add_items(self, items: Sequence[Mapping[str, Any]]) -> None:
        self._items.extend(clone(list(items)))

    async def pop_item(self) -> dict[str, Any] | None:
        return self._items.pop() if self._items else None

    async def clear_session(self) -> None:
        self._items.clear()

    def __repr__(self) -> str:
        return f"FullHistorySession(session_id={self.session_id!r}, items={len(self._items)})"


# ---------------------------------------------------------------------------- components


@dataclass(frozen=True)
class Base:
    """A parsed base: how to make the session."""

    spec: str
    label: str
    make_session: SessionFactory
    has_ledger: bool = True
    params: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Addon:
    """A parsed addon: how it configures the strategy's ContextManager.

    ``configure(kwargs, session)`` fills ``ContextManager`` keyword arguments.
    """

    kind: str
    spec: str
    label: str
    configure: Callable[[dict[str, Any], Any], None]
    needs_ledger: bool = False
    params: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Component:
    """A registered spec word: ``kind`` (the word before ``:``), its ``role``, a one-line
    ``syntax`` and ``help``, and ``parse(arg, summarizer)`` returning a Base or an Addon."""

    kind: str
    role: Literal["base", "addon"]
    syntax: str
    help: str
    parse: Callable[[str | None, Any], Base | Addon]
    order: int = 50  # addons are listed in this order in canonical names


def _no_arg(kind: str, arg: str | None) -> None:
    if arg is not None:
        raise ValueError(f"strategy part {kind}:{arg!r}: {kind} takes no argument")


def _parse_full(arg: str | None, summarizer: Any) -> Base:
    _no_arg("full", arg)
    return Base("full", "full history", FullHistorySession, has_ledger=False)


def _session_base(spec: StrategySpec) -> Callable[[str | None, Any], Base]:
    """A spec-word parser for a registered session strategy (:mod:`ctxlab.sessions.strategies`)."""

    def parse(arg: str | None, summarizer: Any) -> Base:
        kwargs = spec.parse(arg)
        make_kwargs = dict(kwargs)

        def make(sid: str) -> Any:
            extra: dict[str, Any] = {}
            if spec.hints.summarizer:  # the strategy's session takes a summarizer
                factory = isinstance(summarizer, type) or (
                    callable(summarizer) and not hasattr(summarizer, "summarize"))
                chosen = summarizer() if factory else summarizer
                # metered: every fold is a summarizer call, and evaluation prices it
                extra["summarizer"] = MeteredSummarizer(chosen or ExtractiveSummarizer())
            return spec.make(sid, **make_kwargs, **extra)

        return Base(spec.canonical(kwargs), spec.title(kwargs), make, params=kwargs)

    return parse


def _parse_budget(arg: str | None, summarizer: Any) -> Addon:
    tokens = whole_number(f"budget:{arg}", arg, "T (tokens)")

    def configure(kwargs: dict[str, Any], session: Any) -> None:
        kwargs["max_tokens"] = tokens

    return Addon("budget", f"budget:{tokens}", f"budget {tokens}", configure,
                 params={"max_tokens": tokens})


def _parse_state(arg: str | None, summarizer: Any) -> Addon:
    _no_arg("state", arg)

    def configure(kwargs: dict[str, Any], session: Any) -> None:
        kwargs["state"] = StateMemory(session=session)

    return Addon("state", "state", "state", configure)


#: Options of the ``slots`` addon: ``ask`` (the agent's values only when asked for or
#: accepted) and ``sgd`` (topics and categorical values from SGD's schema).
SLOT_OPTIONS = ("ask", "sgd")


def _parse_slots(arg: str | None, summarizer: Any) -> Addon:
    options = [o.strip() for o in (arg or "").split(",") if o.strip()]
    unknown = [o for o in options if o not in SLOT_OPTIONS]
    if unknown or len(set(options)) != len(options):
        raise ValueError(f"strategy part slots:{arg}: options are {', '.join(SLOT_OPTIONS)} "
                         f"(comma-separated, each once), got {arg!r}")
    ordered = [o for o in SLOT_OPTIONS if o in options]

    def configure(kwargs: dict[str, Any], session: Any) -> None:
        kwargs["state"] = slot_memory(session, ordered)

    spec = "slots" + (":" + ",".join(ordered) if ordered else "")
    return Addon("slots", spec, spec, configure,
                 params={"options": ordered})


def slot_memory(session: Any, options: Sequence[str]) -> TopicMemory:
    """The TopicMemory a ``slots[:ask,sgd]`` addon gives a session."""
    topics, known = None, ()
    if "sgd" in options:
        topics, known = sgd_topics()
    return TopicMemory(session=session, ask="ask" in options, topics=topics, known=known)


@cache
def sgd_topics() -> tuple[SchemaTopics, tuple[str, ...]]:
    """Topics and categorical values from the SGD schema the package ships."""
    from ..course.corpora.sgd import load_sgd_schema

    schema = load_sgd_schema()
    known = sorted({v for s in schema for slot in s["slots"] if slot["is_categorical"]
                    for v in slot["possible_values"]
                    if not v.isdigit() and v not in ("True", "False", "dontcare")})
    return SchemaTopics.from_sgd(schema), tuple(known)


def _parse_recall(arg: str | None, summarizer: Any) -> Addon:
    k = whole_number(f"recall:{arg}", arg, "K") if arg is not None else 4

    def configure(kwargs: dict[str, Any], session: Any) -> None:
        kwargs["retriever"] = Recall(session=session, k=k)

    spec = "recall" if arg is None else f"recall:{k}"
    return Addon("recall", spec, "recall" if arg is None else f"recall {k}", configure,
                 needs_ledger=True, params={"k": k})


def _parse_compact(arg: str | None, summarizer: Any) -> Addon:
    _no_arg("compact", arg)

    def configure(kwargs: dict[str, Any], session: Any) -> None:
        kwargs["compactor"] = ToolOutputCompactor()

    return Addon("compact", "compact", "compact", configure)


_COMPONENTS: dict[str, Component] = {}


def register_component(component: Component, *, replace: bool = False) -> None:
    """Make a new spec word available to :func:`parse_strategy` (and the CLI)."""
    check_registration(component, Component, noun="component",
                       name=getattr(component, "kind", ""), taken=_COMPONENTS,
                       replace=replace, name_label="component kind")
    _COMPONENTS[component.kind] = component


def components() -> list[Component]:
    """Every registered component: bases first, then addons in canonical order."""
    return sorted(_COMPONENTS.values(), key=lambda c: (c.role != "base", c.order, c.kind))


for _component in (
    Component("full", "base", "full", "keep every item (the baseline)", _parse_full),
    *(Component(_s.name, "base", _s.syntax, _s.help, _session_base(_s)) for _s in strategies()),
    Component("compact", "addon", "compact",
              "ToolOutputCompactor: older bulky tool outputs become previews", _parse_compact,
              order=10),
    Component("state", "addon", "state",
              "StateMemory: a structured state message, kept up to date each turn",
              _parse_state, order=20),
    Component("slots", "addon", "slots[:ask,sgd]",
              "TopicMemory: values per topic (any domain), corrections win; ask = only what "
              "the customer stated, asked for or accepted; sgd = SGD's schema",
              _parse_slots, order=25),
    Component("recall", "addon", "recall[:K]",
              "Recall: evicted turns matching the new input are brought back (top K)",
              _parse_recall, order=30),
    Component("budget", "addon", "budget:T",
              "ContextManager(max_tokens=T): drop what does not fit, least important first",
              _parse_budget, order=40),
):
    register_component(_component)


# ---------------------------------------------------------------------------- parsing


@cache
def shared_counter() -> RequestCounter:
    """Token counts memoized by text, shared by every replay and ContextManager that
    evaluation creates (the same texts are counted again and again across strategies)."""
    return RequestCounter()


def _manager_transform(base: Base, addons: Sequence[Addon]) -> TransformFactory:
    def make(session: Any, tools: Sequence[Any]) -> Transform:
        kwargs: dict[str, Any] = {"max_tokens": NO_BUDGET}
        for addon in addons:
            addon.configure(kwargs, session)
        manager = ContextManager(tools=list(tools), session=session, keep_last=1, **kwargs)
        manager.counter = shared_counter()

        async def transform(instructions: str | None,
                            items: list[dict[str, Any]]) -> TransformResult:
            built = await manager.assemble_input(items, instructions=instructions)
            return TransformResult(built.items, built.dropped, built.warning)

        transform.manager = manager  # type: ignore[attr-defined]
        return transform

    return make


def _registered_later(kind: str) -> Component | None:
    """A base for a strategy registered after this module was imported (your own)."""
    found = next((s for s in strategies() if s.name == kind), None)
    if found is None:
        return None
    register_component(Component(found.name, "base", found.syntax, found.help,
                                 _session_base(found)))
    return _COMPONENTS[kind]


def parse_strategy(spec: str | Strategy, *, summarizer: Any = None) -> Strategy:
    """The :class:`Strategy` a spec describes (see the module docstring for the syntax).

    ``summarizer`` is used by ``summarize:K/L`` (default: a fresh
    :class:`~ctxlab.summarizers.ExtractiveSummarizer`); pass a summarizer, or a
    zero-argument factory returning one per session. A :class:`Strategy` is returned as it is.

    Raises:
        ValueError: naming the part of the spec that is wrong and what was expected.
    """
    if isinstance(spec, Strategy):
        return spec
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"a strategy spec must be a non-empty string, got {spec!r}")
    base, addons = _parse_parts(spec, summarizer)
    addons.sort(key=lambda pair: (pair[0].order, pair[0].kind))
    for _, addon in addons:
        if addon.needs_ledger and not base.has_ledger:
            raise ValueError(f"strategy {spec!r}: {addon.kind} reads what the session evicted, "
                             f"which {base.spec!r} does not report; use a trim:N or "
                             "summarize:K/L base")
    name = "+".join([base.spec, *(a.spec for _, a in addons)])
    label = " + ".join([base.label, *(a.label for _, a in addons)])
    params: dict[str, Any] = {"base": base.spec, **base.params}
    for _, addon in addons:
        params[addon.kind] = dict(addon.params) or True
    return Strategy(
        name=name,
        make_session=base.make_session,
        make_transform=_manager_transform(base, [a for _, a in addons]) if addons else None,
        label=label,
        params=params,
    )


def _parse_parts(spec: str, summarizer: Any) -> tuple[Base, list[tuple[Component, Addon]]]:
    """The spec's base (``full`` when it names none) and its addons, in the spec's order."""
    base: Base | None = None
    addons: list[tuple[Component, Addon]] = []
    for position, raw in enumerate(spec.split("+")):
        part = raw.strip()
        component, parsed = _parse_part(spec, part, summarizer)
        if component.role == "base":
            if position != 0:
                raise ValueError(f"strategy {spec!r}: the base {part!r} must come first")
            assert isinstance(parsed, Base)
            base = parsed
        else:
            assert isinstance(parsed, Addon)
            if any(c.kind == component.kind for c, _ in addons):
                raise ValueError(f"strategy {spec!r}: {component.kind} appears twice")
            addons.append((component, parsed))
    if base is None:
        parsed_base = _COMPONENTS["full"].parse(None, summarizer)
        assert isinstance(parsed_base, Base)
        base = parsed_base
    return base, addons


def _parse_part(spec: str, part: str, summarizer: Any) -> tuple[Component, Base | Addon]:
    """One ``+``-separated part: its component and what the component parsed."""
    if not part:
        raise ValueError(f"strategy {spec!r}: empty part (two '+' in a row, or a '+' at an "
                         "end)")
    kind, colon, arg = part.partition(":")
    component = _COMPONENTS.get(kind.strip()) or _registered_later(kind.strip())
    if component is None:
        known = ", ".join(c.syntax for c in components())
        raise ValueError(f"strategy {spec!r}: unknown part {part!r}; known: {known}")
    return component, component.parse(arg.strip() if colon else None, summarizer)


def parse_strategies(specs: Sequence[str | Strategy], *, summarizer: Any = None) -> list[Strategy]:
    """Several strategies; their names must differ."""
    out: list[Strategy] = []
    for spec in specs:
        strategy = parse_strategy(spec, summarizer=summarizer)
        if any(s.name == strategy.name for s in out):
            raise ValueError(f"strategy {strategy.name!r} is listed twice")
        out.append(strategy)
    if not out:
        raise ValueError("no strategies given")
    return out


def strategy_help() -> str:
    """The spec syntax and every registered component, for ``--help``."""
    lines = ["SPEC := [BASE] ('+' ADDON)*   (no BASE means full)"]
    for component in components():
        lines.append(f"  {component.role:<5}  {component.syntax:<14} {component.help}")
    lines.append("e.g. full, trim:8, trim:8@4000, summarize:2/4, budget:3000, trim:4+state, "
                 "trim:4+recall:4, trim:6+state+budget:3000")
    return "\n".join(lines)


#: The strategies ``python -m ctxlab eval`` compares when none is given.
DEFAULT_STRATEGIES: tuple[str, ...] = (
    "full", "trim:8", "summarize:2/4", "budget:3000", "trim:4+state", "trim:4+recall",
)

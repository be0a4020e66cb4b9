"""The support-domain fact model: what a conversation says, read from its items' text.

Core is the item model (what an item is, where a sequence can be cut, tokens, the raw log);
this package reads what the items *say*: the conversation's language (:mod:`.language`),
typed facts and identifiers (:mod:`.typed`, :mod:`.identifiers`, claimed without overlap by
:mod:`.spans`), every language-specific phrase in one table (:mod:`.cues`), which text marks
a value as no longer current (:mod:`.staleness`), constraints and commitments
(:mod:`.statements`) and :class:`~.tracker.FactTracker` (facts per entity with their
history). It imports :mod:`ctxlab.core` and nothing above it.

The old paths (``ctxlab.core.facts``, ``ctxlab.core.tracker``, ...) are the same modules.
"""

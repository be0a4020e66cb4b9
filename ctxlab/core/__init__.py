"""The item model: what an item is and says (:mod:`.items`, :mod:`.schema`), whether a
sequence is valid and where it can be cut (:mod:`.validate`), turns (:mod:`.turns`, the one
segmenter), exact tokens (:mod:`.tokens`), the raw log index (:mod:`.rawlog`), the ledger
(:mod:`.ledger`), the sections of a model call (:mod:`.sections`), argument checks
(:mod:`.checks`), redaction, session ids and digests. Nothing here knows about sessions,
stores, the course or the support domain: typed facts, identifiers, language and the fact
tracker are :mod:`ctxlab.facts` (their old paths here are shims to those modules).
"""

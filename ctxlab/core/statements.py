"""Moved to :mod:`ctxlab.facts.statements` (the fact model is its own package); this old path is
the same module object, so imports and attribute patches keep working."""

import sys

from ..facts import statements as _moved

sys.modules[__name__] = _moved

"""Which language a text or a conversation is written in: English or Chinese.

ctxlab's readers and writers know two languages: English (``"en"``) and Chinese (``"zh"``).
Which one a reply, a summary or a state note is written in follows the customer:

* :func:`language_of` reads one text: Chinese when at least :data:`ZH_SHARE` of its letters
  are CJK characters (``"型号是BCD-123"`` is Chinese; an English sentence quoting ``"型号"``
  is not);
* :func:`conversation_language` reads the user turns of a conversation together, so a
  short ``"OK"`` in a Chinese chat does not switch it to English;
* :class:`LanguageCount` keeps the same counts incrementally (a summary record reads a
  conversation fold by fold and must reach the same answer as reading it at once).

Only letters count: digits, spaces, punctuation and identifiers such as ``TCK-50821`` or
``13912345678`` say nothing about the language. Japanese and Korean characters count as
CJK too, and are written about with the Chinese tables (the only CJK tables ctxlab has).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from ..core.items import item_kind, item_text
from ..core.memory_frame import is_memory_block

Language = Literal["en", "zh"]

#: The languages ctxlab writes in.
LANGUAGES: tuple[Language, ...] = ("en", "zh")

#: Share of CJK characters among the letters from which a text counts as Chinese.
ZH_SHARE = 0.3

# Han (with extensions and compatibility ideographs), kana, Hangul syllables and jamo.
CJK_CHARS = (
    "\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff"
    "\ua960-\ua97f\uac00-\ud7ff\uf900-\ufaff\U00020000-\U0003134f"
)
_CJK = re.compile(f"[{CJK_CHARS}]")
_LATIN = re.compile(r"[A-Za-z\u00c0-\u024f]")


def has_cjk(text: str) -> bool:
    """True when ``text`` contains a Chinese, Japanese or Korean character."""
    return _CJK.search(text) is not None


#: Identifiers, whose letters say nothing about the language: e-mail addresses, links and
#: codes with a digit (``TCK-50821``, ``BCD-123``, ``v1.0.3``).
_IDENTIFIER = re.compile(r"\S+@\S+|https?://\S+"
                         r"|[A-Za-z0-9._/+-]*[0-9][A-Za-z0-9._/+-]*")


def letter_counts(text: str) -> tuple[int, int]:
    """(CJK characters, Latin letters) in ``text``, identifiers left out."""
    if not isinstance(text, str):
        raise TypeError(f"expected a str, got {type(text).__name__}")
    cjk = len(_CJK.findall(text)) if not text.isascii() else 0
    plain = "://" not in text and not any(ch.isdigit() or ch == "@" for ch in text)
    words = text if plain else _IDENTIFIER.sub(" ", text)
    return cjk, len(_LATIN.findall(words))


def cjk_share(text: str) -> float:
    """The share of CJK characters among the letters of ``text`` (0.0 with no letters)."""
    cjk, latin = letter_counts(text)
    return cjk / (cjk + latin) if cjk + latin else 0.0


def decide(cjk: int, latin: int) -> Language:
    """The language ``cjk`` CJK characters and ``latin`` Latin letters add up to."""
    return "zh" if cjk and cjk >= ZH_SHARE * (cjk + latin) else "en"


_decide = decide


def language_of(text: str) -> Language:
    """``"zh"`` when ``text`` is Chinese (see the module docstring), else ``"en"``."""
    return _decide(*letter_counts(text))


@dataclass
class LanguageCount:
    """Running letter counts of the customer's messages: the language they add up to."""

    cjk: int = 0
    latin: int = 0

    def add(self, text: str) -> None:
        cjk, latin = letter_counts(text)
        self.cjk += cjk
        self.latin += latin

    @property
    def language(self) -> Language:
        return _decide(self.cjk, self.latin)


def conversation_language(items: Iterable[Mapping[str, Any]] | Iterable[str]) -> Language:
    """The language of a conversation: of its user messages read together (of every text
    when given plain strings)."""
    count = LanguageCount()
    for item in items:
        if isinstance(item, str):
            count.add(item)
        elif item_kind(item) == "user" and not is_memory_block(item):
            count.add(item_text(item))
    return count.language


def check_language(language: str) -> Language:
    """``language`` if ctxlab writes in it, else a ValueError naming the choices."""
    if language not in LANGUAGES:
        raise ValueError(f"language must be one of {', '.join(LANGUAGES)}, got {language!r}")
    return language  # type: ignore[return-value]

"""FTS5Index: full-text search over conversation snippets with SQLite FTS5 (BM25).

Standard library only (``sqlite3``), nothing to download, fast: an index of 10,000 turns
answers in a few milliseconds. :func:`check_fts5` says clearly when the Python build's SQLite
lacks FTS5.

Scores from 0 to 1
------------------
FTS5's ``bm25()`` is unbounded, so a fixed threshold means nothing across queries. Each raw
score is divided by the score a *perfect ordinary match* would get: a snippet of average
length that contains every query term once. With BM25 (k1 = 1.2, b = 0.75, as FTS5), a term
that occurs once in a snippet of average length contributes exactly its IDF, so that
reference score is the sum of the query terms' IDFs::

    score = min(1, bm25 / sum(idf(t) for t in query terms))
    idf(t) = max(1e-6, ln((N - n(t) + 0.5) / (n(t) + 0.5)))      # FTS5's own formula

where N is the number of snippets and n(t) how many contain t. So 1.0 means "every query
term, at ordinary density", and 0.5 (the default threshold of :class:`~ctxlab.memory.Recall`)
means the snippet matches terms carrying half of the query's information; rare terms such as
a ticket id weigh far more than common ones. Query terms are the distinct words of the
query minus a short stop-word list, and only those that occur somewhere in the index: a
word no snippet contains ("give" in "what serial did I give you?") can be matched by none,
so it would only lower every score alike. A query none of whose words is indexed finds
nothing. Scores can exceed the reference when a snippet repeats terms or is short; they are
capped at 1.

Tokens are lower-cased letters and digits with diacritics removed (what SQLite's
``unicode61`` tokenizer makes of them), so ``TCK-48213`` is the two terms ``tck`` and
``48213``.

Chinese, Japanese and Korean
----------------------------
``unicode61`` splits text at spaces and punctuation, and Chinese has neither between words:
"我家冰箱型号是BCD-123" would be the two tokens ``我家冰箱型号是bcd`` and ``123``, so a query
for 型号 finds nothing. SQLite's ``trigram`` tokenizer (3.34+) matches substrings, but only of
three characters or more, and most Chinese words have two (型号, 冰箱, 工单). So ctxlab
tokenizes text itself, the way search engines index CJK text without a dictionary: a run of
CJK characters (Han, kana, Hangul) becomes its overlapping character **bigrams** (冰箱型号 ->
冰箱 箱型 型号; a lone character stays a unigram), everything else is tokenized as before.
The chosen tokens are stored space-separated in an FTS5 column that the ``ascii`` tokenizer
splits at the spaces only, so SQLite indexes exactly the terms :func:`tokenize` returns, and
BM25 and the 0..1 scores above work unchanged on Chinese, English and mixed text.

A query is tokenized the same way and its terms are ORed, so a 2-character word is one
term and a longer one is matched bigram by bigram (a snippet with all of 冰箱 箱型 型号 scores
as "every term", one with only 型号 gets that term's share). Common words are left out of
queries, as English stop words are, and no pair may straddle one: before its pairs are
made, a query's Chinese is cut at function words (多少, 来着, 什么, 之前: :data:`CJK_STOP_WORDS`)
and at particles and pronouns (的, 是, 我: :data:`CJK_PARTICLES`), so 我冰箱的型号是多少来着
asks for 冰箱 and 型号 only, never 号是 or 少来; a lone character left between two cuts is
dropped too, and so is any pair made only of common characters (:data:`CJK_STOP_CHARS`).

Limits: a single-character query matches only single-character runs. A snippet that *asks*
for a value can outscore the one that holds it when the query is one bare word: for 型号,
"我这个型号能免费维修吗？" beats the longer "我家冰箱型号是BCD-123，…" (BM25 favours short
snippets); 冰箱型号 or "我的冰箱是什么型号？" rank the holder first. Recall brings back whole
turns, k snippets at a time, so both usually come back together.

An index file written by an older ctxlab (``unicode61`` over the text itself) is rebuilt in
place, from its stored text, the first time this version opens it.
"""

from __future__ import annotations

import math
import re
import sqlite3
import threading
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..facts.language import CJK_CHARS, has_cjk

_STOPWORD_TEXT = """
a about after again all also am an and any are as at be been before but by can could did do
does doing for from had has have having he her here him his how i if in into is it its just
me my myself no nor not now of on once only or our out over please so some than that the
their them then there these they this those to too up us very was we were what when where
which while who why will with would you your yours
"""
#: Words too common to search on (their IDF is tiny anyway; dropping them keeps queries fast).
STOPWORDS = frozenset(_STOPWORD_TEXT.split())

#: BM25's k1 as FTS5 uses it (fixed in its ``bm25()`` function; b is 0.75 there).
BM25_K1 = 1.2

#: The FTS5 tokenizer of the indexed ``terms`` column: it only splits the space-separated
#: terms that :func:`tokenize` produced (the text itself is stored unindexed).
TOKENIZER = "ascii"

#: Characters that make a CJK bigram too common to search on when both are among them
#: (什么, 这个, 可以, 多少, ...). Used for queries only, like :data:`STOPWORDS`.
CJK_STOP_CHARS = frozenset(
    "的了吗呢吧啊呀嘛哦嗯啦是我你您他她它们这那个些么什怎为哪里儿几多少请在有和与及就都也还把被"
    "给一下上不没要会能可以很"
)

#: Particles, pronouns and the copula, at which a query's Chinese is cut before its pairs
#: are made: in 我的冰箱 the pairs 我的 and 的冰, in 型号是 the pair 号是, straddle words.
#: Used for queries only.
CJK_PARTICLES = frozenset("的了吗呢吧啊呀嘛哦嗯啦我你您他她它么什怎哪是")

#: Common words of questions, at which a query's Chinese is cut too (longest first), so
#: that neither they nor a pair straddling them (少来 in 多少来着) is searched for.
CJK_STOP_WORDS: tuple[str, ...] = tuple(sorted((
    "是不是", "有没有", "能不能", "要不要", "会不会", "可不可以", "为什么", "怎么样", "多少",
    "来着", "什么", "怎么", "怎样", "哪个", "哪些", "哪里", "哪儿", "这个", "那个", "这些",
    "那些", "一下", "可以", "请问", "对了", "之前", "以前", "刚才", "刚刚", "已经", "现在",
    "还是", "就是", "但是", "然后", "因为", "所以", "如果", "的话", "一直", "还有", "记得",
    "告诉", "知道", "你们", "我们", "他们", "咱们", "麻烦", "一个", "一些",
), key=len, reverse=True))

_CJK_RUN = re.compile(f"[{CJK_CHARS}]+")
_CJK_CUT = re.compile("|".join([*CJK_STOP_WORDS, f"[{''.join(sorted(CJK_PARTICLES))}]"]))


class FTS5UnavailableError(RuntimeError):
    """This Python's SQLite was built without the FTS5 extension."""


def check_fts5() -> None:
    """Raise :class:`FTS5UnavailableError` with a clear message if FTS5 is missing."""
    conn = sqlite3.connect(":memory:")
    try:
        conn.execute("CREATE VIRTUAL TABLE probe USING fts5(text)")
    except sqlite3.OperationalError as exc:
        raise FTS5UnavailableError(
            f"SQLite {sqlite3.sqlite_version} in this Python has no FTS5 ({exc}). Use a Python "
            "whose sqlite3 includes FTS5 (the python.org and most Linux builds do), or the "
            "dense backend: Recall(index=DenseIndex()) with the ctxlab[embeddings] extra, or "
            "DenseIndex('multilingual') with the ctxlab[multilingual] extra."
        ) from exc
    finally:
        conn.close()


_WORD = re.compile(r"[^\W_]+")


def _fold(text: str) -> str:
    folded = text.casefold()
    if folded.isascii():
        return folded
    # Diacritics go (café -> cafe, as unicode61 does), but not the marks of kana (が stays
    # が), and Hangul syllables decomposed on the way are put back together.
    decomposed = unicodedata.normalize("NFKD", folded)
    kept: list[str] = []
    after_cjk = False
    for ch in decomposed:
        if unicodedata.category(ch) == "Mn":
            if after_cjk:
                kept.append(ch)
            continue
        kept.append(ch)
        after_cjk = _CJK_RUN.match(ch) is not None
    return unicodedata.normalize("NFC", "".join(kept))


def _split_cjk(word: str) -> list[str]:
    if word.isascii() or not has_cjk(word):
        return [word]
    tokens: list[str] = []
    pos = 0
    for run in _CJK_RUN.finditer(word):
        if run.start() > pos:
            tokens.append(word[pos : run.start()])
        chars = run.group()
        tokens.extend([chars] if len(chars) == 1 else
                      [chars[i : i + 2] for i in range(len(chars) - 1)])
        pos = run.end()
    if pos < len(word):
        tokens.append(word[pos:])
    return tokens


def tokenize(text: str) -> list[str]:
    """The index terms of ``text``: lower-cased letter/digit runs with diacritics removed
    (like ``unicode61``), each run of CJK characters as its overlapping bigrams."""
    return [token for word in _WORD.findall(_fold(text)) for token in _split_cjk(word)]


def _is_stop(term: str) -> bool:
    if term in STOPWORDS:
        return True
    if not has_cjk(term) or len(term) > 2:
        return False
    return any(ch in CJK_PARTICLES for ch in term) or all(ch in CJK_STOP_CHARS for ch in term)


def _query_tokens(query: str) -> list[str]:
    """:func:`tokenize` for a query: each CJK run cut at :data:`CJK_STOP_WORDS` and
    :data:`CJK_PARTICLES` first, a lone character left between two cuts dropped."""
    tokens: list[str] = []
    for word in _WORD.findall(_fold(query)):
        if not has_cjk(word):
            tokens.append(word)
            continue
        for part in _CJK_CUT.split(word):
            if not part:
                continue
            pieces = _split_cjk(part)
            cut = part != word
            tokens += [p for p in pieces if not (cut and len(p) == 1 and has_cjk(p))]
    return tokens


def query_terms(query: str, *, limit: int = 32) -> list[str]:
    """The distinct search terms of ``query``, at most ``limit``: its words without stop
    words, and its Chinese as pairs of characters that neither straddle nor are a
    function word (see the module docstring)."""
    terms = [t for t in dict.fromkeys(_query_tokens(query)) if not _is_stop(t)]
    return terms[:limit]


@dataclass(frozen=True)
class Doc:
    """One indexed snippet: a unique ``key``, the ``turn`` it belongs to, its ``text``."""

    key: str
    turn: int
    text: str


class FTS5Index:
    """A BM25 full-text index of :class:`Doc` s (see the module docstring for scores).

    Args:
        path: the SQLite database (``":memory:"`` by default; a file path persists it).
    """

    backend = "fts5"

    def __init__(self, path: str = ":memory:"):
        check_fts5()
        self.path = path
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(path, check_same_thread=False)
        self._open_table()
        self._df: Counter[str] = Counter()
        self._terms: dict[str, set[str]] = {}
        for key, text in self._conn.execute("SELECT key, text FROM snippets"):
            self._count(key, text)

    def __repr__(self) -> str:
        return f"FTS5Index(path={self.path!r}, docs={len(self)})"

    def _open_table(self) -> None:
        columns = [row[1] for row in self._conn.execute("PRAGMA table_info(snippets)")]
        if columns and "terms" not in columns:
            # Written by an older ctxlab (unicode61 over the text): rebuild from the text.
            rows = self._conn.execute("SELECT text, key, turn FROM snippets").fetchall()
            with self._conn:
                self._conn.execute("DROP TABLE snippets")
                self._create_table()
                self._insert(Doc(str(key), int(turn), text) for text, key, turn in rows)
        elif not columns:
            self._create_table()

    def _create_table(self) -> None:
        self._conn.execute(
            "CREATE VIRTUAL TABLE IF NOT EXISTS snippets USING fts5(terms, text UNINDEXED, "
            f"key UNINDEXED, turn UNINDEXED, tokenize='{TOKENIZER}')"
        )

    def _insert(self, docs: Iterable[Doc]) -> None:
        self._conn.executemany(
            "INSERT INTO snippets(terms, text, key, turn) VALUES (?, ?, ?, ?)",
            [(" ".join(tokenize(d.text)), d.text, d.key, d.turn) for d in docs],
        )

    def __len__(self) -> int:
        return len(self._terms)

    def _count(self, key: str, text: str) -> None:
        terms = set(tokenize(text))
        self._terms[key] = terms
        self._df.update(terms)

    def add(self, docs: Iterable[Doc]) -> int:
        """Index ``docs`` (a key already present is replaced); returns how many."""
        docs = list(docs)
        for n, doc in enumerate(docs):
            if not isinstance(doc, Doc):
                raise ValueError(f"doc {n} must be a Doc, got {type(doc).__name__}")
        with self._lock:
            self._remove([d.key for d in docs if d.key in self._terms])
            self._insert(docs)
            self._commit()
            for d in docs:
                self._count(d.key, d.text)
        return len(docs)

    def remove(self, keys: Iterable[str]) -> int:
        """Remove the docs with these keys; returns how many were indexed."""
        with self._lock:
            return self._remove([k for k in keys if k in self._terms])

    def _remove(self, keys: Sequence[str]) -> int:
        if not keys:
            return 0
        self._conn.executemany("DELETE FROM snippets WHERE key = ?", [(k,) for k in keys])
        self._commit()
        for key in keys:
            self._df.subtract(self._terms.pop(key))
        self._df += Counter()  # drop zero counts
        return len(keys)

    def clear(self) -> None:
        with self._lock:
            self._conn.execute("DELETE FROM snippets")
            self._commit()
            self._df.clear()
            self._terms.clear()

    def _commit(self) -> None:
        # An in-memory index lives and dies with this connection: committing every change
        # would only cost time. A file index commits each change, so it survives a crash.
        if self.path != ":memory:":
            self._conn.commit()

    def idf(self, term: str) -> float:
        """FTS5's IDF of a term in this index."""
        n_docs, hits = len(self._terms), self._df.get(term, 0)
        return max(1e-6, math.log((n_docs - hits + 0.5) / (hits + 0.5)))

    def essential_terms(self, terms: Sequence[str], min_score: float) -> list[str]:
        """The terms a snippet must contain at least one of to reach ``min_score``.

        One term adds at most ``(k1 + 1) * idf`` to a BM25 score, so the commonest terms
        whose bounds together stay below ``min_score * reference`` cannot lift a snippet
        over the threshold on their own (MaxScore pruning; results are unchanged).
        """
        reference = sum(self.idf(t) for t in terms)
        budget = min_score * reference
        spent = 0.0
        skip: set[str] = set()
        for term in sorted(terms, key=self.idf):
            bound = (BM25_K1 + 1) * self.idf(term)
            if spent + bound >= budget:
                break
            spent += bound
            skip.add(term)
        return [t for t in terms if t not in skip]

    def search(self, query: str, k: int = 5, min_score: float = 0.0) -> list[tuple[Doc, float]]:
        """The ``k`` best docs for ``query`` with scores in 0..1, best first.

        With ``min_score`` > 0 only docs that can reach it are ranked (faster for queries
        made of common words); the docs returned at or above ``min_score`` are the same.
        """
        if not isinstance(query, str):
            raise ValueError(f"query must be a str, got {type(query).__name__}")
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise ValueError(f"k must be an integer >= 1, got {k!r}")
        terms = [t for t in query_terms(query) if self._df.get(t)]
        if not terms:
            return []
        reference = sum(self.idf(t) for t in terms)
        expression = " OR ".join(f'"{t}"' for t in terms)
        sql = (
            "SELECT rowid, -bm25(snippets) FROM snippets WHERE snippets MATCH ? "
            "{extra}ORDER BY bm25(snippets) LIMIT ?"
        )
        params: tuple[object, ...] = (expression, k)
        essential = self.essential_terms(terms, min_score) if min_score > 0 else terms
        if len(essential) < len(terms):
            # "+rowid" keeps the planner scanning the full-text match and only filtering by
            # the candidate set, so bm25 is computed for candidates only.
            sql = sql.format(
                extra="AND +rowid IN (SELECT rowid FROM snippets WHERE snippets MATCH ?) "
            )
            params = (expression, " OR ".join(f'"{t}"' for t in essential), k)
        else:
            sql = sql.format(extra="")
        with self._lock:
            ranked = self._conn.execute(sql, params).fetchall()
            if not ranked:
                return []
            rows = {
                rowid: (key, turn, text)
                for rowid, key, turn, text in self._conn.execute(
                    "SELECT rowid, key, turn, text FROM snippets WHERE rowid IN "
                    f"({','.join('?' * len(ranked))})",
                    [rowid for rowid, _ in ranked],
                )
            }
        out = []
        for rowid, raw in ranked:
            key, turn, text = rows[rowid]
            out.append((Doc(key, int(turn), text), min(1.0, max(0.0, raw / reference))))
        return out

    def close(self) -> None:
        with self._lock:
            self._conn.commit()
            self._conn.close()

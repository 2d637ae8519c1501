"""Plain reference implementations the optimised extractor code is checked against."""

from __future__ import annotations

import math
from collections import Counter

from services.core.semantic.reader import _grams
from services.core.semantic.segment import WordSegmenter


def plain_ranking(
    examples: list[tuple[str, str]], ignored: frozenset[str], text: str
) -> list[tuple[str, float]]:
    """The naive Bayes ranking with dictionaries, gram by gram: the reference for the
    reader's by-index scoring (the same floats, not merely close ones)."""
    counts: dict[str, Counter[str]] = {}
    vocabulary: set[str] = set()
    for example, label in examples:
        grams = _grams(example)
        for gram in ignored & grams.keys():
            del grams[gram]
        counts.setdefault(label, Counter()).update(grams)
        vocabulary.update(grams)
    classes = sorted(counts)
    size = len(vocabulary) + 1
    totals = {c: sum(counts[c].values()) for c in classes}
    default = {c: math.log(0.1 / (totals[c] + 0.1 * size)) for c in classes}
    delta: dict[str, dict[str, float]] = {}
    for c in classes:
        for gram, count in counts[c].items():
            seen = math.log((count + 0.1) / (totals[c] + 0.1 * size))
            delta.setdefault(gram, {})[c] = seen - default[c]
    grams = _grams(text)
    known = [(delta[g], k) for g, k in grams.items() if g in delta and g not in ignored]
    length = sum(k for _, k in known)
    scores = {c: 0.0 + default[c] * length for c in classes}
    for deltas, k in known:
        for c, d in deltas.items():
            scores[c] += d * k
    return sorted(scores.items(), key=lambda item: -item[1])


def jieba_boundaries(segmenter: WordSegmenter, text: str) -> frozenset[int]:
    """The word boundaries jieba's own cut gives: the reference for the fused segmenter."""
    cuts = {0}
    position = 0
    for word in segmenter._tokenizer.cut(text, HMM=False):
        position += len(word)
        cuts.add(position)
    return frozenset(cuts)

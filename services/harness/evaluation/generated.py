"""Hard development questions generated from the catalog data (never from a labelled set).

``cachecoh eval generate --out FILE`` writes them in the dev set's format, so
``cachecoh eval semantic --queries FILE`` scores them. Kinds (``id`` prefix):

* ``nick``: product names rebuilt from the lexicon's name synonyms (iphone → 苹果手机, macbook
  air → mba) with an attribute synonym;
* ``unit``: a number in the unit the product's own spec uses ("3349mAh吗", "171 g?");
* ``squeezed`` / ``typo``: the English name without spaces (macbookairm3) or with two
  middle letters of its longest word swapped (Samsnug);
* ``confirm``: the spec's own value stated for confirmation ("是6.1英寸吗");
* ``policy``: store policy synonyms in everyday English and Chinese frames;
* ``personal``: first-person history or possession of one's own device or order (我这台,
  我家, my new …), no personal data;
* ``realtime``: everyday words for "now" with a price or stock question (这会儿, as of today);
* ``predict``: future support or updates of a product.

Deterministic (fixed orders, a seeded choice of frames), so a file is reproducible.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from services.core.semantic.reader import synonym_names

_ATTRIBUTES_PER_NICKNAME = 4
_SPEC_FRAMES_ZH = ("{n}{a}", "{n}的{a}是多少", "请问{n}{a}")
_SPEC_FRAMES_EN = ("{n} {a}?", "what is the {a} of the {n}", "{a} for {n}")
_POLICY_FRAMES_EN = (
    "what is your {a}?",
    "do you offer {a}?",
    "quick question about {a}",
    "how does {a} work with you?",
)
_POLICY_FRAMES_ZH = ("你们{a}吗", "{a}怎么弄", "想问下{a}")
_UNIT_FORMS = {"mAh": "mAh", "Wh": "Wh", "kWh": "kWh", "W": "W", "kW": "kW", "g": "g"}
_UNIT_FORMS |= {"mm": "mm", "km": "km", "Hz": "Hz", "inch": "英寸", "MP": "MP"}
_PERSONAL_FRAMES = (
    "the {n} I got from you last month keeps restarting",
    "我上个月在你们这买的{n}屏幕有点问题",
    "I've had my {n} for a week and the battery drains fast",
    "我前几天收到的{n}充不进电",
    # Possession without any history: a pronoun, a demonstrative or classifier, an adjective.
    "我这台{n}的电池容量",
    "我家{n}的续航",
    "俺的{n}多重",
    "my new {n} warranty",
    "what is the battery life of our old {n}",
)
_REALTIME_FRAMES = (
    "{n}这会儿多少钱",
    "{n}眼下什么价",
    "{n} price as of today",
    "is the {n} in stock at this moment?",
)
_PREDICT_FRAMES = (
    "will the {n} get software updates next year?",
    "{n}以后会不会停止系统更新",
    "how many more years will the {n} be supported?",
    "{n}将来会支持新的系统吗",
)


def _transposed(name: str) -> str | None:
    """The name with two middle letters of its longest Latin word swapped (Samsnug)."""
    words = [w for w in name.split() if w.isascii() and w.isalpha() and len(w) >= 6]
    if not words:
        return None
    word = max(words, key=len)
    middle = len(word) // 2
    swapped = word[: middle - 1] + word[middle] + word[middle - 1] + word[middle + 1 :]
    return name.replace(word, swapped, 1)


def _cid(product: str | None, attribute: str) -> str:
    return f"{product or 'null'}|{attribute}|"


def generate(
    catalog: Mapping[str, Any], attributes: Mapping[str, Any], lexicon: Mapping[str, Any]
) -> Iterator[dict[str, Any]]:
    chooser = random.Random(0)  # noqa: S311 - reproducible frames, not crypto
    vocabulary = attributes.get("attributes", {})
    synonyms = [list(g) for g in lexicon.get("name_synonyms", ())]
    number = 0
    # An attribute synonym that names a constraint value (无线充电, front camera) asks a
    # finer class than the bare attribute: such synonyms are left out of the spec kinds.
    value_words = {
        str(phrase).lower()
        for key in lexicon.get("constraints", {}).values()
        for groups in key.get("values", {}).values()
        for group in groups
        for phrase in group.get("phrases", ())
    } | {
        str(value).lower()
        for raw in vocabulary.values()
        for values in raw.get("constraints", {}).values()
        for value in values
    }

    def plain(forms: Sequence[str]) -> list[str]:
        return [f for f in forms if not any(w in f.lower() for w in value_words if len(w) >= 2)]

    def record(
        kind: str, text: str, intent: str, product: str | None, attribute: str | None
    ) -> dict[str, Any]:
        nonlocal number
        number += 1
        cacheable = intent in {"query_spec", "query_policy"}
        lang = "en" if text.isascii() else "mixed"
        return {
            "id": f"{kind}{number:05d}",
            "text": text,
            "lang": lang,
            "intent": intent,
            "cacheable": cacheable,
            "product": product,
            "attribute": attribute,
            "constraints": {},
            "cid": _cid(product, attribute) if cacheable and attribute else None,
        }

    for product in catalog.get("products", ()):
        pid, category = str(product["id"]), str(product.get("category", ""))
        names = [*product["names"].get("zh", ()), *product["names"].get("en", ())]
        specs = product.get("specs", {})
        applicable = [
            a
            for a, raw in vocabulary.items()
            if raw.get("kind") == "spec" and a in specs and category in raw.get("applies_to", ())
        ]
        for index, nick in enumerate(synonym_names(names, synonyms)):
            for offset in range(_ATTRIBUTES_PER_NICKNAME):
                attribute = applicable[
                    (index * _ATTRIBUTES_PER_NICKNAME + offset) % len(applicable)
                ]
                raw = vocabulary[attribute]
                zh = chooser.choice(plain(raw["synonyms"].get("zh", ())) or [attribute])
                en = chooser.choice(plain(raw["synonyms"].get("en", ())) or [attribute])
                frame = chooser.choice(_SPEC_FRAMES_ZH)
                yield record("nick", frame.format(n=nick, a=zh), "query_spec", pid, attribute)
                frame = chooser.choice(_SPEC_FRAMES_EN)
                yield record("nick", frame.format(n=nick, a=en), "query_spec", pid, attribute)
        name = names[0]
        en_name = product["names"].get("en", names)[0]
        # Squeezed (macbookairm3) and transposed-letter (Samsnug) spellings of the name.
        for kind, written in (
            ("squeezed", en_name.lower().replace(" ", "")),
            ("typo", _transposed(en_name)),
        ):
            if written is None or written == en_name or not applicable:
                continue
            attribute = applicable[number % len(applicable)]
            en = chooser.choice(
                plain(vocabulary[attribute]["synonyms"].get("en", ())) or [attribute]
            )
            yield record(kind, f"{written} {en}?", "query_spec", pid, attribute)
        for attribute in applicable:
            spec = specs[attribute]
            if "by" in spec or not isinstance(spec.get("value"), int | float):
                continue
            unit = str(spec.get("unit", ""))
            shown = _UNIT_FORMS.get(unit)
            if shown is None:
                continue
            value = f"{spec['value']:g}"
            yield record("unit", f"{name}是{value}{shown}吗", "query_spec", pid, attribute)
            english = "inches" if unit == "inch" else shown
            yield record(
                "confirm", f"is the {en_name} {value} {english}?", "query_spec", pid, attribute
            )
            yield record("unit", f"{name}有多少{shown}", "query_spec", pid, attribute)
        for frame in _PERSONAL_FRAMES:
            yield record("personal", frame.format(n=chooser.choice(names)), "personal", pid, None)
        for frame in _PREDICT_FRAMES:
            yield record("predict", frame.format(n=chooser.choice(names)), "predict", pid, None)
        for frame in _REALTIME_FRAMES:
            yield record("realtime", frame.format(n=chooser.choice(names)), "realtime", pid, None)
    for attribute, raw in vocabulary.items():
        if raw.get("kind") != "policy" or "store" not in raw.get("applies_to", ()):
            continue
        for form in raw["synonyms"].get("en", ()):
            frame = chooser.choice(_POLICY_FRAMES_EN)
            yield record("policy", frame.format(a=form.lower()), "query_policy", None, attribute)
        for form in raw["synonyms"].get("zh", ()):
            frame = chooser.choice(_POLICY_FRAMES_ZH)
            yield record("policy", frame.format(a=form), "query_policy", None, attribute)


def write_generated(catalog_dir: Path, lexicon_path: Path, out: Path) -> int:
    catalog = json.loads((catalog_dir / "catalog.json").read_text(encoding="utf-8"))
    attributes = json.loads((catalog_dir / "attributes.json").read_text(encoding="utf-8"))
    lexicon = json.loads(lexicon_path.read_text(encoding="utf-8"))
    rows = list(generate(catalog, attributes, lexicon))
    out.write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8"
    )
    return len(rows)

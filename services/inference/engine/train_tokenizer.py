"""Train the offline engine's tokenizer once, on the demo corpus, and ship the file.

tiktoken downloads its encodings at first use and model hubs are out of reach here, so
the engine uses a byte-level BPE (``tokenizers``) trained on what it will see: the system
prompt, the SOP templates, the rendered facts blocks, the vocabulary and the dev queries.
Byte-level means any text encodes, including text never seen in training.

Run from a checkout (the output is committed; rerun only when the corpus changes a lot)::

    python -m services.inference.engine.train_tokenizer
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path

from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

from services.adapters.catalog_files import load_catalog
from services.core.prompt import (
    IM_END,
    IM_START,
    canonical_json,
    render_facts_block,
    restrict_facts,
    sop_catalog_from_dict,
)
from services.inference.tokenization import DEFAULT_TOKENIZER_PATH, END_OF_TEXT
from services.paths import DEMO_DATA_DIR

logger = logging.getLogger(__name__)

VOCAB_SIZE = 4096


def demo_corpus(data_dir: Path = DEMO_DATA_DIR) -> Iterator[str]:
    """The texts the engine tokenises in the demo, in a fixed order (training is
    deterministic for a fixed corpus order)."""
    sop = sop_catalog_from_dict(json.loads((data_dir / "sop_templates.json").read_text("utf-8")))
    yield sop.system_prompt
    for template in sop.templates:
        yield template.text
        yield from template.phrases
    products = load_catalog(data_dir).products
    for product in products:
        yield render_facts_block(product)
        for attribute in sorted(product.specs):
            yield render_facts_block(restrict_facts(product, [attribute]))
    vocabulary = json.loads((data_dir / "attributes.json").read_text("utf-8"))
    for attribute_id, attribute in sorted(vocabulary["attributes"].items()):
        yield attribute_id.replace("_", " ")
        yield attribute.get("description", "")
        for forms in attribute.get("synonyms", {}).values():
            yield from forms
    for values in vocabulary.get("constraint_values", {}).values():
        for value, forms in sorted(values.items()):
            yield value
            for surface in forms.values():
                yield from surface
    policy = json.loads((data_dir / "policy.json").read_text("utf-8"))
    yield canonical_json(policy.get("store_policies", {}))
    for line in (data_dir / "queries_dev.jsonl").read_text("utf-8").splitlines():
        if line.strip():
            yield str(json.loads(line)["text"])
    yield f"{IM_START}system\n{IM_END}\n{IM_START}user\n{IM_END}\n{IM_START}assistant\n"


def train(output: Path = DEFAULT_TOKENIZER_PATH, vocab_size: int = VOCAB_SIZE) -> Tokenizer:
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        min_frequency=2,
        special_tokens=[END_OF_TEXT, IM_START, IM_END],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tokenizer.train_from_iterator(demo_corpus(), trainer=trainer)
    output.parent.mkdir(parents=True, exist_ok=True)
    tokenizer.save(str(output))
    logger.info("wrote %s (%d tokens)", output, tokenizer.get_vocab_size())
    return tokenizer


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    train()

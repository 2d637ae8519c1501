"""The offline tokenizer shared by the engine, the router and the benchmark.

A byte-level BPE trained on the demo corpus (``engine/train_tokenizer.py``) and shipped
as ``engine/tokenizer.json``: it loads without network access, unlike tiktoken.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tokenizers import Tokenizer

from services.core.errors import CachecohError

DEFAULT_TOKENIZER_PATH = Path(__file__).resolve().parent / "engine" / "tokenizer.json"
END_OF_TEXT = "<|endoftext|>"


class TokenizerLoadError(CachecohError, RuntimeError):
    def __init__(self, path: Path, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"cannot load tokenizer {path}: {reason}")


@dataclass(frozen=True, slots=True)
class TextPiece:
    """One token of a text, as the substring it stands for (for streaming)."""

    token_id: int
    text: str


class OfflineTokenizer:
    """Encode/decode with a ``tokenizers`` file; ChatML markers are special tokens."""

    def __init__(self, tokenizer: Tokenizer, source: Path) -> None:
        self._tokenizer = tokenizer
        self.source = source

    @classmethod
    def from_file(cls, path: Path = DEFAULT_TOKENIZER_PATH) -> OfflineTokenizer:
        try:
            tokenizer = Tokenizer.from_file(str(path))
        except Exception as exc:  # tokenizers raises a bare Exception
            raise TokenizerLoadError(path, str(exc)) from exc
        return cls(tokenizer, path)

    @property
    def vocab_size(self) -> int:
        return int(self._tokenizer.get_vocab_size())

    def encode(self, text: str) -> list[int]:
        return list(self._tokenizer.encode(text, add_special_tokens=False).ids)

    def decode(self, token_ids: list[int]) -> str:
        return str(self._tokenizer.decode(token_ids, skip_special_tokens=False))

    def pieces(self, text: str) -> list[TextPiece]:
        """Split ``text`` into per-token substrings that concatenate back to ``text``.

        Byte-level tokens can split a multi-byte character; cutting at the character
        offsets keeps every piece valid UTF-8, at the price of an empty piece now and then.
        """
        encoding = self._tokenizer.encode(text, add_special_tokens=False)
        starts = [start for start, _ in encoding.offsets]
        pieces = []
        for index, token_id in enumerate(encoding.ids):
            start = 0 if index == 0 else starts[index]
            end = len(text) if index + 1 == len(starts) else starts[index + 1]
            pieces.append(TextPiece(token_id=token_id, text=text[start:end]))
        return pieces

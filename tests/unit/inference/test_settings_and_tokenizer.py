"""Settings from the environment, and the shipped offline tokenizer."""

from __future__ import annotations

from pathlib import Path

import pytest

from services.core.prompt import IM_END, IM_START
from services.core.routing import RoutingPolicy
from services.inference.engine.settings import EngineSettings
from services.inference.router.settings import RouterSettings
from services.inference.tokenization import OfflineTokenizer, TokenizerLoadError


def test_router_settings_read_comma_separated_upstreams(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CACHECOH_ROUTER_UPSTREAMS", "http://a:1/, http://b:2")
    monkeypatch.setenv("CACHECOH_ROUTER_POLICY", "round_robin")
    settings = RouterSettings()
    assert settings.upstreams == ["http://a:1", "http://b:2"]
    assert settings.policy is RoutingPolicy.ROUND_ROBIN


def test_engine_settings_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CACHECOH_ENGINE_KV_CACHE_BLOCKS", "123")
    monkeypatch.setenv("CACHECOH_ENGINE_SECONDS_PER_OUTPUT_TOKEN", "0.05")
    settings = EngineSettings()
    assert settings.kv_cache_blocks == 123 and settings.seconds_per_output_token == 0.05


@pytest.mark.parametrize(
    "text",
    [
        "苹果15pro连续看视频可以撑几个小时",
        "MacBook Air M3 battery life for web browsing",
        "emoji 📦 and ñ, 中英 mixed",
    ],
)
def test_tokenizer_round_trips_and_pieces_concatenate(
    tokenizer: OfflineTokenizer, text: str
) -> None:
    ids = tokenizer.encode(text)
    assert tokenizer.decode(ids) == text
    pieces = tokenizer.pieces(text)
    assert "".join(p.text for p in pieces) == text
    assert [p.token_id for p in pieces] == ids


def test_chatml_markers_are_single_special_tokens(tokenizer: OfflineTokenizer) -> None:
    assert len(tokenizer.encode(IM_START)) == 1 and len(tokenizer.encode(IM_END)) == 1
    assert tokenizer.vocab_size > 1000


def test_missing_tokenizer_file_is_a_typed_error(tmp_path: Path) -> None:
    with pytest.raises(TokenizerLoadError) as info:
        OfflineTokenizer.from_file(tmp_path / "absent.json")
    assert info.value.path == tmp_path / "absent.json"

"""The offline engine: vLLM's OpenAI chat API and prefix-cache metrics, without a GPU.

A stand-in for development, CI and the embedded demo: it answers extractively from the
facts in the prompt, keeps an accounting model of vLLM's prefix cache and publishes
its KV cache events in vLLM's wire format. Build it with
``create_app(EngineSettings())``; run it with ``cachecoh serve engine``.
"""

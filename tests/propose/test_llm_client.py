"""The litellm client against a scripted 127.0.0.1 server: retries, timeouts and exit-3 failures."""

import pytest

from aka.errors import EnvironmentMissing
from aka.propose.chat import LiteLLMClient, resolve_model

from .llm_server import ScriptedServer, error, reply, slow


def client(url, **kw):
    sleeps = []
    c = LiteLLMClient("qwen2.5-coder-32b", url, backoff_s=0.01, sleep=sleeps.append, **kw)
    return c, sleeps


def test_a_reply_with_its_tokens_and_a_local_model_costs_nothing():
    with ScriptedServer([reply("hello", prompt_tokens=11, completion_tokens=7)]) as srv:
        c, _ = client(srv.url)
        out = c.complete([{"role": "user", "content": "hi"}])
    assert (out.text, out.prompt_tokens, out.completion_tokens, out.cost_usd, out.attempts) == ("hello", 11, 7, 0.0, 1)
    assert srv.requests[0]["path"] == "/v1/chat/completions"
    assert srv.requests[0]["body"]["model"] == "qwen2.5-coder-32b"


def test_a_known_model_is_priced_from_the_local_cost_map():
    with ScriptedServer([reply("ok", prompt_tokens=1000, completion_tokens=1000)]) as srv:
        out = LiteLLMClient("gpt-4o", srv.url).complete([{"role": "user", "content": "hi"}])
    assert out.cost_usd > 0


def test_429_and_5xx_are_retried_with_backoff():
    with ScriptedServer([error(429, "rate limited"), error(503), reply("fine")]) as srv:
        c, sleeps = client(srv.url)
        out = c.complete([{"role": "user", "content": "hi"}])
    assert out.text == "fine" and out.attempts == 3 and len(srv.requests) == 3
    assert sleeps == [0.01, 0.02] and "429" in c.errors[0]


def test_a_slow_reply_past_the_timeout_is_retried():
    with ScriptedServer([slow("too late", 3.0), reply("in time")]) as srv:
        c, sleeps = client(srv.url, timeout_s=1.0)
        out = c.complete([{"role": "user", "content": "hi"}])
    assert out.text == "in time" and out.attempts == 2 and "transient" in c.errors[0]


def test_a_refused_key_ends_at_once_with_exit_3():
    with ScriptedServer([error(401, "Incorrect API key provided")]) as srv:
        c, sleeps = client(srv.url)
        with pytest.raises(EnvironmentMissing) as err:
            c.complete([{"role": "user", "content": "hi"}])
    assert err.value.exit_code == 3 and "refused the credentials (401)" in str(err.value)
    assert "--resume" in str(err.value) and len(srv.requests) == 1 and sleeps == []


def test_an_unreachable_endpoint_is_exit_3():
    with ScriptedServer([]) as srv:
        url = srv.url
    c, _ = client(url)
    with pytest.raises(EnvironmentMissing) as err:
        c.complete([{"role": "user", "content": "hi"}])
    assert "cannot be reached" in str(err.value) and url in str(err.value)


def test_persistent_failures_give_up_with_exit_3():
    with ScriptedServer([], default=error(500, "boom")) as srv:
        c, sleeps = client(srv.url, retries=2)
        with pytest.raises(EnvironmentMissing) as err:
            c.complete([{"role": "user", "content": "hi"}])
    assert "kept failing after 3 attempts" in str(err.value) and len(srv.requests) == 3


def test_api_base_without_a_provider_is_openai_compatible():
    assert resolve_model("Qwen/Qwen2.5-Coder-7B", "http://x/v1") == "openai/Qwen/Qwen2.5-Coder-7B"
    assert resolve_model("ollama/qwen2.5-coder", "http://x") == "ollama/qwen2.5-coder"
    assert resolve_model("anthropic/claude-sonnet-4-5", None) == "anthropic/claude-sonnet-4-5"

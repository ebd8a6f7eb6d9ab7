"""The litellm client against a scripted 127.0.0.1 server: retries, timeouts and exit-3 failures."""

import pytest

from aka.errors import EnvironmentMissing
from aka.propose.chat import LiteLLMClient, resolve_model, retry_after_s

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


def test_retry_after_on_429_and_503_is_honoured_up_to_the_cap():
    script = [error(429, "slow down", headers={"Retry-After": "3"}),
              error(503, "overloaded", headers={"Retry-After": "7200"}), reply("fine")]
    with ScriptedServer(script) as srv:
        c, sleeps = client(srv.url, max_backoff_s=30.0)
        out = c.complete([{"role": "user", "content": "hi"}])
    assert out.text == "fine" and sleeps == [3.0, 30.0]          # the server's wait, then the cap
    assert "(429)" in out.retries[0] and "retried after 3 s (Retry-After)" in out.retries[0]
    assert "(503)" in out.retries[1] and "retried after 30 s (Retry-After)" in out.retries[1]


def test_retry_after_as_an_http_date_or_in_milliseconds():
    class Response:
        def __init__(self, headers):
            self.headers = headers

    class Failure(Exception):
        def __init__(self, headers):
            super().__init__("429")
            self.response = Response(headers)

    assert retry_after_s(Failure({"Retry-After": "Thu, 01 Jan 2026 00:00:12 GMT"}), now=1767225600.0) == 12.0
    assert retry_after_s(Failure({"retry-after-ms": "1500"})) == 1.5
    assert retry_after_s(Failure({"Retry-After": "soon"})) is None and retry_after_s(Failure({})) is None
    wrapped = RuntimeError("litellm wrapper")
    wrapped.__cause__ = Failure({"Retry-After": "2"})
    assert retry_after_s(wrapped) == 2.0


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

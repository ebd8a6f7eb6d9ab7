"""Talking to a model: one `complete(messages)` through litellm, with retries and clear failures.

Transient failures (a timeout, 429, 5xx) are retried with exponential backoff; a 429 or 503 that
says when to come back (Retry-After, in seconds or as an HTTP date, or retry-after-ms) is waited for
instead, up to the same cap. A refused key (401/403), an
unknown model (404), a rejected request or an endpoint that cannot be reached raise
`EnvironmentMissing` (exit 3): the session stays resumable. litellm is imported on first use, with
its remote cost-map fetch and telemetry off; nothing is downloaded.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import Any, Callable, Protocol

from aka.errors import EnvironmentMissing

TRANSIENT_STATUS = {408, 409, 425, 429, 500, 502, 503, 504, 529}


@dataclass(frozen=True)
class ChatReply:
    """A model's answer with the figures the response carried."""

    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    latency_s: float = 0.0
    attempts: int = 1
    retries: tuple[str, ...] = ()
    """One line per failed attempt before this reply (what failed, how long it waited)."""
    finish_reason: str = ""


class ChatClient(Protocol):
    """Sends one conversation, returns the reply (or raises EnvironmentMissing)."""

    model: str
    api_base: str | None

    def complete(self, messages: list[dict[str, str]]) -> ChatReply:
        ...


def litellm_module():
    """litellm, imported with no network of its own: local cost map, offline mode, no telemetry."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("LITELLM_OFFLINE_MODE", "true")
    import litellm

    litellm.telemetry = False
    litellm.suppress_debug_info = True
    return litellm


def resolve_model(model: str, api_base: str | None) -> str:
    """With --api-base and no provider prefix litellm knows, the endpoint is OpenAI-compatible."""
    if not api_base:
        return model
    prefix = model.split("/", 1)[0] if "/" in model else ""
    if prefix and prefix in litellm_module().provider_list:
        return model
    return f"openai/{model}"


class LiteLLMClient:
    """`litellm.completion` with a timeout, retries with backoff and exit-3 failures."""

    def __init__(self, model: str, api_base: str | None = None, *, timeout_s: float = 600.0,
                 retries: int = 4, backoff_s: float = 2.0, max_backoff_s: float = 60.0,
                 temperature: float | None = None, max_output_tokens: int | None = None,
                 sleep: Callable[[float], None] = time.sleep):
        self.model, self.api_base = model, api_base
        self.timeout_s, self.retries = timeout_s, retries
        self.backoff_s, self.max_backoff_s = backoff_s, max_backoff_s
        self.temperature, self.max_output_tokens = temperature, max_output_tokens
        self.sleep = sleep
        self.errors: list[str] = []
        """One line per failed attempt (what was retried)."""

    def complete(self, messages: list[dict[str, str]]) -> ChatReply:
        litellm = litellm_module()
        model = resolve_model(self.model, self.api_base)
        kwargs: dict[str, Any] = {"model": model, "messages": messages, "timeout": self.timeout_s,
                                  "num_retries": 0}
        if self.api_base:
            kwargs["api_base"] = self.api_base
            if model.startswith("openai/") and not os.environ.get("OPENAI_API_KEY"):
                kwargs["api_key"] = "no-key"                  # local servers take any key
        if self.temperature is not None:
            kwargs["temperature"] = self.temperature
        if self.max_output_tokens:
            kwargs["max_tokens"] = self.max_output_tokens
        attempt = 0
        failed: list[str] = []
        while True:
            attempt += 1
            start = time.monotonic()
            try:
                response = litellm.completion(**kwargs)
            except Exception as exc:                          # noqa: BLE001 - classified below
                kind = classify(exc, litellm)
                status = getattr(exc, "status_code", None)
                line = f"attempt {attempt}: {kind}" + (f" ({status})" if status else "") + f": {_short(exc)}"
                if kind == "fatal" or attempt > self.retries or (kind == "unreachable" and attempt > 1):
                    self.errors.append(line)
                    raise EnvironmentMissing(self._explain(kind, exc, attempt)) from None
                wait = self.wait_s(exc, attempt)
                told = " (Retry-After)" if retry_after_s(exc) is not None else ""
                failed.append(f"{line}; retried after {wait:g} s{told}")
                self.errors.append(failed[-1])
                self.sleep(wait)
                continue
            return self._reply(litellm, response, time.monotonic() - start, attempt, failed)

    def wait_s(self, exc: Exception, attempt: int) -> float:
        """Seconds before the next attempt: the server's Retry-After when it gave one, else
        exponential backoff; capped at `max_backoff_s` either way."""
        told = retry_after_s(exc)
        wait = told if told is not None else self.backoff_s * 2 ** (attempt - 1)
        return min(self.max_backoff_s, wait)

    def _reply(self, litellm, response, latency: float, attempts: int, failed: list[str]) -> ChatReply:
        choice = response.choices[0] if response.choices else None
        text = (choice.message.content or "") if choice is not None else ""
        usage = getattr(response, "usage", None)
        try:
            cost = float(litellm.completion_cost(completion_response=response) or 0.0)
        except Exception:                                     # noqa: BLE001 - unpriced (local) model
            cost = 0.0
        return ChatReply(text=text, prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
                         completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0), cost_usd=cost,
                         latency_s=latency, attempts=attempts, retries=tuple(failed),
                         finish_reason=str(getattr(choice, "finish_reason", "") or ""))

    def _explain(self, kind: str, exc: Exception, attempts: int) -> str:
        where = f" at {self.api_base}" if self.api_base else ""
        status = getattr(exc, "status_code", None)
        if status in (401, 403):
            why = (f"the model endpoint{where} refused the credentials ({status}): set the provider's key "
                   "(e.g. OPENAI_API_KEY, ANTHROPIC_API_KEY) for --model " + self.model)
        elif status == 404:
            why = f"the endpoint{where} does not know the model {self.model!r} (404)"
        elif kind == "unreachable":
            why = (f"the model endpoint{where} cannot be reached ({_short(exc)}); check --api-base and that "
                   "the server is running")
        elif kind == "transient":
            why = f"the model endpoint{where} kept failing after {attempts} attempts ({_short(exc)})"
        else:
            why = f"the model endpoint{where} rejected the request ({status or type(exc).__name__}: {_short(exc)})"
        return f"{why}; the session is resumable with --resume"


def classify(exc: Exception, litellm) -> str:
    """'transient' (retry), 'unreachable' (connection refused, DNS) or 'fatal'."""
    if isinstance(exc, getattr(litellm, "Timeout", ())):
        return "transient"
    if _refused(exc):
        return "unreachable"
    status = getattr(exc, "status_code", None)
    if isinstance(status, int):
        return "transient" if status in TRANSIENT_STATUS or status >= 500 else "fatal"
    if isinstance(exc, getattr(litellm, "APIConnectionError", ())):
        text = str(exc).lower()
        if "timed out" in text or "timeout" in text:
            return "transient"
        return "unreachable"
    if isinstance(exc, getattr(litellm, "APIError", ())):
        return "transient"
    raise exc


def retry_after_s(exc: BaseException, now: float | None = None) -> float | None:
    """The wait a 429/503 response asked for (Retry-After: seconds or an HTTP date; retry-after-ms),
    read from the exception's response headers or its cause's; None when there is none."""
    seen = 0
    while exc is not None and seen < 8:
        for headers in (getattr(getattr(exc, "response", None), "headers", None),
                        getattr(exc, "litellm_response_headers", None), getattr(exc, "headers", None)):
            wait = _parse_retry_after(headers, now)
            if wait is not None:
                return wait
        exc, seen = exc.__cause__ or exc.__context__, seen + 1
    return None


def _parse_retry_after(headers, now: float | None) -> float | None:
    try:
        found = {str(k).lower(): str(v) for k, v in headers.items()} if headers else {}
    except (AttributeError, TypeError):
        return None
    try:
        if "retry-after-ms" in found:
            return max(0.0, float(found["retry-after-ms"]) / 1000)
        if "retry-after" not in found:
            return None
        return max(0.0, float(found["retry-after"]))
    except ValueError:
        pass
    try:
        from email.utils import parsedate_to_datetime

        when = parsedate_to_datetime(found.get("retry-after", "")).timestamp()
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    return max(0.0, when - (time.time() if now is None else now))


def _refused(exc: BaseException) -> bool:
    """No connection at all (refused, unknown host): litellm reports it as a 500 'Connection error'."""
    seen = 0
    while exc is not None and seen < 8:
        if isinstance(exc, (ConnectionRefusedError, OSError)) and not isinstance(exc, TimeoutError):
            return True
        if type(exc).__name__ in ("ConnectError", "APIConnectionError") and "timeout" not in str(exc).lower():
            return True
        exc, seen = exc.__cause__ or exc.__context__, seen + 1
    return False


def _short(exc: Exception) -> str:
    text = " ".join(str(exc).split())
    return text[:300]

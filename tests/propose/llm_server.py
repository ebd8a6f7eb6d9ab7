"""A scripted OpenAI-compatible chat server on 127.0.0.1 for the LLM proposer's tests (no key, no
internet). Each request takes the next step of its script: a reply text, an HTTP error, or a
reply sent after a delay. Every request body is kept."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Step:
    """One scripted answer."""

    text: str = ""
    status: int = 200
    delay_s: float = 0.0
    prompt_tokens: int = 1200
    completion_tokens: int = 400


def reply(text: str, **kw) -> Step:
    return Step(text=text, **kw)


def error(status: int, message: str = "") -> Step:
    return Step(status=status, text=message or f"error {status}")


def slow(text: str, delay_s: float) -> Step:
    return Step(text=text, delay_s=delay_s)


class ScriptedServer:
    """`with ScriptedServer([...]) as srv:` serves `srv.url` (an OpenAI-compatible `/v1`)."""

    def __init__(self, script: list[Step], default: Step | None = None):
        self.script = list(script)
        self.default = default
        self.requests: list[dict] = []
        self.lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
                with server.lock:
                    server.requests.append({"path": self.path, "body": body,
                                            "authorization": self.headers.get("authorization", "")})
                    step = server.script.pop(0) if server.script else server.default
                if step is None:
                    step = error(500, "the test's script is exhausted")
                if step.delay_s:
                    time.sleep(step.delay_s)
                if step.status != 200:
                    data = json.dumps({"error": {"message": step.text, "type": "test", "code": step.status}})
                else:
                    data = json.dumps({
                        "id": f"chatcmpl-{len(server.requests)}", "object": "chat.completion", "created": 0,
                        "model": body.get("model", "test"),
                        "choices": [{"index": 0, "finish_reason": "stop",
                                     "message": {"role": "assistant", "content": step.text}}],
                        "usage": {"prompt_tokens": step.prompt_tokens, "completion_tokens": step.completion_tokens,
                                  "total_tokens": step.prompt_tokens + step.completion_tokens}})
                raw = data.encode()
                try:
                    self.send_response(step.status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(raw)))
                    self.end_headers()
                    self.wfile.write(raw)
                except (BrokenPipeError, ConnectionResetError):
                    pass                                   # the client gave up (a timeout test)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_port}/v1"

    def __enter__(self) -> "ScriptedServer":
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def prompts(self) -> list[str]:
        """Every request's messages as one text each."""
        return ["\n".join(m["content"] for m in r["body"].get("messages", [])) for r in self.requests]

    def last_user(self, i: int = -1) -> str:
        return self.requests[i]["body"]["messages"][-1]["content"]

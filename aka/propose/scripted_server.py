"""A scripted OpenAI-compatible chat server on 127.0.0.1: the fake behind the LLM proposer's seam.

Each `POST .../chat/completions` takes the next step of its script: a reply, an HTTP error (with
headers such as Retry-After), or a reply sent after a delay. Every request is kept. It needs no key
and reaches nothing: tests start it in a thread, and a recorded session replays its replies
through it as a process:

    python -m aka.propose.scripted_server REPLIES --port-file PORT [--requests LOG.jsonl]

REPLIES is a folder of Markdown files, one reply each, answered in name order (01-....md, 02-...),
or a JSONL file with one step per line: {"text": ...} or {"status": 429, "headers": {...}} with
optional "delay_s", "prompt_tokens", "completion_tokens" ("note" is ignored). Token counts left out
are estimated as one token per four characters. Once the script is spent the server answers 400
("no more scripted replies"), which the client treats as a rejected request.
"""

from __future__ import annotations

import argparse
import json
import math
import signal
import sys
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from aka.errors import InputError


@dataclass
class Step:
    """One scripted answer."""

    text: str = ""
    """The reply's content (or the error message when `status` is not 200)."""
    status: int = 200
    delay_s: float = 0.0
    """Seconds to wait before answering (a slow model, a timeout)."""
    prompt_tokens: int | None = None
    """Reported usage; None: estimated from the request (4 characters a token)."""
    completion_tokens: int | None = None
    headers: dict[str, str] = field(default_factory=dict)
    """Extra response headers (e.g. {"Retry-After": "3"} on a 429)."""


def reply(text: str, **kw: Any) -> Step:
    return Step(text=text, **kw)


def error(status: int, message: str = "", **kw: Any) -> Step:
    return Step(status=status, text=message or f"error {status}", **kw)


def slow(text: str, delay_s: float, **kw: Any) -> Step:
    return Step(text=text, delay_s=delay_s, **kw)


EXHAUSTED = Step(status=400, text="no more scripted replies: the script of this scripted server is spent")
STEP_KEYS = {"text", "status", "delay_s", "prompt_tokens", "completion_tokens", "headers", "note"}


def load_steps(path: str | Path) -> list[Step]:
    """Steps from a folder of *.md replies (name order) or a JSONL file; InputError names the file
    and line of a bad one."""
    p = Path(path)
    if p.is_dir():
        files = sorted(p.glob("*.md"))
        if not files:
            raise InputError(f"{p}: no *.md replies in the folder")
        return [Step(text=f.read_text(encoding="utf-8")) for f in files]
    try:
        lines = p.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise InputError(f"{p}: cannot read the scripted replies ({exc.strerror})") from None
    steps = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except ValueError as exc:
            raise InputError(f"{p}:{n}: not a JSON object ({exc})") from None
        if not isinstance(data, dict):
            raise InputError(f"{p}:{n}: expected a JSON object, got {type(data).__name__}")
        unknown = sorted(set(data) - STEP_KEYS)
        if unknown:
            raise InputError(f"{p}:{n}: unknown key {unknown[0]!r} (allowed: {', '.join(sorted(STEP_KEYS))})")
        data.pop("note", None)
        if not isinstance(data.get("text", ""), str) or not isinstance(data.get("status", 200), int):
            raise InputError(f"{p}:{n}: 'text' must be a string and 'status' an integer")
        steps.append(Step(**data))
    if not steps:
        raise InputError(f"{p}: no scripted replies in the file")
    return steps


def tokens(text: str) -> int:
    """A rough token count (4 characters a token) for a server that is not told one."""
    return max(1, math.ceil(len(text) / 4)) if text else 0


class ScriptedServer:
    """`with ScriptedServer([...]) as srv:` serves `srv.url` (an OpenAI-compatible `/v1`)."""

    def __init__(self, script: list[Step], default: Step | None = None, *, port: int = 0,
                 log: Path | None = None):
        self.script = list(script)
        self.default = default
        self.requests: list[dict] = []
        self.log = Path(log) if log else None
        """Where each request is appended as one JSON line (the process mode's record)."""
        self.lock = threading.Lock()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", port), _handler(self))
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_port}/v1"

    def __enter__(self) -> "ScriptedServer":
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def next_step(self, request: dict) -> Step:
        with self.lock:
            self.requests.append(request)
            if self.log is not None:
                with open(self.log, "a", encoding="utf-8") as f:
                    f.write(json.dumps({"n": len(self.requests), **request}, ensure_ascii=False) + "\n")
            step = self.script.pop(0) if self.script else self.default
        return step if step is not None else EXHAUSTED

    def prompts(self) -> list[str]:
        """Every request's messages as one text each."""
        return ["\n".join(m["content"] for m in r["body"].get("messages", [])) for r in self.requests]

    def last_user(self, i: int = -1) -> str:
        return self.requests[i]["body"]["messages"][-1]["content"]


def _handler(server: ScriptedServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            raw = self.rfile.read(int(self.headers.get("content-length", 0)))
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                body = {}
            step = server.next_step({"path": self.path, "body": body,
                                     "authorization": self.headers.get("authorization", "")})
            if step.delay_s:
                time.sleep(step.delay_s)
            self._send(step, _payload(step, body, len(server.requests)))

        def _send(self, step: Step, data: bytes) -> None:
            try:
                self.send_response(step.status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                for k, v in step.headers.items():
                    self.send_header(k, str(v))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass                                       # the client gave up (a timeout)

        def log_message(self, *args):
            pass

    return Handler


def _payload(step: Step, body: dict, n: int) -> bytes:
    if step.status != 200:
        return json.dumps({"error": {"message": step.text, "type": "scripted", "code": step.status}}).encode()
    prompt = "\n".join(str(m.get("content", "")) for m in body.get("messages", []) if isinstance(m, dict))
    p = step.prompt_tokens if step.prompt_tokens is not None else tokens(prompt)
    c = step.completion_tokens if step.completion_tokens is not None else tokens(step.text)
    return json.dumps({
        "id": f"chatcmpl-{n}", "object": "chat.completion", "created": 0, "model": body.get("model", "scripted"),
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": step.text}}],
        "usage": {"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c}}).encode()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m aka.propose.scripted_server", description=__doc__.split("\n")[0])
    parser.add_argument("replies", help="a folder of *.md replies or a JSONL file of steps, one per request")
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: a free one)")
    parser.add_argument("--port-file", help="write the port here once listening")
    parser.add_argument("--requests", help="append every request here as one JSON line")
    args = parser.parse_args(argv)
    try:
        steps = load_steps(args.replies)
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    srv = ScriptedServer(steps, port=args.port, log=Path(args.requests) if args.requests else None)
    signal.signal(signal.SIGTERM, lambda *_: threading.Thread(target=srv.httpd.shutdown).start())
    if args.port_file:
        tmp = Path(args.port_file + ".tmp")
        tmp.write_text(str(srv.httpd.server_port))
        tmp.replace(args.port_file)
    print(f"scripted server: {len(steps)} replies at {srv.url}", file=sys.stderr, flush=True)
    try:
        srv.httpd.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        srv.httpd.server_close()
    print(f"scripted server: {len(srv.requests)} requests answered, {len(srv.script)} replies left",
          file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

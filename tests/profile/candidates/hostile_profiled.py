"""A hostile candidate for the profiler's sandbox test: at import it tries to write outside its
folder, to find a planted secret in other processes' environments and command lines, and to reach a
port on 127.0.0.1; it writes what worked to hostile_found.json in its working folder.

The plan comes in AKA_TEST_HOSTILE_PLAN (JSON: targets, the secret reversed, the port); without it
the file does nothing but define a ModelNew.
"""

import json
import os
import socket
from pathlib import Path

import torch

_plan = json.loads(os.environ.get("AKA_TEST_HOSTILE_PLAN", "null"))
if _plan:
    needle = _plan["needle"][::-1].encode()
    found = {"written": [], "leaks": [], "readable": 0, "connected": False, "pid": os.getpid()}
    for target in _plan["targets"]:
        try:
            with open(target, "w") as f:
                f.write("pwned by a profiled candidate")
            found["written"].append(target)
        except OSError:
            pass
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            for part in ("environ", "cmdline"):
                try:
                    data = Path(f"/proc/{pid}/{part}").read_bytes()
                except OSError:
                    continue
                found["readable"] += 1
                if needle in data:
                    found["leaks"].append(f"/proc/{pid}/{part}")
    try:
        socket.create_connection(("127.0.0.1", _plan["port"]), timeout=3).close()
        found["connected"] = True
    except OSError as exc:
        found["connect_error"] = str(exc)
    Path("hostile_found.json").write_text(json.dumps(found))


class ModelNew(torch.nn.Module):
    def forward(self, x, weight):
        return x * weight

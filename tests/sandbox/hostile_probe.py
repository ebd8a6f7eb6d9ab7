"""A hostile program for the sandbox tests: it tries everything and prints what worked as JSON.

argv: SECRET_VALUE_REVERSED SENTINEL_PID TARGET_PATH...  (each target is a file it tries to create)
"""

import json
import os
import signal
import socket
import sys

secret, sentinel, targets = sys.argv[1][::-1].encode(), int(sys.argv[2]), sys.argv[3:]
seen = {"written": [], "leaks": [], "readable": 0, "signalled": False}
for target in targets:
    try:
        with open(target, "w") as f:
            f.write("pwned")
        seen["written"].append(target)
    except OSError:
        pass
for pid in os.listdir("/proc"):
    if pid.isdigit():
        for part in ("environ", "cmdline"):
            try:
                with open(f"/proc/{pid}/{part}", "rb") as f:
                    data = f.read()
            except OSError:
                continue
            seen["readable"] += 1
            if secret in data:
                seen["leaks"].append(f"{pid}/{part}")
try:
    os.kill(sentinel, signal.SIGKILL)
    seen["signalled"] = True
except OSError:
    pass
seen["interfaces"] = sorted(name for _, name in socket.if_nameindex())
seen["uid"] = os.getuid()
try:
    sock = socket.create_connection(("1.1.1.1", 53), timeout=2)
    sock.close()
    seen["network"] = True
except OSError:
    seen["network"] = False
for _ in range(3):                      # sleepers that must not outlive the sandbox
    if os.fork() == 0:
        os.setsid()
        os.execvp("sleep", ["sleep", secret.decode()[-6:]])
print(json.dumps(seen), flush=True)

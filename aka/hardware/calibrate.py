"""The cache of measured ceilings, one JSON file per GPU model, in $AKA_CACHE_DIR (default
~/.cache/aka). The measuring itself runs in the worker: aka/evaluate/calibration.py."""

from __future__ import annotations

import fcntl
import json
import os
import re
from pathlib import Path
from typing import Any, Callable

FORMAT = 1


def _slug(device_name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", device_name.lower()).strip("-")


def _root() -> Path:
    return Path(os.environ.get("AKA_CACHE_DIR") or Path.home() / ".cache" / "aka")


def cache_path(device_name: str) -> Path:
    return _root() / "calibration" / f"{_slug(device_name)}.json"


def floor_path(device_name: str) -> Path:
    return _root() / "launch-floor" / f"{_slug(device_name)}.json"


def shared_floor(device_name: str, measure: Callable[[], float]) -> float:
    """The graph launch floor (µs) that every process timing on this GPU model adds to a
    graph-replayed call: read from the cache, else measured by `measure` here once and kept there,
    so the candidate's side and the baselines of every evaluation add the same value. Processes
    that start at once (`suite_bench --jobs`) take turns on a lock file, so the first measures and
    the rest read its value. `aka doctor --calibrate` measures it again and rewrites it. Only
    trusted processes (judge, baselines worker) call this; the candidate's process is handed the value."""
    p = floor_path(device_name)
    us = _cached_floor(p, device_name)
    if us is not None:
        return us
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
        lock = open(p.with_suffix(".lock"), "a")
    except OSError:                              # a read-only cache: this process keeps its own value
        return float(measure())
    with lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        us = _cached_floor(p, device_name)
        if us is None:
            us = float(measure())
            try:
                save_floor(device_name, us)
            except OSError:
                pass
    return us


def _cached_floor(p: Path, device_name: str) -> float | None:
    try:
        data = json.loads(p.read_text())
        if data.get("format") == FORMAT and data.get("device") == device_name and float(data["us"]) > 0:
            return float(data["us"])
    except (OSError, ValueError, KeyError, TypeError):
        pass
    return None


def save_floor(device_name: str, us: float) -> Path:
    return _write(floor_path(device_name), {"format": FORMAT, "device": device_name, "us": us})


def load_cached(device_name: str) -> dict[str, Any] | None:
    p = cache_path(device_name)
    try:
        data = json.loads(p.read_text())
    except (OSError, ValueError):
        return None
    return data if data.get("format") == FORMAT and data.get("device") == device_name else None


def save(data: dict[str, Any]) -> Path:
    return _write(cache_path(data["device"]), data)


def _write(p: Path, data: dict[str, Any]) -> Path:
    """DATA as P's JSON, replaced whole (a temporary file per process, then a rename)."""
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, indent=2))
    tmp.replace(p)
    return p

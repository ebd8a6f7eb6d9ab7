"""The cache of measured ceilings, one JSON file per GPU model, in $AKA_CACHE_DIR (default
~/.cache/aka). The measuring itself runs in the worker: aka/evaluate/calibration.py."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

FORMAT = 1


def cache_path(device_name: str) -> Path:
    root = Path(os.environ.get("AKA_CACHE_DIR") or Path.home() / ".cache" / "aka")
    slug = re.sub(r"[^a-z0-9]+", "-", device_name.lower()).strip("-")
    return root / "calibration" / f"{slug}.json"


def load_cached(device_name: str) -> dict[str, Any] | None:
    p = cache_path(device_name)
    try:
        data = json.loads(p.read_text())
    except (OSError, ValueError):
        return None
    return data if data.get("format") == FORMAT and data.get("device") == device_name else None


def save(data: dict[str, Any]) -> Path:
    p = cache_path(data["device"])
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=2))
    tmp.replace(p)
    return p

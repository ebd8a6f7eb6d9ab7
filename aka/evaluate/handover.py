"""Output tensors handed from the candidate's process to the judge, as plain files.

The candidate's process (`runner`) writes what a call produced — a tensor, or a tuple / list /
dict of tensors and scalars — into its job folder: one `NAME.json` manifest describing the
structure and one raw `NAME.K.bin` file per tensor. The judge (`judge`), which never runs
candidate code, reads them back. Nothing here unpickles or evaluates anything: the manifest is
JSON whose every field is checked, and a tensor file must have exactly the bytes its dtype and
shape say, under a cap the judge sets from the reference's own output.
"""

from __future__ import annotations

import json
import math
import mmap
import os
import stat
from typing import Any

import torch

from aka.evaluate.compare import flatten

DTYPES = {str(d).removeprefix("torch."): d for d in (
    torch.float64, torch.float32, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.int16,
    torch.int8, torch.uint8, torch.bool, torch.complex64, torch.complex128,
    getattr(torch, "float8_e4m3fn", None), getattr(torch, "float8_e5m2", None)) if d is not None}
MANIFEST_MAX_BYTES = 1 << 20


class HandoverError(Exception):
    """What the candidate's process handed over is not a well-formed output (its fault)."""


def write(folder: str, name: str, value: Any) -> None:
    """Write `value` (the candidate's output, or mutated inputs) for the judge to read."""
    leaves = []
    for k, (path, v) in enumerate(flatten(value)):
        if isinstance(v, torch.Tensor):
            t = v.detach()
            leaves.append({"path": path, "tensor": k, "dtype": str(t.dtype).removeprefix("torch."),
                           "shape": list(t.shape), "device": t.device.type})
            _write_tensor(os.path.join(folder, f"{name}.{k}.bin"), t)
        else:
            leaves.append({"path": path, "value": _scalar(v)})
    with open(os.path.join(folder, f"{name}.json.tmp"), "w") as f:
        json.dump({"leaves": leaves, "kind": skeleton(value)}, f)
    os.replace(os.path.join(folder, f"{name}.json.tmp"), os.path.join(folder, f"{name}.json"))


def _write_tensor(path: str, t: torch.Tensor) -> None:
    """The tensor's bytes into a file: copied straight from the device into the file's pages
    (a shared mapping), with no staging copy on the host."""
    raw = t.contiguous().reshape(-1).view(torch.uint8)
    with open(path, "wb+") as f:
        if not raw.numel():
            return
        f.truncate(raw.numel())
        with mmap.mmap(f.fileno(), raw.numel()) as mm:
            dst = torch.frombuffer(mm, dtype=torch.uint8)
            dst.copy_(raw)
            del dst                                  # the mapping closes only when nothing views it


def skeleton(value: Any) -> Any:
    """The container structure of an output, without its values (what `read` rebuilds)."""
    if isinstance(value, torch.Tensor):
        return "t"
    if isinstance(value, (tuple, list)):
        return {"seq": "tuple" if isinstance(value, tuple) else "list", "items": [skeleton(v) for v in value]}
    if isinstance(value, dict):
        return {"dict": [[str(k), skeleton(value[k])] for k in sorted(value, key=str)]}
    return "v"


def _scalar(v: Any) -> Any:
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    return repr(v)


def read(folder: str, name: str, max_bytes: int, device: torch.device) -> Any:
    """The structure written by `write`, tensors on `device` when they were on a device of that
    type (else on the CPU, so a wrong-device output stays visible). Raises HandoverError."""
    path = os.path.join(folder, f"{name}.json")
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
        with os.fdopen(fd, "rb") as f:
            text = f.read(MANIFEST_MAX_BYTES + 1)
        if len(text) > MANIFEST_MAX_BYTES:
            raise HandoverError(f"{name}: manifest larger than {MANIFEST_MAX_BYTES} bytes")
        manifest = json.loads(text)
    except (OSError, ValueError) as exc:
        raise HandoverError(f"{name}: no readable output manifest ({exc})") from None
    if not isinstance(manifest, dict) or not isinstance(manifest.get("leaves"), list):
        raise HandoverError(f"{name}: malformed manifest")
    budget = [max_bytes]
    leaves = iter(manifest["leaves"])
    try:
        value = _build(manifest.get("kind"), leaves, folder, name, budget, device)
    except (KeyError, TypeError, ValueError, StopIteration) as exc:
        raise HandoverError(f"{name}: malformed manifest ({type(exc).__name__}: {exc})") from None
    return value


def _build(kind: Any, leaves: Any, folder: str, name: str, budget: list[int], device: torch.device) -> Any:
    if kind == "t":
        return _tensor(next(leaves), folder, name, budget, device)
    if kind == "v":
        leaf = next(leaves)
        return leaf["value"]
    if isinstance(kind, dict) and kind.get("seq") in ("tuple", "list"):
        items = [_build(k, leaves, folder, name, budget, device) for k in kind["items"]]
        return tuple(items) if kind["seq"] == "tuple" else items
    if isinstance(kind, dict) and isinstance(kind.get("dict"), list):
        return {str(k): _build(v, leaves, folder, name, budget, device) for k, v in kind["dict"]}
    raise ValueError(f"unknown node {kind!r}")


def _tensor(leaf: dict, folder: str, name: str, budget: list[int], device: torch.device) -> torch.Tensor:
    dtype = DTYPES.get(leaf["dtype"])
    shape = leaf["shape"]
    if dtype is None or not isinstance(shape, list) or not all(isinstance(s, int) and s >= 0 for s in shape):
        raise ValueError(f"bad tensor description {leaf!r}")
    k = int(leaf["tensor"])
    nbytes = math.prod(shape) * torch.empty((), dtype=dtype).element_size()
    budget[0] -= nbytes
    if budget[0] < 0:
        raise HandoverError(f"{name}: outputs larger than the reference's allow")
    to_device = leaf.get("device") == device.type and device.type != "cpu"
    data = _read_regular(os.path.join(folder, f"{name}.{k}.bin"), nbytes, name, leaf.get("path"),
                         pinned=to_device and device.type == "cuda")
    t = data.view(dtype).reshape(shape) if nbytes else torch.empty(shape, dtype=dtype)
    return t.to(device, non_blocking=True) if to_device else t


def _read_regular(path: str, nbytes: int, name: str, what: Any, pinned: bool = False) -> torch.Tensor:
    """Exactly `nbytes` from a regular file (never through a link the candidate planted), read
    (not mapped: the candidate's process could shrink a mapped file under the judge) into a uint8
    tensor, in page-locked memory when it goes on to a GPU."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError as exc:
        raise HandoverError(f"{name}: tensor {what} unreadable ({exc.strerror})") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size != nbytes:
            raise HandoverError(f"{name}: tensor {what} has {st.st_size} bytes, its dtype and shape "
                                f"say {nbytes}")
        data = torch.empty(nbytes, dtype=torch.uint8, pin_memory=pinned)
        view, done = memoryview(data.numpy()), 0
        while done < nbytes:
            n = os.readv(fd, [view[done:]])
            if n <= 0:
                raise HandoverError(f"{name}: tensor {what} ended early")
            done += n
        return data
    finally:
        os.close(fd)


def remove(folder: str, name: str) -> None:
    """Delete a handed-over output once judged (large outputs must not pile up)."""
    for entry in os.listdir(folder):
        if entry == f"{name}.json" or (entry.startswith(f"{name}.") and entry.endswith(".bin")):
            try:
                os.unlink(os.path.join(folder, entry))
            except OSError:
                pass

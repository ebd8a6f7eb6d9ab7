"""Getting the kernel out of a model's reply: fenced blocks, several blocks, prose around them, or
no fence at all. The result is the source of a `ModelNew` module, or why there is none."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

FENCE = re.compile(r"^[ \t]*(```+|~~~+)[ \t]*([\w+-]*)[^\n]*\n(.*?)^[ \t]*\1[ \t]*$", re.S | re.M)
OPEN_FENCE = re.compile(r"^[ \t]*(```+|~~~+)[ \t]*([\w+-]*)[^\n]*\n(.*)\Z", re.S | re.M)
PY_LANGS = {"", "python", "py", "python3", "triton"}


@dataclass(frozen=True)
class Extracted:
    """The code taken from a reply (empty when none) and how it was found."""

    code: str
    how: str
    """'fenced', 'fenced: block k of n', 'unterminated fence', 'whole reply', or why nothing was usable."""

    @property
    def ok(self) -> bool:
        return bool(self.code)


def extract_code(reply: str) -> Extracted:
    """The block defining `class ModelNew` (the last such block when several do), else why not."""
    text = (reply or "").replace("\r\n", "\n")
    if not text.strip():
        return Extracted("", "the reply was empty")
    blocks = [(m.group(2).lower(), m.group(3)) for m in FENCE.finditer(text)]
    if not blocks:
        m = OPEN_FENCE.search(text)                       # a reply cut off before its closing fence
        if m:
            blocks, how = [(m.group(2).lower(), m.group(3))], "unterminated fence"
        else:
            blocks, how = [("", text)], "whole reply"
    else:
        how = "fenced"
    python = [code for lang, code in blocks if lang in PY_LANGS]
    defining = [code for code in python if _defines_model_new(code)]
    if defining:
        chosen = defining[-1]
        if how == "fenced" and len(blocks) > 1:
            how = f"fenced: block {[c for _, c in blocks].index(chosen) + 1} of {len(blocks)}"
        return Extracted(chosen.strip("\n") + "\n", how)
    if how == "whole reply":
        return Extracted("", "the reply holds no code block and is not a Python module defining class ModelNew")
    return Extracted("", f"none of the reply's {len(blocks)} code block(s) defines class ModelNew "
                         "at the top level")


def _defines_model_new(code: str) -> bool:
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return bool(re.search(r"^class ModelNew\b", code, re.M))    # broken code: let the harness say where
    return any(isinstance(n, ast.ClassDef) and n.name == "ModelNew" for n in tree.body)

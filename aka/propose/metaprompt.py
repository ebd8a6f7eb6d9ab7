"""Meta-prompt evolution, the model's side: asking it to rewrite one section of its own system prompt
as search/replace blocks, reading those blocks back and applying them.

The reply format (one or more blocks; SEARCH text must occur in the section exactly once):

    <<<<<<< SEARCH
    text of the section to replace
    =======
    new text
    >>>>>>> REPLACE
"""

from __future__ import annotations

import re
from typing import Any

BLOCK = re.compile(r"<{5,}\s*SEARCH\s*\n(.*?)\n={5,}\s*\n(.*?)\n?>{5,}\s*REPLACE", re.S)
MAX_SECTION = 2500
"""A rewritten section longer than this is refused (the prompt must not grow without bound)."""

SYSTEM = ("You improve the system prompt of an automated GPU kernel engineer that writes Triton kernels. "
          "The prompt has named sections. You rewrite ONE section so that the kernels the engineer writes become "
          "faster while staying correct. Answer only with search/replace blocks:\n"
          "<<<<<<< SEARCH\n(exact text from the section)\n=======\n(replacement)\n>>>>>>> REPLACE")


def rewrite_messages(sections: dict[str, str], weakest: str, results: list[dict[str, Any]],
                     scores: dict[str, float | None]) -> list[dict[str, str]]:
    """The request: every section (for context), the one to rewrite, and what the prompt's
    kernels achieved (results: version, cell, status, fitness)."""
    lines = ["## The current prompt's sections"]
    for name, text in sections.items():
        lines += [f"### {name}" + (" (rewrite this one)" if name == weakest else ""), text.strip(), ""]
    lines.append("## How the sections' versions scored (the best kernel any prompt holding them produced)")
    lines += [f"- {name}: " + ("no correct kernel yet" if score is None else f"{score:.3f}x")
              for name, score in scores.items()]
    lines.append("## Recent kernels written with this prompt")
    lines += [f"- {r['version']}: {r['status']}" + (f", fitness {r['fitness']:.3f}x" if r.get("fitness") else "")
              + (f", cell {r['cell']}" if r.get("cell") else "") for r in results[-8:]] or ["- none yet"]
    lines += ["", f"Rewrite the section '{weakest}' to give better guidance: keep what is right, replace what "
                  "is vague or wrong, add what the results suggest. Keep it under "
                  f"{MAX_SECTION} characters. Reply with search/replace blocks against that section only."]
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "\n".join(lines)}]


def parse_blocks(reply: str) -> list[tuple[str, str]]:
    """The (search, replace) pairs of a reply, in order."""
    return [(m.group(1), m.group(2)) for m in BLOCK.finditer(reply or "")]


def apply_blocks(text: str, blocks: list[tuple[str, str]]) -> tuple[str, str]:
    """(new text, '') or (the old text, why nothing was applied)."""
    if not blocks:
        return text, "the reply held no search/replace block"
    out = text
    for search, replace in blocks:
        found = out.count(search) if search else 0
        if found != 1:
            where = "does not occur" if found == 0 else f"occurs {found} times"
            return text, f"a SEARCH text {where} in the section: {search[:80]!r}"
        out = out.replace(search, replace, 1)
    if out.strip() == text.strip():
        return text, "the blocks change nothing"
    if len(out) > MAX_SECTION:
        return text, f"the rewritten section has {len(out)} characters (at most {MAX_SECTION})"
    return out, ""

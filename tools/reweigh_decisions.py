"""Judge recorded comparisons again under today's accept rule (`aka.evaluate.evaluator.weigh`).

Every `candidates/vNNN/decision.json` with interleaved comparisons under the session folders in DIR
(unpacked `details.tgz` archives of earlier runs) is weighed again over its operator's shape
weights, and the decisions whose verdict would differ are listed: what a change of the rule does to
figures already measured, without a GPU.

    python3 tools/reweigh_decisions.py DIR [DIR ...] [--json OUT]

The operator is found by the name in each session's session.json among `suites/*/NAME`; a session
whose operator is not there is weighed with equal weights and says so.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def weights_of(name: str) -> dict[str, float] | None:
    from aka.spec.load import load_op

    for op_dir in sorted(ROOT.glob(f"suites/*/{name}")):
        if (op_dir / "op.yaml").exists():
            return {s.id: s.weight for s in load_op(op_dir).shapes}
    return None


def reweigh(dirs: list[Path]) -> list[dict]:
    """One row per recorded decision that has comparisons: session, version, the recorded verdict
    and reason, today's, and whether the operator's weights were found."""
    from aka.evaluate.evaluator import weigh
    from aka.spec.result import Comparison

    rows, cache = [], {}
    for path in sorted(p for d in dirs for p in d.rglob("candidates/v*/decision.json")):
        recorded = json.loads(path.read_text())
        comparisons = [Comparison.from_dict(c) for c in recorded.get("comparisons") or []]
        if not comparisons:
            continue
        session = path.parents[2]
        name = json.loads((session / "session.json").read_text()).get("op", {}).get("name", "")
        if name not in cache:
            cache[name] = weights_of(name)
        now = weigh(comparisons, cache[name] or {})
        rows.append({"session": session.name, "version": path.parent.name, "op": name,
                     "weights": cache[name] is not None, "recorded": bool(recorded["promote"]),
                     "recorded_reason": recorded["reason"], "now": now.promote, "now_reason": now.reason})
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dirs", type=Path, nargs="+")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    missing = [str(d) for d in args.dirs if not d.is_dir()]
    if missing:
        ap.error(f"not a folder: {', '.join(missing)}")
    rows = reweigh(args.dirs)
    changed = [r for r in rows if r["recorded"] != r["now"]]
    print("| session | version | recorded | today |\n|---|---|---|---|")
    for r in changed:
        mark = "" if r["weights"] else " (operator not found: equal weights)"
        print(f"| {r['session']} | {r['version']} | {r['recorded_reason'][:90]} | {r['now_reason'][:160]}{mark} |")
    print(f"\n{len(rows)} recorded comparisons, {len(changed)} with another verdict today")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

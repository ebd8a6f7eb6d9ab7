"""docs/benchmarks.md's "Where things stand" table, computed from the result files that
docs/results/STANDING.yaml names, so that no figure in it is typed by hand.

    python3 tools/standing.py                      # print the table
    python3 tools/standing.py --write docs/benchmarks.md   # replace it between the doc's markers
    python3 tools/standing.py --check docs/benchmarks.md   # exit 1 when the doc's table differs

The manifest is a list. An entry with `suite:` points at one `tools/suite_bench.py` JSON. Its row
gives the card the operators were timed on, how many of the suite's operators it holds, the
geometric mean over operators of the fastest kernel per shape against torch.compile, the shapes at
1.0x or more, the operators at their bar (`suite_bench.targets`) and the timing rule. An entry with
`optimize:` lists `tools/optimize_bench.py` JSON files; an operator in a later file replaces the
same operator in an earlier one. Its row gives the card (each file's `gpu.txt`), the geometric mean
over shapes of the best kernel against torch.compile, the shapes at 1.0x or more, and the operators
at 1.0x at every shape. Paths are relative to the manifest's folder. The doc's table sits between
the lines `<!-- standing:begin -->` and `<!-- standing:end -->`. Needs no GPU and no torch.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

import suite_bench  # noqa: E402  (tools/ is not a package)

MANIFEST = ROOT / "docs" / "results" / "STANDING.yaml"
BEGIN, END = "<!-- standing:begin -->", "<!-- standing:end -->"
HEADER = ("| card | what | file (under `docs/results/`) | geomean × torch.compile | shapes at 1.0× or more "
          "| operators at the bar | timing rule |\n|---|---|---|---|---|---|---|")


class StandingError(Exception):
    """A manifest entry that cannot be rendered: the message names the entry and the rule."""


def _card(names: set[str], where: str) -> str:
    if len(names) != 1:
        raise StandingError(f"{where}: measured on {len(names)} cards ({', '.join(sorted(names)) or 'none recorded'}); "
                            "a row is one card")
    return names.pop()


def suite_row(entry: dict, base: Path) -> list[str]:
    """One suite table's row."""
    rel = entry["suite"]
    data = json.loads(_file(base, rel).read_text())
    ops = data.get("ops") or {}
    if not ops:
        raise StandingError(f"{rel}: no operators")
    name = entry.get("name") or Path(rel).stem
    total = sum(1 for p in (ROOT / "suites" / name).iterdir() if (p / "op.yaml").exists()) \
        if (ROOT / "suites" / name).is_dir() else len(ops)
    shapes = suite_bench.per_shape(ops)
    bars = suite_bench.targets(ops)
    mean = suite_bench._geomean([r["x_compile"] for r in shapes if r["x_compile"]])
    partial = sorted(op for op in ops if suite_bench.is_partial(data, op))
    held = f"{name}, {len(ops)} of {total} operators" + (f" ({len(partial)} partial: {', '.join(partial)})"
                                                         if partial else "")
    return [_card(suite_bench.cards_of(data), rel), held, f"`{rel}`",
            f"{mean:.2f}×" if mean else "—",
            f"{sum(r['reached'] for r in shapes)} of {sum(r['matched'] for r in shapes)}",
            f"{sum(1 for r in bars if r['matched'] and not r['missed'])} of {len(bars)}",
            f"`{data.get('timing_rule') or '—'}`"]


def optimize_row(entry: dict, base: Path) -> list[str]:
    """One row over `aka optimize` sessions: each operator's newest session."""
    files = entry["optimize"]
    sessions: dict[str, dict] = {}
    cards: set[str] = set()
    for rel in files:
        path = _file(base, rel)
        gpu = path.parent / "gpu.txt"
        if not gpu.exists():
            raise StandingError(f"{rel}: no gpu.txt beside it to say which card ran it")
        lines = gpu.read_text().splitlines()
        if len(lines) < 2:
            raise StandingError(f"{rel}: its gpu.txt names no card")
        cards.add(lines[1].split(",")[0].strip())
        for s in json.loads(path.read_text()):
            sessions[s["op"]] = s
    xs = {(op, sh["shape"]): sh["speedup"].get("torch.compile") for op, s in sessions.items() for sh in s["shapes"]}
    timed = [x for x in xs.values() if x]
    ops_ok = sum(1 for op, s in sessions.items()
                 if s["shapes"] and all((sh["speedup"].get("torch.compile") or 0) >= 1.0 for sh in s["shapes"]))
    mean = suite_bench._geomean(timed)
    return [_card(cards, ", ".join(files)), entry["what"], ", ".join(f"`{f}`" for f in files),
            f"{mean:.2f}×" if mean else "—", f"{sum(1 for x in timed if x >= 1.0)} of {len(timed)}",
            f"{ops_ok} of {len(sessions)}", "—"]


def _file(base: Path, rel: str) -> Path:
    path = base / rel
    if not path.is_file():
        raise StandingError(f"{rel}: no such file under {base}")
    return path


def render(manifest: Path = MANIFEST) -> str:
    """The table, one row per manifest entry, in the manifest's order."""
    try:
        entries = yaml.safe_load(manifest.read_text())
    except (OSError, yaml.YAMLError) as exc:
        raise StandingError(f"{manifest}: {exc}") from None
    if not isinstance(entries, list) or not entries:
        raise StandingError(f"{manifest}: expected a list of entries")
    rows = []
    for i, entry in enumerate(entries):
        kinds = [k for k in ("suite", "optimize") if k in (entry or {})]
        if len(kinds) != 1:
            raise StandingError(f"{manifest}: entry {i + 1} needs exactly one of `suite:` or `optimize:`")
        if kinds == ["optimize"] and not entry.get("what"):
            raise StandingError(f"{manifest}: entry {i + 1} (optimize) needs `what:`, the row's description")
        row = (suite_row if kinds == ["suite"] else optimize_row)(entry, manifest.parent)
        rows.append("| " + " | ".join(row) + " |")
    return HEADER + "\n" + "\n".join(rows) + "\n"


def _split(doc: str, path: Path) -> tuple[str, str, str]:
    if doc.count(BEGIN) != 1 or doc.count(END) != 1 or doc.index(BEGIN) > doc.index(END):
        raise StandingError(f"{path}: needs one {BEGIN} line and, after it, one {END} line")
    head, rest = doc.split(BEGIN + "\n", 1)
    body, tail = rest.split(END, 1)
    return head, body, tail


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--manifest", type=Path, default=MANIFEST)
    group = ap.add_mutually_exclusive_group()
    group.add_argument("--write", type=Path, help="replace the table between the markers of this file")
    group.add_argument("--check", type=Path, help="exit 1 when this file's table differs from the rendering")
    args = ap.parse_args(argv)
    try:
        table = render(args.manifest)
        target = args.write or args.check
        if target is None:
            print(table, end="")
            return 0
        doc = target.read_text()
        head, body, tail = _split(doc, target)
        if args.check:
            if body != table:
                print(f"{target}: its standing table differs from {args.manifest} rendered by tools/standing.py "
                      f"(run it with --write {target})", file=sys.stderr)
                return 1
            return 0
        target.write_text(head + BEGIN + "\n" + table + END + tail)
        return 0
    except StandingError as exc:
        print(f"standing: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())

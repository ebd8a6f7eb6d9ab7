#!/usr/bin/env bash
# Create or reuse the virtual environment at .venv/ and install what aka needs, then either run
# the test suite (`tools/dev.sh test [pytest args]`) or an aka command (`tools/dev.sh aka ...`).
# CPU machines get the exact pins of constraints/cpu.txt: torch's CPU build first, then triton,
# which that build does not pull in. Re-installs only when pyproject.toml or the pins change.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
venv="$root/.venv"
py="${PYTHON:-python3}"
stamp="$venv/.aka-installed"
want="$(cat pyproject.toml constraints/cpu.txt | sha256sum | cut -d' ' -f1)"

if [ ! -x "$venv/bin/python" ]; then
  "$py" -m venv "$venv"
fi
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "aka: installing into $venv (first run takes a few minutes)" >&2
  pip() {  # quiet install; this machine's pip config warns about every unused index folder
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$@" 2>&1 \
      | { grep -v "^WARNING: Location" || true; } >&2
  }
  pins=(-c constraints/cpu.txt)
  if command -v nvidia-smi >/dev/null 2>&1; then
    pins=()                       # GPU machines keep the torch and triton they have or pick
  fi
  if ! "$venv/bin/python" -c "import torch" 2>/dev/null; then
    pip "${pins[@]}" torch
    pip "${pins[@]}" triton
  fi
  pip "${pins[@]}" -e ".[test]"
  "$root/tools/install_browser.sh" "$venv/bin/python" || echo "aka: no headless browser; the HTML test will skip" >&2
  echo "$want" > "$stamp"
fi

cmd="${1:-test}"
shift || true
case "$cmd" in
  test)
    exec "$venv/bin/python" -m pytest -n 2 --durations=15 -q "$@" ;;
  aka)
    exec "$venv/bin/aka" "$@" ;;
  *)
    echo "usage: tools/dev.sh test [pytest args] | tools/dev.sh aka COMMAND [args]" >&2
    exit 2 ;;
esac

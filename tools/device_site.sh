# Sourced (from the repository root) by the device-call tools: `carried_wheels` installs the wheels
# carried in .whl/ into the device machine's site folder once per machine (a stamp file marks it,
# so later calls on a warm machine skip pip) and puts that folder first on PYTHONPATH when it
# exists. It returns 3 when pip fails, with a message on stderr; the caller decides what that means.
# AKA_DEVICE_SITE names the folder (default /tmp/site; tests point it elsewhere).

carried_wheels() {
  local site="${AKA_DEVICE_SITE:-/tmp/site}"
  if compgen -G ".whl/*.whl" > /dev/null && [ ! -f "$site/.aka-wheels" ]; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$site" .whl/*.whl \
      || { echo "installing .whl/*.whl failed" >&2; return 3; }
    touch "$site/.aka-wheels"
  fi
  site_on_path
}

# site_on_path: the site folder first on PYTHONPATH when it exists (what an earlier install left),
# installing nothing: the CPU side of a tool that installs only on a GPU machine.
site_on_path() {
  local site="${AKA_DEVICE_SITE:-/tmp/site}"
  if [ -d "$site" ]; then export PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}"; fi
  return 0
}

# call_begin NAME: the frame of a session's device-call script (docs/results/*/scripts). W is an
# emptied /tmp/NAME for the call's files, FINAL the $OUT they go back through, T0 the start;
# `save` packs W into $FINAL/NAME.tgz (after each step, so a call cut short returns what it
# finished) and `left` prints how many of BUDGET seconds (default 575) remain.
call_begin() {
  CALL_NAME="${1:?a name for the call}"; FINAL="${OUT:?set OUT}"; W="/tmp/$CALL_NAME"
  rm -rf "$W"; mkdir -p "$W"; T0=$(date +%s)
}
save() { tar czf "$FINAL/$CALL_NAME.tgz" -C "$W" . ; }
left() { echo $(( ${BUDGET:-575} - ($(date +%s) - T0) )); }

# call_env: the rest of a call's frame, after call_begin. CARD is the first GPU's name (printed, and
# kept in $W/card.txt; "none" without nvidia-smi); the repository goes on PYTHONPATH, the carried
# wheels before it (carried_wheels), Python's output is unbuffered and the compiled-kernel cache is
# AKA_CACHE_DIR (/tmp/aka-cache unless set). Returns 3 when the wheels fail to install.
call_env() {
  CARD=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
  CARD=${CARD:-none}; echo "card: $CARD"; echo "$CARD" > "$W/card.txt"
  export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
  carried_wheels || return 3
  export PYTHONUNBUFFERED=1 AKA_CACHE_DIR="${AKA_CACHE_DIR:-/tmp/aka-cache}"
}

# harness_probe NAME TIMEOUT TAIL OPDIR KERNEL ARGS...: one tools/harness_probe.py run into
# $W/probe/NAME.{json,txt} under `timeout TIMEOUT`, only if TIMEOUT + 10 of BUDGET's seconds are
# left; prints its exit status and its table's last TAIL lines, then saves. Needs call_begin.
harness_probe() {
  local name="$1" t="$2" n="$3"; shift 3
  [ "$(left)" -ge $(( t + 10 )) ] || { echo "probe $name skipped: $(left) s left"; return 0; }
  mkdir -p "$W/probe"
  timeout "$t" python3 tools/harness_probe.py "$@" --out "$W/probe/$name.json" > "$W/probe/$name.txt" 2>&1
  echo "probe $name rc $?"; tail -n "$n" "$W/probe/$name.txt" | cut -c1-160; save
}

# tuner_step DIR MIN OP...: tools/h200_optimize.sh (the tuner, 200 iterations, MIN minutes an operator)
# over the OPs into DIR, under `timeout` of what is left of BUDGET less 20 s; prints its exit status.
# A run the timeout cut short wrote no optimize_bench.json to DIR: what the operators it finished
# wrote in its stage folder (the newest $TMPDIR/aka-optimize-*, /tmp by default) is kept instead,
# with its rendering.
# Then saves. Needs call_begin.
tuner_step() {
  local dir="$1" min="$2" st; shift 2
  mkdir -p "$dir"
  OUT="$dir" timeout "$(( $(left) - 20 ))" bash tools/h200_optimize.sh 200 "$@" --time-limit "$min" \
    > "$dir/run.txt" 2>&1
  echo "optimize rc $?"
  if [ ! -f "$dir/optimize_bench.json" ]; then
    st=$(ls -dt "${TMPDIR:-/tmp}"/aka-optimize-* 2>/dev/null | head -1)
    if [ -n "$st" ] && [ -f "$st/optimize_bench.json" ]; then
      cp "$st/optimize_bench.json" "$dir/"
      tar czf "$dir/details.tgz" -C "$st" --exclude optimize_bench.json . 2>/dev/null
      python3 tools/optimize_bench.py --render "$dir/optimize_bench.json" > "$dir/optimize_bench.md" 2>/dev/null
    fi
  fi
  save
}

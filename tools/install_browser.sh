#!/usr/bin/env bash
# A headless Chromium for the test that opens `aka replay --html` pages: Playwright's own build when
# its download site is reachable, else the distribution's chromium package (apt, as root). The test
# also honours AKA_CHROMIUM=/path/to/chrome. Exit 1 when neither could be installed.
set -uo pipefail
py="${1:-python3}"
if "$py" -m playwright install chromium >/dev/null 2>&1; then
  echo "aka: Playwright's Chromium installed" >&2; exit 0
fi
for b in chromium chromium-browser google-chrome; do
  if command -v "$b" >/dev/null 2>&1; then echo "aka: using $(command -v "$b")" >&2; exit 0; fi
done
if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null 2>&1 \
    || { apt-get update -qq >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive \
         apt-get install -y -qq --no-install-recommends chromium >/dev/null 2>&1; }
  command -v chromium >/dev/null 2>&1 && { echo "aka: chromium installed with apt" >&2; exit 0; }
fi
echo "aka: could not install a headless Chromium (no Playwright download, no apt as root)" >&2
exit 1

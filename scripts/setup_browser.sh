#!/usr/bin/env bash
# Headless Chromium for the HTML report's browser test (tests/test_report_html.py), from Debian's packages.
# Only `make test` needs it; it is skipped (the test then skips, saying why) where there is no root or no apt.
set -uo pipefail

if command -v chromium >/dev/null 2>&1; then
    exit 0
fi
if [[ $(id -u) != 0 ]] || ! command -v apt-get >/dev/null 2>&1; then
    echo "[setup] chromium not found and cannot be installed here (needs root and apt-get): the browser test skips" >&2
    exit 0
fi
mkdir -p .cache
echo "[setup] installing chromium (apt-get) for the HTML report's browser test"
if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; } >.cache/setup-browser.log 2>&1; then
    tail -n 20 .cache/setup-browser.log >&2
    echo "[setup] warning: chromium could not be installed (log: .cache/setup-browser.log): the browser test skips" >&2
fi
exit 0

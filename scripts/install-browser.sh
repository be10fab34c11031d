#!/usr/bin/env bash
# Debian's Chromium (and a Japanese font, so page text renders) for the headless UI test
# (tests/test_ui_e2e.py drives /usr/bin/chromium through Playwright; `playwright install` is
# never used). Needs root or passwordless sudo; does nothing when chromium is already there.
set -euo pipefail

if command -v chromium >/dev/null 2>&1 && fc-list 2>/dev/null | grep -qi ipagothic; then
  echo "chromium already installed: $(chromium --version 2>/dev/null || echo unknown)"
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  SUDO="sudo -n"
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update
$SUDO apt-get install -y --no-install-recommends chromium fonts-ipafont-gothic fonts-dejavu-core
chromium --version

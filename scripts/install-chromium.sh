#!/bin/sh
# Installs Debian's chromium for the HTML report's browser test
# (report/charts/browser_test.go, run by `make test-browser`). Needs root (or sudo).
set -eu
if command -v chromium >/dev/null 2>&1; then
	echo "chromium already installed: $(command -v chromium)"
	exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
$SUDO apt-get update
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends chromium
command -v chromium

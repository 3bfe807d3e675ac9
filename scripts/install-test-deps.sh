#!/usr/bin/env bash
# Installs the system packages the test suite runs for real (Debian):
# PostgreSQL and Redis servers, tmux for terminal tests, Chromium for browser tests.
set -euo pipefail
missing=()
have_postgres() { command -v pg_ctl >/dev/null 2>&1 || ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1; }
have_postgres || missing+=(postgresql)
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
command -v tmux >/dev/null 2>&1 || missing+=(tmux)
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
  echo "install-test-deps: missing ${missing[*]}; run as root or install them: apt-get install -y ${missing[*]}" >&2
  exit 1
fi
echo "install-test-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
# Debian starts the packaged services; the tests run their own instances.
for service in postgresql redis-server; do
  if command -v systemctl >/dev/null 2>&1; then systemctl stop "$service" >/dev/null 2>&1 || true; fi
  service "$service" stop >/dev/null 2>&1 || true
done

#!/bin/sh
# System packages the PostgreSQL kill test (tests-integration/test_dbos_kill.py) needs: Debian's
# PostgreSQL server (initdb, pg_ctl under /usr/lib/postgresql/<version>/bin) and the runuser
# tool (util-linux) used to run the private cluster as the `postgres` user when tests run as root.
set -eu
if ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 && command -v runuser >/dev/null 2>&1; then
    exit 0
fi
SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
$SUDO apt-get update
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends postgresql util-linux

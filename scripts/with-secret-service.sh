#!/usr/bin/env bash
# Runs a command (the test suite) with a real Secret Service: a private D-Bus session with an
# unlocked gnome-keyring in a throw-away folder, one session for the whole run. A desktop's own
# keyring is never touched. Without dbus-run-session or gnome-keyring-daemon the command runs as
# is, and the keychain tests report themselves skipped with the reason.
set -euo pipefail

if [ "${EARMARK_SECRET_SERVICE:-}" != "starting" ]; then
  if command -v dbus-run-session >/dev/null && command -v gnome-keyring-daemon >/dev/null; then
    export EARMARK_SECRET_SERVICE=starting
    exec dbus-run-session -- bash "$0" "$@"
  fi
  echo "with-secret-service: no dbus-run-session or gnome-keyring-daemon; keychain tests will be skipped." >&2
  exec "$@"
fi

# Inside the private session: a keyring folder of our own, unlocked with a throw-away password.
keyring_home="$(mktemp -d)"
trap 'rm -rf "$keyring_home"' EXIT
export XDG_DATA_HOME="$keyring_home"
printf 'earmark-tests' | gnome-keyring-daemon --unlock --components=secrets --daemonize >/dev/null
export EARMARK_SECRET_SERVICE=ready
"$@"

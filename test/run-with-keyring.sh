#!/usr/bin/env bash
# Runs a command inside a private D-Bus session with an unlocked gnome-keyring (a real Secret Service).
set -euo pipefail
if [ -z "${DBUS_SESSION_BUS_ADDRESS:-}" ] && command -v dbus-run-session >/dev/null && [ -z "${MISSIVE_IN_DBUS:-}" ]; then
  exec env MISSIVE_IN_DBUS=1 dbus-run-session -- "$0" "$@"
fi
if command -v gnome-keyring-daemon >/dev/null; then
  eval "$(printf 'missive-ci\n' | gnome-keyring-daemon --unlock --components=secrets --daemonize 2>/dev/null)" || true
  export GNOME_KEYRING_CONTROL SSH_AUTH_SOCK 2>/dev/null || true
fi
exec "$@"

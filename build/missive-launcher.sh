#!/bin/sh
# The `missive` command of the packaged app: the same CLI entry, run by the bundled Electron as plain Node.
# Installers link this file onto the PATH (deb: /usr/bin/missive). In a source checkout use bin/missive.js instead.
here="$(cd "$(dirname "$0")/.." && pwd)"
app="$here/../missive-desktop"
[ -x "$app" ] || app="$here/../MacOS/missive"
ELECTRON_RUN_AS_NODE=1 exec "$app" "$here/app.asar/bin/missive.js" "$@"

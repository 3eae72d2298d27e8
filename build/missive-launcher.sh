#!/bin/sh
# The `missive` command of the packaged app (resources/bin/missive): the same CLI entry as a source checkout's
# bin/missive.js, run by the app's own Electron binary as plain Node (ELECTRON_RUN_AS_NODE=1), so the package needs no
# separate Node. It finds the app from its own real location, through any chain of symlinks:
#   deb       /usr/bin/missive -> /opt/missive/resources/bin/missive     (made by build/deb/after-install.sh)
#   AppImage  ~/.local/bin/missive -> <extracted>/squashfs-root/resources/bin/missive   (docs/gui.md)
#   macOS     missive.app/Contents/Resources/bin/missive, the app binary in Contents/MacOS/missive
# bin/missive.js is run from inside app.asar: it loads ../dist/cli beside it, and Electron reads asar-unpacked files
# (bin/** is unpacked) through the app.asar path. In a source checkout use bin/missive.js instead.
self=$0
hops=0
while [ -L "$self" ] && [ "$hops" -lt 40 ]; do
  link=$(readlink "$self")
  case $link in
    /*) self=$link ;;
    *) self=$(dirname "$self")/$link ;;
  esac
  hops=$((hops + 1))
done
resources=$(cd "$(dirname "$self")/.." && pwd -P) || exit 69
if [ -x "$resources/../missive-desktop" ]; then
  app=$resources/../missive-desktop # Linux: deb, AppImage (extracted or mounted), linux-unpacked
elif [ -x "$resources/../MacOS/missive" ]; then
  app=$resources/../MacOS/missive # macOS: missive.app/Contents
else
  echo "missive: the missive app is not next to $resources (looked for missive-desktop and MacOS/missive); reinstall missive, or link this launcher from the installed app's resources/bin instead of copying it" >&2
  exit 69
fi
# An AppImage's own libraries (AppRun sets this when it starts the app; the CLI is started without AppRun).
if [ -d "$resources/../usr/lib" ]; then
  LD_LIBRARY_PATH="$resources/../usr/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export LD_LIBRARY_PATH
fi
ELECTRON_RUN_AS_NODE=1 exec "$app" "$resources/app.asar/bin/missive.js" "$@"

@echo off
rem The `missive` command of the packaged app on Windows: resources\bin\missive.cmd, which the installer puts on the
rem user PATH (build/installer.nsh). It runs the CLI entry bin\missive.js from inside app.asar with the bundled
rem Electron binary acting as plain Node, so the package needs no separate Node. bin\** is asar-unpacked; Electron
rem reads it through the app.asar path, where bin\missive.js finds ..\dist\cli beside it.
setlocal
set "ELECTRON_RUN_AS_NODE=1"
"%~dp0..\..\missive.exe" "%~dp0..\app.asar\bin\missive.js" %*
exit /b %ERRORLEVEL%

; missive's additions to electron-builder's NSIS installer (build/electron-builder.json: nsis.include).
;
; The `missive` command on Windows is resources\bin\missive.cmd (build/missive.cmd). The installer adds
; $INSTDIR\resources\bin to the current user's PATH (HKCU\Environment\Path, kept as REG_EXPAND_SZ) and the uninstaller
; takes it off again; open terminals see the change once restarted. A PATH longer than NSIS strings can hold
; (NSIS_MAX_STRLEN) is never rewritten, since that would cut it short: the installer then prints the folder to add.
; electron-builder compiles this file twice, once for the uninstaller (BUILD_UNINSTALLER) and once for the installer,
; so each function exists only in the pass that calls it.

!include LogicLib.nsh
!include WinMessages.nsh

!define MISSIVE_BIN_DIR "$INSTDIR\resources\bin"

; $R0: a ;-separated PATH; drops every entry equal to $R1 (with or without a trailing \, case-insensitive) and every
; empty entry, leaving the rest in order in $R0. Uses $R2-$R6.
!macro missiveDropPathEntry
  StrCpy $R2 ""
  StrCpy $R3 ""
  StrCpy $R4 0
  StrLen $R5 $R0
  ${Do}
    ${If} $R4 < $R5
      StrCpy $R6 $R0 1 $R4
    ${Else}
      StrCpy $R6 ";"
    ${EndIf}
    ${If} $R6 == ";"
      ${If} $R3 != ""
      ${AndIf} $R3 != $R1
      ${AndIf} $R3 != "$R1\"
        ${If} $R2 == ""
          StrCpy $R2 $R3
        ${Else}
          StrCpy $R2 "$R2;$R3"
        ${EndIf}
      ${EndIf}
      StrCpy $R3 ""
    ${Else}
      StrCpy $R3 "$R3$R6"
    ${EndIf}
    IntOp $R4 $R4 + 1
  ${LoopUntil} $R4 > $R5
  StrCpy $R0 $R2
!macroend

; Reads the user PATH into $R0. $R7 = "ok" when it can be rewritten safely: it was read whole, or there is none yet.
; ReadRegStr fails both for a missing value and for one longer than NSIS_MAX_STRLEN; EnumRegValue tells them apart.
!macro missiveReadUserPath
  StrCpy $R7 "ok"
  ClearErrors
  ReadRegStr $R0 HKCU "Environment" "Path"
  ${If} ${Errors}
    StrCpy $R0 ""
    StrCpy $R4 0
    ${Do}
      ClearErrors
      EnumRegValue $R3 HKCU "Environment" $R4
      ${If} ${Errors}
      ${OrIf} $R3 == ""
        ${ExitDo}
      ${EndIf}
      ${If} $R3 == "Path"
        StrCpy $R7 "too long"
        ${ExitDo}
      ${EndIf}
      IntOp $R4 $R4 + 1
    ${LoopUntil} $R4 > 10000
  ${EndIf}
!macroend

!macro missiveSaveRegisters
  Push $R0
  Push $R1
  Push $R2
  Push $R3
  Push $R4
  Push $R5
  Push $R6
  Push $R7
  Push $R8
!macroend

!macro missiveRestoreRegisters
  Pop $R8
  Pop $R7
  Pop $R6
  Pop $R5
  Pop $R4
  Pop $R3
  Pop $R2
  Pop $R1
  Pop $R0
!macroend

!ifndef BUILD_UNINSTALLER
  Function missiveAddBinToPath
    !insertmacro missiveSaveRegisters
    StrCpy $R1 "${MISSIVE_BIN_DIR}"
    !insertmacro missiveReadUserPath
    ${If} $R7 == "ok"
      !insertmacro missiveDropPathEntry
      StrLen $R4 $R0
      StrLen $R5 $R1
      IntOp $R4 $R4 + $R5
      IntOp $R5 ${NSIS_MAX_STRLEN} - 2
      ${If} $R4 < $R5
        ${If} $R0 == ""
          StrCpy $R0 $R1
        ${Else}
          StrCpy $R0 "$R0;$R1"
        ${EndIf}
        WriteRegExpandStr HKCU "Environment" "Path" $R0
        SendMessage ${HWND_BROADCAST} ${WM_SETTINGCHANGE} 0 "STR:Environment" /TIMEOUT=5000
        DetailPrint "missive: added $R1 to your PATH (the missive command); restart open terminals to use it"
      ${Else}
        StrCpy $R7 "too long"
      ${EndIf}
    ${EndIf}
    ${If} $R7 != "ok"
      DetailPrint "missive: your PATH is too long for the installer to change; add $R1 to it yourself to use the missive command"
    ${EndIf}
    !insertmacro missiveRestoreRegisters
  FunctionEnd
!endif

!ifdef BUILD_UNINSTALLER
  Function un.missiveRemoveBinFromPath
    !insertmacro missiveSaveRegisters
    StrCpy $R1 "${MISSIVE_BIN_DIR}"
    !insertmacro missiveReadUserPath
    ${If} $R7 == "ok"
      StrCpy $R8 $R0
      !insertmacro missiveDropPathEntry
      ${If} $R0 != $R8
        WriteRegExpandStr HKCU "Environment" "Path" $R0
        SendMessage ${HWND_BROADCAST} ${WM_SETTINGCHANGE} 0 "STR:Environment" /TIMEOUT=5000
      ${EndIf}
    ${Else}
      DetailPrint "missive: your PATH is too long for the uninstaller to change; remove $R1 from it yourself"
    ${EndIf}
    !insertmacro missiveRestoreRegisters
  FunctionEnd
!endif

!macro customInstall
  Call missiveAddBinToPath
!macroend

!macro customUnInstall
  Call un.missiveRemoveBinFromPath
!macroend

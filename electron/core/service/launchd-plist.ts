/** Renders the launchd property list that runs `missive gateway run` for one profile (LaunchAgent or LaunchDaemon). */
import type { ServiceSpec } from './types.js';

const xml = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const str = (text: string, indent: string): string => `${indent}<string>${xml(text)}</string>`;

export function renderLaunchdPlist(spec: ServiceSpec): string {
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
    '<!-- Written by `missive gateway install`; remove it with `missive gateway uninstall`. -->',
    '<plist version="1.0">',
    '<dict>',
    '  <key>Label</key>',
    str(spec.label, '  '),
    '  <key>ProgramArguments</key>',
    '  <array>',
    ...spec.argv.map((a) => str(a, '    ')),
    '  </array>',
    '  <key>EnvironmentVariables</key>',
    '  <dict>',
    ...[...spec.env, ...(spec.credentials ?? []).map((c): [string, string] => [c.env, c.source])].flatMap(([k, v]) => [
      `    <key>${xml(k)}</key>`,
      str(v, '    '),
    ]),
    '  </dict>',
    ...(spec.scope === 'system' && spec.user ? ['  <key>UserName</key>', str(spec.user, '  ')] : []),
    '  <key>RunAtLoad</key>',
    '  <true/>',
    '  <key>KeepAlive</key>',
    '  <dict>',
    '    <key>SuccessfulExit</key>',
    '    <false/>',
    '  </dict>',
    '  <key>ThrottleInterval</key>',
    '  <integer>5</integer>',
    '  <key>StandardOutPath</key>',
    str(spec.logFile, '  '),
    '  <key>StandardErrorPath</key>',
    str(spec.logFile, '  '),
    '</dict>',
    '</plist>',
    '',
  ];
  return lines.join('\n');
}

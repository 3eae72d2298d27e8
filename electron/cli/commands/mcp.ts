/**
 * `missive mcp serve`: missive as an MCP server (core/mcp), over stdio for a client that launches it (the default), or
 * over Streamable HTTP (`--http`) on a loopback port with this launch's token. docs/mcp.md has the client snippets.
 */
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { usageError } from '../../../shared/errors.js';
import type { Action } from '../command-context.js';
import { integer } from '../options.js';
import { untilSignal } from '../signals.js';

interface ServeFlags {
  http?: boolean;
  port?: number;
  host?: string;
  allowRemote?: boolean;
  allowAdmin?: boolean;
  skillTools?: boolean;
  tokenFile?: string;
}

export function registerMcpCommands(program: Command, action: Action): void {
  const mcp = program.command('mcp').description('serve the registered A2A agents, groups and collectives to AI clients over MCP (docs/mcp.md)');
  mcp
    .command('serve')
    .description('run an MCP server: over stdio (for a client that launches missive) unless --http')
    .option('--http', "serve Streamable HTTP on a loopback port instead of stdio; prints the URL and this launch's token")
    .option('--port <n>', 'with --http: the port, 0 to 65535 (default 0: any free port)', integer('--port', 0, 65_535))
    .option('--host <ip>', 'with --http: the address to bind (default 127.0.0.1)')
    .option('--allow-remote', 'with --http: allow a non-loopback --host (put TLS in front of it)')
    .option('--token-file <path>', 'with --http: keep the token in this file (created 0600 with a new token when missing) instead of a new one each launch')
    .option(
      '--allow-admin',
      'also offer the tools that register agents and change auth (off: an AI client should not add an endpoint that receives credentials)',
    )
    .option('--skill-tools', "also offer one tool per skill of each registered agent, named from the agent's alias and the skill's id")
    .action(
      action(async ({ core, out, deps, flags }, o: ServeFlags) => {
        if (o.tokenFile !== undefined && !o.http)
          throw usageError('token_file_without_http', '--token-file only applies to --http', 'Add --http, or leave --token-file out.');
        const { createMissiveMcp } = await import('../../core/mcp/server.js');
        const mcpServer = createMissiveMcp({ core, cwd: deps.cwd, allowAdmin: o.allowAdmin, skillTools: o.skillTools });
        try {
          if (o.http) {
            const { startMcpHttp } = await import('../../core/mcp/http.js');
            const tokenFile = o.tokenFile === undefined ? undefined : resolve(deps.cwd, o.tokenFile);
            const kept = tokenFile === undefined ? undefined : await (await import('../../core/mcp/token-file.js')).loadOrCreateToken(tokenFile);
            const http = await startMcpHttp(mcpServer, {
              host: o.host,
              port: o.port ?? 0,
              allowRemote: o.allowRemote === true,
              warn: (m) => out.warning(m),
              token: kept?.token,
            });
            try {
              // `bearer`, not `token`: the output redacts every key that ends in "token", and this one is for the user.
              const shown = { url: http.url, bearer: tokenFile ? null : http.token, token_file: tokenFile ?? null };
              out.result('mcp_server', shown, (d) =>
                [
                  `missive MCP server: ${d.url}`,
                  d.token_file
                    ? `  send "Authorization: Bearer <the token in ${d.token_file}>" with every request (keep the file to yourself); Ctrl-C to stop`
                    : `  send "Authorization: Bearer ${d.bearer}" with every request (this launch's token; keep it to yourself); Ctrl-C to stop`,
                ].join('\n'),
              );
              await untilSignal(flags.timeout ? core.timeoutMs : undefined);
            } finally {
              await http.close();
            }
            return 0;
          }
          const { serveMcpStdio } = await import('../../core/mcp/stdio.js');
          await serveMcpStdio(mcpServer, { input: process.stdin, output: process.stdout });
          return 0;
        } finally {
          await mcpServer.close();
        }
      }),
    );
}

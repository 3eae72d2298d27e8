/** `reduce --command`: pipes the prompt to a local shell command and reads its stdout (not sandboxed). */
import { spawn } from 'node:child_process';
import { MissiveError } from '../../../shared/errors.js';
import { redactText } from '../security/redact.js';

const MAX_OUTPUT = 16 * 1024 * 1024;

export function runReducerCommand(
  command: string,
  prompt: string,
  options: { timeoutMs: number; cwd: string; env: NodeJS.ProcessEnv; secrets?: readonly string[] },
): Promise<string> {
  const [shell, flag] = process.platform === 'win32' ? ['cmd', '/C'] : ['sh', '-c'];
  return new Promise((resolvePromise, reject) => {
    const child = spawn(shell, [flag, command], { cwd: options.cwd, env: options.env, stdio: ['pipe', 'pipe', 'pipe'], timeout: options.timeoutMs });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let size = 0;
    const fail = (reason: string, message: string) => {
      const stderr = redactText(Buffer.concat(err).toString('utf8').trim().slice(0, 500), options.secrets);
      reject(new MissiveError('orchestration', reason, message, { help: stderr ? `stderr: ${stderr}` : 'The command printed nothing on stderr.' }));
    };
    child.stdout.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_OUTPUT) child.kill();
      else out.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => void (err.length < 64 && err.push(chunk)));
    child.on('error', (error) => fail('reducer_command_failed', `the reducer command could not start: ${error.message}`));
    child.on('close', (code, signal) => {
      if (code !== 0) return fail('reducer_command_failed', `the reducer command exited with ${signal ? `signal ${signal}` : `status ${code}`}`);
      let text: string;
      try {
        text = new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(out));
      } catch {
        return fail('reducer_output_not_utf8', 'the reducer command printed output that is not valid UTF-8');
      }
      text = text.trimEnd();
      if (!text.trim()) return fail('reducer_output_empty', 'the reducer command printed nothing');
      resolvePromise(text);
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(prompt);
  });
}

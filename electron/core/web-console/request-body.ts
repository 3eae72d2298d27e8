/** A request body read whole, up to a size limit: the text, or why it was not read. */
import type { IncomingMessage } from 'node:http';

export function readBody(req: IncomingMessage, maxBytes: number): Promise<{ text: string } | { tooLarge: true }> {
  return new Promise((resolve, reject) => {
    if (Number(req.headers['content-length'] ?? 0) > maxBytes) return resolve({ tooLarge: true });
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const settle = (outcome: () => void) => {
      if (done) return;
      done = true;
      req.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
      outcome();
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) settle(() => resolve({ tooLarge: true }));
      else chunks.push(chunk);
    };
    const onEnd = () => settle(() => resolve({ text: Buffer.concat(chunks).toString('utf8') }));
    const onError = (error: Error) => settle(() => reject(error));
    const onClose = () => settle(() => reject(new Error('the client closed the connection before the body was complete')));
    req.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
  });
}

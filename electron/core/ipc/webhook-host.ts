/**
 * The desktop app's webhook receiver: at most one, started and stopped from Settings (or the tray), its arrivals
 * pushed to the renderer. What `webhook.status` reports is always the receiver's own state, never a guess.
 */
import { receiverSettings } from '../webhook/settings.js';
import type { Core } from '../handle.js';
import { callbackStore } from '../webhook/callback-store.js';
import { createReceiver, type Receiver, type ReceiverStats } from '../webhook/receiver.js';

/** What `webhook.start|stop|status` answer: the receiver's own stats (stopped: nothing listening, no last arrival). */
export type WebhookStats = ReceiverStats;

export interface WebhookHost {
  start(port?: number): Promise<WebhookStats>;
  stop(): Promise<WebhookStats>;
  status(): WebhookStats;
}

export function createWebhookHost(core: Core, onArrival: (arrival: unknown) => void): WebhookHost {
  let receiver: Receiver | null = null;
  const status = (): WebhookStats => receiver?.stats() ?? { listening: false, url: null, accepted: 0, rejected: 0, last: null };
  return {
    async start(port = 0) {
      if (!receiver) {
        // [webhook] of the config: its host, path, token and body limit; its port where the window asks for any (0).
        const settings = receiverSettings(core.config.webhook, core.env, port ? { port } : {});
        const started = createReceiver(
          callbackStore(() => core.storage()),
          { ...settings, warn: (message) => core.warn(message) },
        );
        started.onArrival(onArrival);
        await started.start();
        receiver = started;
      }
      return status();
    },
    async stop() {
      const running = receiver;
      receiver = null;
      await running?.stop();
      return status();
    },
    status,
  };
}

/**
 * Beside Compose's push URL: the app's webhook receiver, when it runs, offered in one click ("Use the running
 * receiver" puts its URL in the field); when it does not, where to start it. Its state is `webhook.status`, read when
 * Compose is shown (and again each time it is shown after another view, e.g. after starting the receiver in Settings).
 */
import { call } from '../api';
import { useLoad } from '../hooks';

export function PushReceiverOffer({ current, onUse }: { current: string; onUse: (url: string) => void }) {
  const status = useLoad(() => call('webhook.status', {}), []);
  const url = status.data?.listening ? status.data.url : null;
  if (!status.data) return null;
  return (
    <p className="muted small-text push-receiver" data-testid="push-receiver">
      {url ? (
        current === url ? (
          <>Callbacks go to this app’s receiver; Settings lists them.</>
        ) : (
          <>
            This app’s receiver listens on <span className="mono">{url}</span>.{' '}
            <button type="button" className="small secondary" onClick={() => onUse(url)}>
              Use the running receiver
            </button>
          </>
        )
      ) : (
        <>No receiver is running in this app; start one in Settings (Webhook receiver) to be offered its URL here.</>
      )}
    </p>
  );
}

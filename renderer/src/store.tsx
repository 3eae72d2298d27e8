/**
 * The app-level store shared across views: which view is shown, a request waiting to be opened in Compose (History's
 * "Open in Compose"), and a journal tick that goes up after every send or stream, so History knows to reload.
 * Also whether the view around a component is shown (`useViewActive`): views stay mounted while hidden.
 */
import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from 'react';
import type { MessageInputs } from '../../shared/ipc/contract';

export const VIEWS = [
  ['agents', 'Agents'],
  ['compose', 'Compose'],
  ['history', 'History'],
  ['collectives', 'Groups & collectives'],
  ['tasks', 'Tasks'],
  ['events', 'Events'],
  ['contexts', 'Contexts'],
  ['settings', 'Settings'],
] as const;
export type ViewId = (typeof VIEWS)[number][0];

/** A request to load into Compose: the agent, send or stream, and the same inputs as messages.send. */
export interface ComposeRequest {
  agent: string | null;
  mode: 'send' | 'stream';
  inputs: MessageInputs;
  /** Goes up on every open, so opening the same entry twice fills Compose twice. */
  nonce: number;
}

interface Store {
  view: ViewId;
  setView(view: ViewId): void;
  /** The request Compose should load next (null: none). */
  composeRequest: ComposeRequest | null;
  /** Fills Compose with a request and switches to it. */
  openInCompose(request: Omit<ComposeRequest, 'nonce'>): void;
  /** Goes up after each send or stream made from the GUI. */
  journalTick: number;
  noteJournalChanged(): void;
}

const StoreContext = createContext<Store | null>(null);

/** Whether the view around a component is the one shown (views stay mounted while hidden). */
export const ViewActiveContext = createContext(true);
/** true while the surrounding view is shown. */
export const useViewActive = () => useContext(ViewActiveContext);

export function StoreProvider({ children }: { children: ReactNode }) {
  const [view, setView] = useState<ViewId>('agents');
  const [composeRequest, setComposeRequest] = useState<ComposeRequest | null>(null);
  const [journalTick, setJournalTick] = useState(0);
  const openInCompose = useCallback((request: Omit<ComposeRequest, 'nonce'>) => {
    setComposeRequest((previous) => ({ ...request, nonce: (previous?.nonce ?? 0) + 1 }));
    setView('compose');
  }, []);
  const noteJournalChanged = useCallback(() => setJournalTick((t) => t + 1), []);
  const store = useMemo(() => ({ view, setView, composeRequest, openInCompose, journalTick, noteJournalChanged }), [view, composeRequest, openInCompose, journalTick, noteJournalChanged]);
  return <StoreContext.Provider value={store}>{children}</StoreContext.Provider>;
}

export function useStore(): Store {
  const store = useContext(StoreContext);
  if (!store) throw new Error('useStore needs a <StoreProvider> above it');
  return store;
}

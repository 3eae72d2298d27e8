/**
 * The app-level store shared across views: which view is shown, a request waiting to be opened in Compose (History's
 * "Open in Compose"), and a journal tick that goes up after every send or stream, so History knows to reload.
 * Also whether the view around a component is shown (`useViewActive`): views stay mounted while hidden, and where an
 * id link leads (`navigate`: Tasks with a task selected, Contexts with a context opened, History with a message opened,
 * Agents with an agent picked) and the notices the notice bar shows.
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

/** What an id link points at: a task, a context or a message (by its id). */
export type IdKind = 'task' | 'context' | 'message';
/** What `navigate` can open: an id's item, or an agent (the command palette opens agents in the Agents view). */
export type NavigationKind = IdKind | 'agent';

/** Where `navigate` went last; `nonce` goes up on every navigation, so following the same link twice reopens it. */
export interface NavigationTarget {
  kind: NavigationKind;
  id: string;
  nonce: number;
}

/** The view that shows each kind of id. */
export const VIEW_OF_KIND: Record<NavigationKind, ViewId> = { task: 'tasks', context: 'contexts', message: 'history', agent: 'agents' };

/** A notice in the window's notice bar: a core warning (`app.notice`) or something a window action reports. */
export interface Notice {
  id: number;
  level: 'info' | 'warning' | 'error';
  message: string;
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
  /** The last id link followed (null: none yet); the view of its kind opens that item. */
  target: NavigationTarget | null;
  /** Opens the view that shows `id` with that item selected. */
  navigate(kind: NavigationKind, id: string): void;
  /** The notices shown (oldest first); the same message is shown once. */
  notices: Notice[];
  notify(level: Notice['level'], message: string): void;
  dismissNotice(id: number): void;
}

const StoreContext = createContext<Store | null>(null);
/** Notices kept at once: older ones give way. */
const MAX_NOTICES = 5;

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
  const [target, setTarget] = useState<NavigationTarget | null>(null);
  const navigate = useCallback((kind: NavigationKind, id: string) => {
    setTarget((previous) => ({ kind, id, nonce: (previous?.nonce ?? 0) + 1 }));
    setView(VIEW_OF_KIND[kind]);
  }, []);
  const [notices, setNotices] = useState<Notice[]>([]);
  const notify = useCallback((level: Notice['level'], message: string) => {
    setNotices((shown) =>
      shown.some((n) => n.message === message) ? shown : [...shown, { id: (shown.at(-1)?.id ?? 0) + 1, level, message }].slice(-MAX_NOTICES),
    );
  }, []);
  const dismissNotice = useCallback((id: number) => setNotices((shown) => shown.filter((n) => n.id !== id)), []);
  const store = useMemo(
    () => ({ view, setView, composeRequest, openInCompose, journalTick, noteJournalChanged, target, navigate, notices, notify, dismissNotice }),
    [view, composeRequest, openInCompose, journalTick, noteJournalChanged, target, navigate, notices, notify, dismissNotice],
  );
  return <StoreContext.Provider value={store}>{children}</StoreContext.Provider>;
}

export function useStore(): Store {
  const store = useContext(StoreContext);
  if (!store) throw new Error('useStore needs a <StoreProvider> above it');
  return store;
}

/**
 * The navigation target meant for one kind of item (a view calls it with its own kind), or null. The view reacts to
 * its `nonce` changing, so a link followed twice opens the item twice.
 */
export function useNavigationTarget(kind: NavigationKind): NavigationTarget | null {
  const { target } = useStore();
  return target?.kind === kind ? target : null;
}

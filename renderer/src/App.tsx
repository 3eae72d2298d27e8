/**
 * The app shell: the navigation, the theme (remembered across reloads), the notice bar, the command palette, the
 * shortcuts dialog and the views. A view is mounted the first time it is opened and then stays mounted, hidden while
 * another is shown, so what was typed, picked or received (Compose's inputs, mode, timeline and result) survives
 * switching views. Ctrl/Cmd+1…N switch views, Ctrl/Cmd+K opens the palette, Ctrl/Cmd+N a new message in Compose
 * (a browser may keep Ctrl+N for a new window: the palette's "New conversation" does the same), `?` lists the shortcuts.
 */
import { useCallback, useEffect, useState, type ReactNode } from 'react';
import { CommandPalette } from './components/CommandPalette';
import { Notices } from './components/Notices';
import { ShortcutsDialog } from './components/Shortcuts';
import { AgentsView } from './views/Agents';
import { ComposeView } from './views/Compose';
import { HistoryView } from './views/History';
import { CollectivesView } from './views/Collectives';
import { TasksView } from './views/Tasks';
import { EventsView } from './views/Events';
import { ContextsView } from './views/Contexts';
import { SettingsView } from './views/Settings';
import { StoreProvider, useStore, ViewActiveContext, VIEWS, type ViewId } from './store';

export function App() {
  return (
    <StoreProvider>
      <Shell />
    </StoreProvider>
  );
}

type Theme = 'dark' | 'light';
const THEME_KEY = 'missive.theme';

/** The theme picked before (this page's storage), else the system's preference. */
function initialTheme(): Theme {
  const saved = readTheme();
  if (saved) return saved;
  return window.matchMedia?.('(prefers-color-scheme: light)').matches ? 'light' : 'dark';
}
function readTheme(): Theme | null {
  try {
    const saved = window.localStorage.getItem(THEME_KEY);
    return saved === 'dark' || saved === 'light' ? saved : null;
  } catch {
    return null; // storage refused (privacy settings): the system's preference it is
  }
}
function saveTheme(theme: Theme) {
  try {
    window.localStorage.setItem(THEME_KEY, theme);
  } catch {
    // not remembered, still applied
  }
}

/** Whether a key press lands in a place where `?` is text, not a shortcut. */
const typing = (target: EventTarget | null) => target instanceof HTMLElement && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName));

function Shell() {
  const { view, setView, openInCompose } = useStore();
  const [theme, setThemeState] = useState<Theme>(initialTheme);
  const setTheme = useCallback((next: Theme) => {
    setThemeState(next);
    saveTheme(next);
  }, []);
  const toggleTheme = useCallback(() => setTheme(theme === 'dark' ? 'light' : 'dark'), [theme, setTheme]);
  const [palette, setPalette] = useState(false);
  const [shortcuts, setShortcuts] = useState(false);
  const closePalette = useCallback(() => setPalette(false), []);
  const showShortcuts = useCallback(() => setShortcuts(true), []);
  /** The views opened so far: each stays mounted from its first opening on. */
  const [opened, setOpened] = useState<ReadonlySet<ViewId>>(() => new Set([view]));
  useEffect(() => void (document.documentElement.dataset.theme = theme), [theme]);
  useEffect(() => setOpened((o) => (o.has(view) ? o : new Set([...o, view]))), [view]);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const n = Number(e.key);
      if ((e.ctrlKey || e.metaKey) && Number.isInteger(n) && n >= 1 && n <= VIEWS.length) {
        e.preventDefault();
        setView(VIEWS[n - 1]![0]);
      } else if ((e.ctrlKey || e.metaKey) && !e.shiftKey && !e.altKey && e.key.toLowerCase() === 'n') {
        // A new message: Compose, a new conversation, the focus in its message box.
        e.preventDefault();
        setPalette(false);
        setShortcuts(false);
        openInCompose({ agent: null, mode: 'send', inputs: {} });
      } else if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'k') {
        e.preventDefault();
        setShortcuts(false);
        setPalette((open) => !open);
      } else if (e.key === '?' && !e.ctrlKey && !e.metaKey && !e.altKey && !typing(e.target)) {
        e.preventDefault();
        setPalette(false);
        setShortcuts(true);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [setView, openInCompose]);
  const pages: Record<ViewId, () => ReactNode> = {
    agents: () => <AgentsView />,
    compose: () => <ComposeView />,
    history: () => <HistoryView />,
    collectives: () => <CollectivesView />,
    tasks: () => <TasksView />,
    events: () => <EventsView />,
    contexts: () => <ContextsView />,
    settings: () => <SettingsView theme={theme} setTheme={setTheme} />,
  };
  return (
    <div className="app">
      <nav className="sidebar" aria-label="views">
        <h1 className="brand">missive</h1>
        {VIEWS.map(([id, label], i) => (
          <button
            key={id}
            className={view === id ? 'nav active' : 'nav'}
            aria-current={view === id ? 'page' : undefined}
            onClick={() => setView(id)}
            data-testid={`nav-${id}`}
            title={`Ctrl+${i + 1}`}
          >
            {label}
          </button>
        ))}
        <div className="nav-tools">
          <button type="button" className="nav" onClick={() => setPalette(true)} data-testid="open-palette">
            Command palette <kbd>Ctrl+K</kbd>
          </button>
          <button type="button" className="nav" onClick={showShortcuts} data-testid="open-shortcuts">
            Shortcuts <kbd>?</kbd>
          </button>
        </div>
      </nav>
      <CommandPalette open={palette} onClose={closePalette} onToggleTheme={toggleTheme} onShowShortcuts={showShortcuts} />
      <ShortcutsDialog open={shortcuts} onClose={() => setShortcuts(false)} />
      <main className="content">
        <Notices />
        {VIEWS.map(([id]) =>
          opened.has(id) || id === view ? (
            <div key={id} className="view-slot" hidden={id !== view} data-view={id}>
              <ViewActiveContext.Provider value={id === view}>{pages[id]()}</ViewActiveContext.Provider>
            </div>
          ) : null,
        )}
      </main>
    </div>
  );
}

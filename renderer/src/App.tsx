/**
 * The app shell: the navigation, the theme and the views. A view is mounted the first time it is opened and then
 * stays mounted, hidden while another is shown, so what was typed, picked or received (Compose's inputs, mode,
 * timeline and result) survives switching views. Ctrl/Cmd+1…N switch views.
 */
import { useEffect, useState, type ReactNode } from 'react';
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

function Shell() {
  const { view, setView } = useStore();
  const [theme, setTheme] = useState<'dark' | 'light'>(() => (window.matchMedia?.('(prefers-color-scheme: light)').matches ? 'light' : 'dark'));
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
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [setView]);
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
          <button key={id} className={view === id ? 'nav active' : 'nav'} aria-current={view === id ? 'page' : undefined} onClick={() => setView(id)} data-testid={`nav-${id}`} title={`Ctrl+${i + 1}`}>
            {label}
          </button>
        ))}
      </nav>
      <main className="content">
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

import { useEffect, useState } from 'react';
import { AgentsView } from './views/Agents';
import { ComposeView } from './views/Compose';
import { CollectivesView } from './views/Collectives';
import { TasksView } from './views/Tasks';
import { EventsView } from './views/Events';
import { ContextsView } from './views/Contexts';
import { SettingsView } from './views/Settings';

const VIEWS = [
  ['agents', 'Agents'],
  ['compose', 'Compose'],
  ['collectives', 'Groups & collectives'],
  ['tasks', 'Tasks'],
  ['events', 'Events'],
  ['contexts', 'Contexts'],
  ['settings', 'Settings'],
] as const;
type ViewId = (typeof VIEWS)[number][0];

export function App() {
  const [view, setView] = useState<ViewId>('agents');
  const [theme, setTheme] = useState<'dark' | 'light'>(() => (window.matchMedia?.('(prefers-color-scheme: light)').matches ? 'light' : 'dark'));
  useEffect(() => void (document.documentElement.dataset.theme = theme), [theme]);
  useEffect(() => {
    // Ctrl/Cmd+1…7 switch views.
    const onKey = (e: KeyboardEvent) => {
      const n = Number(e.key);
      if ((e.ctrlKey || e.metaKey) && n >= 1 && n <= VIEWS.length) {
        e.preventDefault();
        setView(VIEWS[n - 1]![0]);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
  return (
    <div className="app">
      <nav className="sidebar" aria-label="views">
        <div className="brand">missive</div>
        {VIEWS.map(([id, label], i) => (
          <button key={id} className={view === id ? 'nav active' : 'nav'} onClick={() => setView(id)} data-testid={`nav-${id}`} title={`Ctrl+${i + 1}`}>
            {label}
          </button>
        ))}
      </nav>
      <main className="content">
        {view === 'agents' && <AgentsView />}
        {view === 'compose' && <ComposeView />}
        {view === 'collectives' && <CollectivesView />}
        {view === 'tasks' && <TasksView />}
        {view === 'events' && <EventsView />}
        {view === 'contexts' && <ContextsView />}
        {view === 'settings' && <SettingsView theme={theme} setTheme={setTheme} />}
      </main>
    </div>
  );
}

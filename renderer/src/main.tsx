import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { transport } from './transport';
import './views.css';

// Connect before the first render: in a browser this takes the console token out of the address bar at once.
transport();

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);

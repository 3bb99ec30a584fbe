import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app';
import { registerAppShell } from './app-shell';
import { startI18n } from './i18n';
import './styles.css';

// The chosen language's strings first (a small chunk): the screen never shows a key.
void startI18n().then(() =>
  createRoot(document.getElementById('root')!).render(
    <StrictMode>
      <App />
    </StrictMode>,
  ),
);

registerAppShell();

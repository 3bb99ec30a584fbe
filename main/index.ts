import path from 'node:path';
import { app, BrowserWindow } from 'electron';
import { loadConfig } from '../server/config';
import { startServer } from '../server/start';

/** The desktop app: the same server `npm run serve` starts, and a window on its door screen. */
async function main(): Promise<void> {
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return;
  }
  await app.whenReady();
  const running = await startServer(loadConfig(process.env, process.argv.slice(2)), {
    rendererDir: path.join(__dirname, '..', 'renderer'),
  });
  const window = new BrowserWindow({
    width: 1280,
    height: 800,
    webPreferences: {
      preload: path.join(__dirname, '..', 'preload', 'index.js'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
    },
  });
  app.on('second-instance', () => {
    if (window.isMinimized()) window.restore();
    window.focus();
  });
  app.on('window-all-closed', () => {
    running.close().finally(() => app.quit());
  });
  await window.loadURL(running.url);
}

main().catch((err) => {
  process.stderr.write(`Doorlist could not start: ${err instanceof Error ? err.message : String(err)}\n`);
  app.exit(1);
});

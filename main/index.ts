import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { app, BrowserWindow, dialog, ipcMain, Menu, session, shell, type IpcMainInvokeEvent, type MenuItemConstructorOptions } from 'electron';
import { loadConfig, type Config } from '../server/config';
import type { LanShare } from '../server/lan';
import { startServer, type RunningServer } from '../server/start';
import { limitHeapGrowth } from '../server/heap';
import { registerBadgePrinting } from './badge-printer';

/**
 * The desktop app: the same server `npm run serve` starts, in process, and one window on
 * its door screen, so the laptop and every LAN browser run the very same screen. Main only
 * adds what a browser lacks: native file dialogs, LAN sharing, the data folder.
 */

const CSP = "default-src 'self'; img-src 'self' data: blob:; media-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; frame-src 'self' blob:";
const MENU_CHANNEL = 'doorlist:menu';
const WINDOW_STATE_FILE = 'window-state.json';
const MIN_SIZE = { width: 360, height: 560 };

interface WindowState {
  width: number;
  height: number;
  x?: number;
  y?: number;
  maximized?: boolean;
}

let window: BrowserWindow | undefined;
let running: RunningServer | undefined;
let share: LanShare | undefined;
let config: Config;
let origin = '';

function windowStatePath(): string {
  return path.join(app.getPath('userData'), WINDOW_STATE_FILE);
}

function loadWindowState(): WindowState {
  try {
    const saved = JSON.parse(fs.readFileSync(windowStatePath(), 'utf8'));
    if (Number.isInteger(saved.width) && Number.isInteger(saved.height)) {
      return { ...saved, width: Math.max(MIN_SIZE.width, saved.width), height: Math.max(MIN_SIZE.height, saved.height) };
    }
  } catch {
    // First start, or an unreadable file: the default size.
  }
  return { width: 1280, height: 800 };
}

function saveWindowState(win: BrowserWindow): void {
  const bounds = win.getNormalBounds();
  const state: WindowState = { ...bounds, maximized: win.isMaximized() };
  try {
    fs.mkdirSync(path.dirname(windowStatePath()), { recursive: true });
    fs.writeFileSync(windowStatePath(), JSON.stringify(state));
  } catch {
    // Remembering the size is a courtesy, never a reason to fail.
  }
}

/** Only the door screen's own frame, in our window, may call main. */
function fromDoorScreen(event: IpcMainInvokeEvent): boolean {
  const frameUrl = event.senderFrame?.url ?? '';
  return !!window && event.sender === window.webContents && frameUrl.startsWith(`${origin}/`);
}

function apiUrl(pathName: string): string {
  return `${origin}/api/v1${pathName}`;
}

function sendMenu(action: string): void {
  window?.webContents.send(MENU_CHANNEL, action);
}

async function startSharing(): Promise<void> {
  if (!window || !share) return;
  if (!share.sharing) {
    const { response } = await dialog.showMessageBox(window, {
      type: 'question',
      buttons: ['Share on the LAN', 'Cancel'],
      defaultId: 1,
      cancelId: 1,
      title: 'Share on the LAN',
      message: 'Let other devices on this network use this laptop’s door screen and API?',
      detail: 'Phones and laptops on the same network can open the door screen. They still need a username and password or an API key. Share only on the venue’s own network.',
    });
    if (response !== 0) return;
  }
  try {
    await share.start();
    sendMenu('share-info');
  } catch (err) {
    dialog.showErrorBox('Sharing failed', (err as Error).message);
  }
  buildMenu();
}

async function stopSharing(): Promise<void> {
  if (!share) return;
  try {
    await share.stop();
    sendMenu('share-info');
  } catch (err) {
    dialog.showErrorBox('Could not stop sharing', (err as Error).message);
  }
  buildMenu();
}

function buildMenu(): void {
  const sharing = !!share?.sharing;
  const template: MenuItemConstructorOptions[] = [
    {
      label: 'File',
      submenu: [
        { label: 'Export event file…', accelerator: 'CmdOrCtrl+E', click: () => sendMenu('export-event') },
        { label: 'Import event file…', accelerator: 'CmdOrCtrl+I', click: () => sendMenu('import-event') },
        { type: 'separator' },
        { label: 'Open data folder', click: () => void shell.openPath(path.dirname(path.resolve(config.db))) },
        { type: 'separator' },
        { role: 'quit' },
      ],
    },
    {
      label: 'Sharing',
      submenu: [
        { label: 'Share on the LAN…', enabled: !sharing, click: () => void startSharing() },
        { label: 'Show LAN addresses', enabled: sharing, click: () => sendMenu('share-info') },
        { label: 'Stop sharing', enabled: sharing, click: () => void stopSharing() },
      ],
    },
    {
      label: 'View',
      submenu: [{ role: 'reload' }, { type: 'separator' }, { role: 'zoomIn' }, { role: 'zoomOut' }, { role: 'resetZoom' }, { type: 'separator' }, { role: 'togglefullscreen' }],
    },
  ];
  Menu.setApplicationMenu(Menu.buildFromTemplate(template));
}

function registerIpc(): void {
  ipcMain.handle('doorlist:hostname', (event) => (fromDoorScreen(event) ? os.hostname() : ''));
  registerBadgePrinting(fromDoorScreen);

  ipcMain.handle('doorlist:export-event', async (event, request: unknown) => {
    if (!fromDoorScreen(event) || !window) return { saved: false, error: 'Refused.' };
    const { eventId, eventName, token } = (request ?? {}) as { eventId?: unknown; eventName?: unknown; token?: unknown };
    if (!Number.isInteger(eventId) || typeof token !== 'string') return { saved: false, error: 'Bad request.' };
    const safeName = String(eventName ?? 'event').replace(/[^\w.-]+/g, '-').replace(/^-|-$/g, '') || 'event';
    const target = await dialog.showSaveDialog(window, { title: 'Export event file', defaultPath: path.join(app.getPath('documents'), `${safeName}.doorlist`) });
    if (target.canceled || !target.filePath) return { saved: false };
    const res = await fetch(apiUrl(`/events/${eventId}/export`), { headers: { authorization: `Token ${token}` } });
    if (!res.ok) return { saved: false, error: `The server answered ${res.status}: ${await res.text()}` };
    const bytes = Buffer.from(await res.arrayBuffer());
    await fs.promises.writeFile(target.filePath, bytes);
    return { saved: true, path: target.filePath, bytes: bytes.length };
  });

  ipcMain.handle('doorlist:import-event', async (event, request: unknown) => {
    if (!fromDoorScreen(event) || !window) return { imported: false, error: 'Refused.' };
    const { token, groupId } = (request ?? {}) as { token?: unknown; groupId?: unknown };
    if (typeof token !== 'string' || (groupId !== undefined && !Number.isInteger(groupId))) return { imported: false, error: 'Bad request.' };
    const source = await dialog.showOpenDialog(window, { title: 'Import event file', properties: ['openFile'], filters: [{ name: 'Doorlist event files', extensions: ['doorlist', 'gz', 'json'] }, { name: 'All files', extensions: ['*'] }] });
    if (source.canceled || !source.filePaths[0]) return { imported: false };
    const file = await fs.promises.readFile(source.filePaths[0]);
    const res = await fetch(apiUrl(`/events/import${groupId ? `?group_id=${groupId}` : ''}`), { method: 'POST', headers: { authorization: `Token ${token}`, 'content-type': 'application/octet-stream' }, body: file });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // Shown as text.
    }
    return { imported: res.ok, path: source.filePaths[0], status: res.status, body };
  });
}

/** No other origin, no new windows, no navigation away; the camera for our page only. */
function lockDown(): void {
  session.defaultSession.webRequest.onHeadersReceived((details, callback) => {
    const headers = { ...details.responseHeaders };
    if (details.url.startsWith(`${origin}/`)) headers['Content-Security-Policy'] = [CSP];
    callback({ responseHeaders: headers });
  });
  session.defaultSession.setPermissionRequestHandler((contents, permission, callback, details) => {
    callback(permission === 'media' && (details.requestingUrl ?? contents.getURL()).startsWith(`${origin}/`));
  });
  app.on('web-contents-created', (_event, contents) => {
    contents.setWindowOpenHandler(() => ({ action: 'deny' }));
    contents.on('will-navigate', (e, url) => {
      if (!url.startsWith(`${origin}/`)) e.preventDefault();
    });
    contents.on('will-attach-webview', (e) => e.preventDefault());
  });
}

async function startLocalServer(): Promise<RunningServer> {
  const options = { rendererDir: path.join(__dirname, '..', 'renderer') };
  try {
    return await startServer(config, options);
  } catch (err) {
    // Another program holds the usual port: any free one does for the window.
    if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
    config = Object.freeze({ ...config, port: 0 });
    return startServer(config, options);
  }
}

async function main(): Promise<void> {
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return;
  }
  app.on('second-instance', () => {
    if (!window) return;
    if (window.isMinimized()) window.restore();
    window.show();
    window.focus();
  });
  config = loadConfig(process.env, process.argv.slice(2));
  limitHeapGrowth();
  await app.whenReady();
  running = await startLocalServer();
  // The database's pages are checked beside the start (server/start.ts): a damaged one ends it.
  running.checked.catch(failToStart);
  origin = `http://127.0.0.1:${running.port}`;
  share = running.lan;
  lockDown();
  registerIpc();
  buildMenu();

  const state = loadWindowState();
  window = new BrowserWindow({
    ...state,
    minWidth: MIN_SIZE.width,
    minHeight: MIN_SIZE.height,
    title: 'Doorlist',
    backgroundColor: '#0f172a',
    show: false,
    webPreferences: {
      preload: path.join(__dirname, '..', 'preload', 'index.js'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      spellcheck: false,
    },
  });
  if (state.maximized) window.maximize();
  window.once('ready-to-show', () => window?.show());
  window.on('close', () => window && saveWindowState(window));
  window.on('closed', () => {
    window = undefined;
  });
  app.on('window-all-closed', () => app.quit());
  app.on('before-quit', () => {
    const server = running;
    running = undefined;
    void share?.close().finally(() => server?.close());
  });
  await window.loadURL(`${origin}/`);
}

function failToStart(err: unknown): void {
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`Doorlist could not start: ${message}\n`);
  // A desktop user sees no terminal: a damaged database or a taken port is said in a box.
  if (app.isReady()) dialog.showErrorBox('Doorlist could not start', message);
  app.exit(1);
}

main().catch(failToStart);

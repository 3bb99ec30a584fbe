import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BrowserWindow, ipcMain, type IpcMainInvokeEvent } from 'electron';

// A badge is a few kilobytes; anything near this is not one.
const MAX_PDF_BYTES = 5 << 20;

export interface BadgePrintOutcome {
  printed: boolean;
  error?: string;
}

/**
 * Prints a badge PDF on a named printer without the system dialog: the PDF opens in a hidden
 * window of its own (Chromium's PDF viewer) and that window prints silently.
 */
async function printSilently(pdf: Uint8Array, printer: string): Promise<BadgePrintOutcome> {
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'doorlist-badge-'));
  const file = path.join(dir, 'badge.pdf');
  const win = new BrowserWindow({ show: false, webPreferences: { sandbox: true, contextIsolation: true, nodeIntegration: false, plugins: true } });
  try {
    await fs.promises.writeFile(file, pdf, { mode: 0o600 });
    await win.loadFile(file);
    return await new Promise<BadgePrintOutcome>((resolve) => {
      win.webContents.print({ silent: true, deviceName: printer, printBackground: true }, (printed, reason) => resolve(printed ? { printed } : { printed, error: reason }));
    });
  } finally {
    win.destroy();
    await fs.promises.rm(dir, { recursive: true, force: true });
  }
}

/** The IPC handlers of badge printing; `fromDoorScreen` tells the door screen's own frame from anything else. */
export function registerBadgePrinting(fromDoorScreen: (event: IpcMainInvokeEvent) => boolean): void {
  ipcMain.handle('doorlist:printers', async (event) => {
    if (!fromDoorScreen(event)) return [];
    return (await event.sender.getPrintersAsync()).map((p) => p.name);
  });
  ipcMain.handle('doorlist:print-badge', async (event, request: unknown): Promise<BadgePrintOutcome> => {
    if (!fromDoorScreen(event)) return { printed: false, error: 'Refused.' };
    const { pdf, printer } = (request ?? {}) as { pdf?: unknown; printer?: unknown };
    if (!(pdf instanceof Uint8Array) || pdf.length > MAX_PDF_BYTES || typeof printer !== 'string' || printer === '') return { printed: false, error: 'Bad request.' };
    const known = (await event.sender.getPrintersAsync()).some((p) => p.name === printer);
    if (!known) return { printed: false, error: `No printer named ${printer}.` };
    return printSilently(pdf, printer);
  });
}

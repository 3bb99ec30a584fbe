import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';

// The door screen runs the same in a LAN browser; the desktop adds only what a browser
// lacks, as named functions (never ipcRenderer itself). Main checks who is calling.
contextBridge.exposeInMainWorld('doorlistDesktop', {
  isDesktop: true,
  hostname: (): Promise<string> => ipcRenderer.invoke('doorlist:hostname'),
  exportEvent: (request: { eventId: number; eventName: string; token: string }) => ipcRenderer.invoke('doorlist:export-event', request),
  importEvent: (request: { token: string; groupId?: number }) => ipcRenderer.invoke('doorlist:import-event', request),
  printers: (): Promise<string[]> => ipcRenderer.invoke('doorlist:printers'),
  printBadge: (request: { pdf: Uint8Array; printer: string }) => ipcRenderer.invoke('doorlist:print-badge', request),
  onMenu: (callback: (action: string, payload?: unknown) => void) => {
    const listener = (_event: IpcRendererEvent, action: string, payload?: unknown) => callback(action, payload);
    ipcRenderer.on('doorlist:menu', listener);
    return () => {
      ipcRenderer.removeListener('doorlist:menu', listener);
    };
  },
});

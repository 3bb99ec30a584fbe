import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';

// The door screen runs the same in a LAN browser; the desktop adds only what a browser
// lacks, as named functions (never ipcRenderer itself). Main checks who is calling.
contextBridge.exposeInMainWorld('doorlistDesktop', {
  isDesktop: true,
  hostname: (): Promise<string> => ipcRenderer.invoke('doorlist:hostname'),
  exportEvent: (request: { eventId: number; eventName: string; token: string }) => ipcRenderer.invoke('doorlist:export-event', request),
  importEvent: (request: { token: string; groupId?: number }) => ipcRenderer.invoke('doorlist:import-event', request),
  onMenu: (callback: (action: string) => void) => {
    const listener = (_event: IpcRendererEvent, action: string) => callback(action);
    ipcRenderer.on('doorlist:menu', listener);
    return () => {
      ipcRenderer.removeListener('doorlist:menu', listener);
    };
  },
});

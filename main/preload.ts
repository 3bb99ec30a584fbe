import { contextBridge } from 'electron';

// The door screen runs the same in a LAN browser; the desktop only adds what a browser lacks.
contextBridge.exposeInMainWorld('doorlistDesktop', { isDesktop: true });

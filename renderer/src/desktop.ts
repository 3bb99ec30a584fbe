/** What the desktop app's preload adds to the page (absent in a LAN browser). */
export interface ExportOutcome {
  saved: boolean;
  path?: string;
  bytes?: number;
  error?: string;
}

export interface ImportOutcome {
  imported: boolean;
  path?: string;
  status?: number;
  body?: unknown;
  error?: string;
}

export type MenuAction = 'export-event' | 'import-event' | 'share-info';

export interface DesktopBridge {
  isDesktop: true;
  hostname(): Promise<string>;
  exportEvent(request: { eventId: number; eventName: string; token: string }): Promise<ExportOutcome>;
  importEvent(request: { token: string; groupId?: number }): Promise<ImportOutcome>;
  onMenu(callback: (action: MenuAction) => void): () => void;
}

export const desktop: DesktopBridge | undefined = (window as unknown as { doorlistDesktop?: DesktopBridge }).doorlistDesktop;

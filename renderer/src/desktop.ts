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

export interface BadgePrintOutcome {
  printed: boolean;
  error?: string;
}

export type MenuAction = 'export-event' | 'import-event' | 'share-info';

export interface DesktopBridge {
  isDesktop: true;
  hostname(): Promise<string>;
  exportEvent(request: { eventId: number; eventName: string; token: string }): Promise<ExportOutcome>;
  importEvent(request: { token: string; groupId?: number }): Promise<ImportOutcome>;
  onMenu(callback: (action: MenuAction, payload?: unknown) => void): () => void;
  /** The system's printers, by name (desktop app builds that print badges). */
  printers?(): Promise<string[]>;
  /** Prints a badge PDF on `printer` without the system dialog. */
  printBadge?(request: { pdf: Uint8Array; printer: string }): Promise<BadgePrintOutcome>;
}

export const desktop: DesktopBridge | undefined = (window as unknown as { doorlistDesktop?: DesktopBridge }).doorlistDesktop;

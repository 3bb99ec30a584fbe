import { expect, type Page, type Request, type Response, type Route } from '@playwright/test';
import { REPEAT_GUARD_MS } from '../../../renderer/src/door/repeat-guard';
import { DOOR_PICTURES, picture, RESULT_PICTURES } from '../screenshots';
import { openWithStorage } from './browser-data';

/** The counters' poll: the door's GET of its event's stats. */
const STATS_POLL = /\/events\/\d+\/stats(\?|$)/;

/** The door screen in door mode, as a door person uses it. */
export class DoorPage {
  constructor(readonly page: Page) {}

  /**
   * Opens the screen already signed in on `eventId` (the sign-in path has its own test), at the
   * station "Front door", or with no station kept yet when `station` is null (a new station).
   */
  async open(baseUrl: string, token: string, event: { id: number; name: string }, { station = 'Front door' }: { station?: string | null } = {}): Promise<void> {
    const stored: Record<string, string> = { 'doorlist.token': token, 'doorlist.event': JSON.stringify({ id: event.id, name: event.name }) };
    if (station !== null) stored['doorlist.station'] = station;
    await openWithStorage(this.page, baseUrl, '/', stored);
    await expect(this.scanField()).toBeFocused();
    // The screen gives the scan field the focus once more on the frame after it opens: a key
    // pressed before that frame (a Tab) would be undone by it.
    await this.page.evaluate(() => new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve()))));
  }

  /** Records every beep's tones, one list per answer, before the page loads. */
  async listenToTones(): Promise<void> {
    await this.page.addInitScript(() => {
      const tones: number[][] = [];
      (window as any).__tones = tones;
      let lastAt = 0;
      const create = AudioContext.prototype.createOscillator;
      AudioContext.prototype.createOscillator = function (this: AudioContext) {
        const osc = create.call(this);
        const start = osc.start.bind(osc);
        // The tones of one answer are started together; a pause means the next answer.
        osc.start = (when?: number) => {
          const now = performance.now();
          // Either way: a test that moves the page's clock (waitPastRepeatGuard) may set it back.
          if (Math.abs(now - lastAt) > 50 || !tones.length) tones.push([]);
          lastAt = now;
          tones[tones.length - 1].push(osc.frequency.value);
          start(when);
        };
        return osc;
      };
    });
  }

  /** The tones of each answer so far, oldest first. */
  tones(): Promise<number[][]> {
    return this.page.evaluate(() => (window as any).__tones);
  }

  /** Waits until the station's copy of the guest list holds `count` guests. */
  async copyHolds(count: number): Promise<void> {
    await expect(this.connection()).toHaveAttribute('data-copy-size', String(count), { timeout: 15_000 });
  }

  /** Waits until the station has its copy of the guest list, whatever its size. */
  async copyLoaded(): Promise<void> {
    await expect(this.connection()).not.toHaveAttribute('data-copy-size', '0', { timeout: 15_000 });
  }

  /** Guests the door stopped for who are no longer the answer in front and are not yet seen. */
  attentionWaiting() {
    return this.page.getByTestId('attention-waiting');
  }

  scanField() {
    return this.page.locator('#scan-field');
  }

  result() {
    // The answer on the door's stage (a copy shows over an open dialog: verdictOver).
    return this.page.locator('main .result');
  }

  /** The cover over the last answer while a scan is on its way to the server. */
  checking() {
    return this.page.getByTestId('checking');
  }

  /** The last scans, newest first, each with its own answer (`data-outcome`). */
  recent() {
    return this.page.getByRole('list', { name: 'Last scans' }).locator('li');
  }

  announcer() {
    return this.page.getByTestId('announcer');
  }

  /** Types the code and Enter into whatever has the focus, as a keyboard-wedge reader does. */
  async scan(code: string): Promise<void> {
    await this.page.keyboard.type(code, { delay: 5 });
    await this.page.keyboard.press('Enter');
  }

  /**
   * The same code again from this station within 3 s is the reader firing twice and shows
   * the first answer; a test that means a second scan moves the page's clock past that
   * (Playwright's clock: Date jumps, no timer fires, time then flows on).
   */
  async waitPastRepeatGuard(): Promise<void> {
    const now = await this.page.evaluate(() => Date.now());
    await this.page.clock.setSystemTime(now + REPEAT_GUARD_MS + 100);
  }

  /**
   * Resolves once `n` polls of the counters sent after this call (every 2 s, each after flushing
   * its queue) have been answered: what "nothing more happens" and "the next poll shows it" wait
   * on, in cycles, not seconds. A poll already on its way when called does not count: its figures
   * may predate what the test just did.
   */
  async afterPolls(n: number): Promise<void> {
    const sent = new Set<Request>();
    let seen = 0;
    const isPoll = (r: Request) => r.method() === 'GET' && STATS_POLL.test(r.url());
    const track = (r: Request) => void (isPoll(r) && sent.add(r));
    const count = (r: Response) => void (sent.has(r.request()) && (seen += 1));
    this.page.on('request', track);
    this.page.on('response', count);
    try {
      await expect.poll(() => seen, { timeout: 30_000 }).toBeGreaterThanOrEqual(n);
    } finally {
      this.page.off('request', track);
      this.page.off('response', count);
    }
  }

  /**
   * Runs `check` while every poll of the counters is answered with `figures` (the server's stats
   * from before a scan): what the counters show meanwhile is the station's own count, not a
   * fresher answer of the server's, whatever the machine's speed.
   */
  async withCountersAnswered(figures: unknown, check: () => Promise<void>): Promise<void> {
    const answer = (route: Route) => route.fulfill({ json: figures });
    await this.page.route(STATS_POLL, answer);
    try {
      await check();
    } finally {
      await this.page.unroute(STATS_POLL, answer);
    }
  }

  /** Ctrl+Z, then confirms the undo it names. */
  async undoConfirmed(name: string | RegExp): Promise<void> {
    await this.undo();
    const dialog = this.page.getByRole('dialog', { name: 'Undo this scan?' });
    await expect(dialog.getByTestId('undo-question')).toContainText(name);
    await dialog.getByRole('button', { name: 'Undo', exact: true }).click();
    await expect(dialog).toBeHidden();
  }

  /**
   * A USB reader's burst: every key event sent at once, as the device does, rather than one
   * round trip per key (which a busy test machine spreads over tens of milliseconds each).
   */
  async scanBurst(code: string): Promise<void> {
    const cdp = await this.page.context().newCDPSession(this.page);
    const keys = [...code].flatMap((ch) => [
      cdp.send('Input.dispatchKeyEvent', { type: 'keyDown', key: ch, text: ch, unmodifiedText: ch }),
      cdp.send('Input.dispatchKeyEvent', { type: 'keyUp', key: ch }),
    ]);
    const enter = { key: 'Enter', code: 'Enter', windowsVirtualKeyCode: 13, nativeVirtualKeyCode: 13 };
    await Promise.all([...keys, cdp.send('Input.dispatchKeyEvent', { type: 'keyDown', text: '\r', ...enter }), cdp.send('Input.dispatchKeyEvent', { type: 'keyUp', ...enter })]);
    await cdp.detach();
  }

  /** A reader at full speed: the code and Enter with no pause between keys. */
  async scanFast(code: string): Promise<void> {
    await this.page.keyboard.type(code);
    await this.page.keyboard.press('Enter');
  }

  async expectResult(outcome: string, ...texts: (string | RegExp)[]): Promise<void> {
    await expect(this.result()).toHaveAttribute('data-outcome', outcome);
    for (const text of texts) await expect(this.result()).toContainText(text);
    await expect(this.scanField()).toBeFocused();
  }

  /** The answer shown in front of an open dialog. */
  verdictOver() {
    return this.page.getByTestId('verdict-over');
  }

  checkedIn() {
    return this.page.getByTestId('checked-in');
  }

  total() {
    return this.page.getByTestId('total');
  }

  /** A counter's value once the first stats have arrived. */
  async count(which: 'checked-in' | 'total'): Promise<number> {
    const counter = this.page.getByTestId(which);
    await expect(counter).toHaveText(/^\d+$/);
    return Number(await counter.textContent());
  }

  pending() {
    return this.page.getByTestId('pending');
  }

  connection() {
    return this.page.getByTestId('connection');
  }

  /** The link to the central Doorlist, when this laptop follows one ("Synced 2 s ago"). */
  syncState() {
    return this.page.getByTestId('sync-state');
  }

  /** The badge of guests let in at two stations that could not see each other. */
  syncDoubles() {
    return this.page.getByTestId('sync-doubles');
  }

  async undo(): Promise<void> {
    await this.page.keyboard.press('Control+z');
  }

  async search(term: string) {
    await this.page.keyboard.press('F2');
    const dialog = this.page.getByRole('dialog', { name: 'Find a guest' });
    await dialog.getByLabel('Name, e-mail, company or code').fill(term);
    return dialog;
  }

  async addWalkIn(fields: { type: string; first: string; last: string; email: string; company?: string }): Promise<void> {
    await this.page.keyboard.press('F4');
    const dialog = this.page.getByRole('dialog', { name: 'Add a walk-in' });
    await dialog.getByLabel('Registration type').selectOption({ label: fields.type });
    await dialog.getByLabel('First name').fill(fields.first);
    await dialog.getByLabel('Last name').fill(fields.last);
    await dialog.getByLabel('E-mail').fill(fields.email);
    if (fields.company) await dialog.getByLabel('Company (optional)').fill(fields.company);
    await dialog.getByRole('button', { name: 'Add and check in' }).click();
  }

  async toggleCheckOut(): Promise<void> {
    await this.page.keyboard.press('F6');
  }

  async pickSession(name: string): Promise<void> {
    await this.page.keyboard.press('F7');
    await this.page.getByRole('dialog').getByRole('button', { name: new RegExp(`^${name}`) }).click();
    await expect(this.scanField()).toBeFocused();
  }

  /** Saves what the door person sees, for a human to look at. */
  async screenshot(name: string): Promise<void> {
    await picture(this.page, RESULT_PICTURES, name);
  }

  /** The same picture, kept in docs/door-screen/ for docs/console-and-door.md. */
  async screenshotForDocs(name: string): Promise<void> {
    await this.screenshot(name);
    await picture(this.page, DOOR_PICTURES, name);
  }
}

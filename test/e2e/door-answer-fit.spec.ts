import { expect, test, type Page } from '@playwright/test';
import { DoorServer } from './door-server';
import { DoorPage } from './pages/door-page';
import { seedEvent, type Seed } from './seed';

/**
 * Issue 44, items 4 and 5: the guest in front of the staff member is shown in full, with their
 * own note, whatever waits on attention; and every language fits the door's answer at 1280×800
 * and on a 375×667 phone without cutting it. "Fits" is measured, not eyeballed: no element of
 * the answer overflows its box, and every one lies inside the viewport.
 */
const LANGUAGES = ['en', 'de', 'fr', 'es', 'nl'] as const;
const SIZES = [
  { name: 'laptop', width: 1280, height: 800 },
  { name: 'phone', width: 375, height: 667 },
] as const;

let server: DoorServer;
let seed: Seed;
let meal: { id: number; choices: { id: number; answer: string }[] };
let made = 0;

test.beforeAll(async () => {
  server = await DoorServer.start();
  seed = await seedEvent(server, 'Winter Gala');
  meal = await server.must(201, 'POST', `/events/${seed.eventId}/custom_questions`, { question: 'Meal', type: 'radio', choices: [{ answer: 'Fish' }, { answer: 'Vegetarian' }], show_at_door: true });
});

test.afterAll(async () => {
  await server?.dispose();
});

/** A guest of this test's own (each test scans fresh guests), made through the API. */
async function guest(fields: { first_name: string; last_name: string; company?: string; vip?: boolean; attention?: boolean; notes?: string; vegetarian?: boolean }): Promise<{ id: number; barcode: string }> {
  made += 1;
  const barcode = `FIT-${made}`;
  const { vip, vegetarian, ...rest } = fields;
  const body = {
    ...rest,
    registration_type: vip ? seed.types.vip : seed.types.general,
    email: `fit${made}@example.test`,
    barcode,
    ...(vegetarian ? { custom_questions: [{ question_id: meal.id, answer: meal.choices[1].id }] } : {}),
  };
  const created = await server.must<{ id: number }>(201, 'POST', `/events/${seed.eventId}/guests`, body);
  return { id: created.id, barcode };
}

/** Every element of the answer (and of the attention reminders) that is cut or off the screen. */
async function cutElements(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const roots = [...document.querySelectorAll('main .result, [data-testid="attention-waiting"]')];
    const cut: string[] = [];
    for (const root of roots) {
      for (const el of [root, ...root.querySelectorAll('*')] as HTMLElement[]) {
        const box = el.getBoundingClientRect();
        if (box.width === 0 && box.height === 0) continue;
        const name = `${el.tagName.toLowerCase()}.${[...el.classList].join('.')} "${(el.textContent ?? '').trim().slice(0, 40)}"`;
        // A box that clips (the panel, an ellipsis, a scroller) must hold no more than it shows.
        const style = getComputedStyle(el);
        const clipsX = style.overflowX !== 'visible' && el.scrollWidth > el.clientWidth + 1;
        const clipsY = style.overflowY !== 'visible' && el.scrollHeight > el.clientHeight + 1;
        if (clipsX || clipsY) cut.push(`${name} overflows (${el.scrollWidth}×${el.scrollHeight} in ${el.clientWidth}×${el.clientHeight})`);
        if (box.left < -0.5 || box.top < -0.5 || box.right > innerWidth + 0.5 || box.bottom > innerHeight + 0.5) cut.push(`${name} outside the ${innerWidth}×${innerHeight} viewport (${Math.round(box.left)},${Math.round(box.top)} to ${Math.round(box.right)},${Math.round(box.bottom)})`);
      }
    }
    return cut;
  });
}

/** The tops of the action bar's buttons: one value when they stand in a single row. */
async function actionRows(page: Page): Promise<number> {
  const tops = await page.locator('nav.actions > button').evaluateAll((buttons) => buttons.map((b) => Math.round(b.getBoundingClientRect().top)));
  return new Set(tops).size;
}

for (const size of SIZES) {
  for (const language of LANGUAGES) {
    test(`${language} at ${size.width}×${size.height}: every answer fits whole, attention waiting or not`, async ({ page }) => {
      await page.setViewportSize({ width: size.width, height: size.height });
      await page.addInitScript((lang) => localStorage.setItem('doorlist.language', lang), language);
      const vip = await guest({ first_name: 'Wilhelmina', last_name: 'Vandenberghe-Castellanos', company: 'Rijksmuseum Foundation', vip: true, attention: true, notes: 'VIP: escort to table 1', vegetarian: true });
      const again = await guest({ first_name: 'Maximilian', last_name: 'Oberhollenzer', company: 'Deutsche Bundesbahn Logistik', notes: 'Wheelchair: open the side ramp', vegetarian: true });
      const plain = await guest({ first_name: 'Françoise', last_name: 'Delacroix-Beaumont', company: 'Théâtre du Châtelet', vip: true });
      await server.must(201, 'POST', `/events/${seed.eventId}/checkins`, { guest_id: again.id, station: 'North entrance, hall B' });

      const door = new DoorPage(page);
      await door.open(server.url, server.adminToken, { id: seed.eventId, name: seed.eventName });
      await expect(page.locator('html')).toHaveAttribute('lang', language);
      const shot = async (step: string) => {
        if (language === 'en' || language === 'de' || language === 'fr') await door.screenshot(`80-fit-${step}-${language}-${size.name}`);
      };

      // An attention guest: the answer in front is theirs, note and answers included.
      await door.scan(vip.barcode);
      await expect(door.result()).toHaveAttribute('data-outcome', 'checked_in');
      await expect(door.result()).toHaveAttribute('data-attention', 'true');
      await expect(door.result()).toContainText('VIP: escort to table 1');
      await expect(door.result()).toContainText('Rijksmuseum Foundation');
      await expect(door.result().getByTestId('door-answers')).toContainText('Vegetarian');
      await expect.poll(() => cutElements(page)).toEqual([]);
      await shot('attention');

      // Already in, with the station and the time of first entry, while the first still waits.
      await door.scan(again.barcode);
      await expect(door.result()).toHaveAttribute('data-outcome', 'already_checked_in');
      await expect(door.result()).toContainText('North entrance, hall B');
      await expect(door.result()).toContainText('Wheelchair: open the side ramp');
      await expect(door.result()).toContainText('Deutsche Bundesbahn Logistik');
      await expect(page.getByTestId('attention-waiting')).toContainText('VIP: escort to table 1');
      await expect.poll(() => cutElements(page)).toEqual([]);
      await shot('amber-under-attention');

      // A plain green, type and company whole.
      await door.scan(plain.barcode);
      await expect(door.result()).toHaveAttribute('data-outcome', 'checked_in');
      await expect(door.result().locator('.guest-meta')).toContainText('Théâtre du Châtelet');
      await expect(door.result().locator('.guest-meta .badge')).toHaveText('VIP');
      await expect.poll(() => cutElements(page)).toEqual([]);
      if (size.width === 1280) expect(await actionRows(page), 'the action bar in one row').toBe(1);
      await shot('green-under-attention');
    });
  }
}

test('two attention guests in a row: each one in front with their own note, the first still waiting with theirs', async ({ page }) => {
  const ida = await guest({ first_name: 'Ida', last_name: 'Rhodes', company: 'National Bureau of Standards', attention: true, notes: 'Wheelchair: open the side ramp' });
  const joan = await guest({ first_name: 'Joan', last_name: 'Clarke', company: 'Government Code and Cypher School', vip: true, attention: true, notes: 'VIP: escort to table 1' });
  const burst = await Promise.all([
    guest({ first_name: 'Grace', last_name: 'Murray', company: 'Harvard Computation Lab', vip: true }),
    guest({ first_name: 'Hedy', last_name: 'Lamarr', company: 'Frequency Hopping Inc.' }),
    guest({ first_name: 'Mary', last_name: 'Keller', company: 'University of Wisconsin' }),
  ]);
  const door = new DoorPage(page);
  await door.open(server.url, server.adminToken, { id: seed.eventId, name: seed.eventName });

  await door.scan(ida.barcode);
  await door.expectResult('checked_in', 'Needs attention', 'Ida Rhodes', 'Wheelchair: open the side ramp');
  await expect(door.result()).toHaveAttribute('data-attention', 'true');
  await expect(door.attentionWaiting()).toBeHidden();

  // The second one's note is in front at once; the first waits beside it with hers.
  await door.scan(joan.barcode);
  await door.expectResult('checked_in', 'Needs attention', 'Joan Clarke', 'VIP: escort to table 1', 'Government Code and Cypher School');
  await expect(door.attentionWaiting()).toContainText('Ida Rhodes');
  await expect(door.attentionWaiting()).toContainText('Wheelchair: open the side ramp');
  await expect(door.attentionWaiting()).not.toContainText('Joan Clarke');
  await door.screenshot('56-attention-two');

  // A burst of greens: each one whole (type and company), the two still waiting above them.
  for (const [i, g] of burst.entries()) {
    await door.scan(g.barcode);
    await expect(door.result()).toHaveAttribute('data-outcome', 'checked_in');
    await expect(door.result()).toHaveAttribute('data-attention', 'false');
    await expect(door.result().locator('.guest-meta')).toContainText(['Harvard Computation Lab', 'Frequency Hopping Inc.', 'University of Wisconsin'][i]);
    await expect(door.result().locator('.guest-meta .badge')).toHaveText(i === 0 ? 'VIP' : 'General');
    await expect(door.attentionWaiting().locator('li')).toHaveCount(2);
    await expect.poll(() => cutElements(page)).toEqual([]);
  }
  await door.screenshot('56-attention-waiting-green');

  // Enter on the empty field: the oldest is seen first; the button takes the one it is on.
  await page.keyboard.press('Enter');
  await expect(door.attentionWaiting().locator('li')).toHaveCount(1);
  await expect(door.attentionWaiting()).toContainText('Joan Clarke');
  await door.attentionWaiting().getByRole('button', { name: /Seen/ }).click();
  await expect(door.attentionWaiting()).toBeHidden();
  await expect(door.scanField()).toBeFocused();
});

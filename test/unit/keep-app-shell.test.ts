import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { APP_SHELL_RETRY_MS, keepAppShell } from '../../renderer/src/keep-app-shell';

// The app shell is tried again until a worker is in use: an install a network change failed
// leaves the browser with no registration, and nothing would try again before the next load.

type State = ServiceWorkerState;

/** A worker that goes through `states` one event at a time, as the browser's would. */
class FakeWorker extends EventTarget {
  constructor(public state: State) {
    super();
  }
  moveTo(state: State): void {
    this.state = state;
    this.dispatchEvent(new Event('statechange'));
  }
}

function registration(fields: { active?: FakeWorker; installing?: FakeWorker }): ServiceWorkerRegistration {
  return { active: fields.active ?? null, installing: fields.installing ?? null, waiting: null } as unknown as ServiceWorkerRegistration;
}

/** Records the waits asked for and lets them end at once. */
function waits() {
  const asked: number[] = [];
  return { asked, wait: async (ms: number) => void asked.push(ms) };
}

describe('keepAppShell', () => {
  it('registers once when the worker installs and takes over', async () => {
    const worker = new FakeWorker('installing');
    const { asked, wait } = waits();
    let calls = 0;
    const done = keepAppShell(async () => {
      calls += 1;
      setTimeout(() => {
        worker.moveTo('installed');
        worker.moveTo('activating');
        worker.moveTo('activated');
      });
      return registration({ installing: worker });
    }, wait);
    await done;
    assert.equal(calls, 1);
    assert.deepEqual(asked, []);
  });

  it('is done at once when a worker is already in use', async () => {
    const { asked, wait } = waits();
    let calls = 0;
    await keepAppShell(async () => {
      calls += 1;
      return registration({ active: new FakeWorker('activated') });
    }, wait);
    assert.equal(calls, 1);
    assert.deepEqual(asked, []);
  });

  it('registers again after an install that failed, and stops once one takes over', async () => {
    const { asked, wait } = waits();
    const outcomes: State[] = ['redundant', 'redundant', 'activated'];
    let calls = 0;
    await keepAppShell(async () => {
      const worker = new FakeWorker('installing');
      const outcome = outcomes[calls];
      calls += 1;
      setTimeout(() => worker.moveTo(outcome));
      return registration({ installing: worker });
    }, wait);
    assert.equal(calls, 3);
    assert.deepEqual(asked, APP_SHELL_RETRY_MS.slice(0, 2));
  });

  it('tries a worker script that did not arrive again, waiting longer each time up to a minute', async () => {
    const { asked, wait } = waits();
    let calls = 0;
    await keepAppShell(async () => {
      calls += 1;
      if (calls <= 6) throw new TypeError('Failed to register a ServiceWorker: net::ERR_NETWORK_CHANGED');
      return registration({ active: new FakeWorker('activated') });
    }, wait);
    assert.equal(calls, 7);
    assert.deepEqual(asked, [2_000, 5_000, 15_000, 60_000, 60_000, 60_000]);
  });

  it('treats a registration with no worker at all (its install already failed) as failed', async () => {
    const { asked, wait } = waits();
    let calls = 0;
    await keepAppShell(async () => {
      calls += 1;
      return calls === 1 ? registration({}) : registration({ active: new FakeWorker('activated') });
    }, wait);
    assert.equal(calls, 2);
    assert.deepEqual(asked, [2_000]);
  });
});

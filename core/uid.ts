import { v7 as timeOrderedUuid } from 'uuid';

/**
 * A uid Doorlist makes, on the server and on the door screen alike: a UUID whose leading bits
 * are the time it was made (version 7). Each table's unique uid index then grows at its end;
 * random uids land every insert on another page, and a commit writes each page it touched
 * again, which nearly doubles the time a CSV import spends inserting. Built
 * from crypto.getRandomValues, which LAN browsers on plain HTTP have too (crypto.randomUUID
 * needs a secure page).
 */
export function newUid(): string {
  const random = randomBlock();
  const now = Date.now();
  // uuid's own state, kept here: given the random bytes, uuid would draw the sequence anew.
  if (now > clock.msecs) {
    clock.msecs = now;
    clock.seq = ((random[6] & 0x7f) << 24) | (random[7] << 16) | (random[8] << 8) | random[9];
  } else {
    clock.seq = (clock.seq + 1) | 0;
    if (clock.seq === 0) clock.msecs++;
  }
  return timeOrderedUuid({ random, msecs: clock.msecs, seq: clock.seq });
}

// Uids made in the same millisecond count up from a random start, so they still sort in the
// order they were made (as uuid's v7 does without options).
const clock = { msecs: -Infinity, seq: 0 };

// Random bytes drawn for 256 uids at a time: uuid asks the CSPRNG for each uid's 16, several
// times the cost of taking them from a pool, and a CSV import makes 100,000.
const UIDS_PER_DRAW = 256;
const randomPool = new Uint8Array(16 * UIDS_PER_DRAW);
let pooled = 0;

function randomBlock(): Uint8Array {
  if (pooled === 0) {
    crypto.getRandomValues(randomPool);
    pooled = UIDS_PER_DRAW;
  }
  pooled--;
  return randomPool.subarray(pooled * 16, pooled * 16 + 16);
}

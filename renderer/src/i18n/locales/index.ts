import enCommon from './en/common.json';
import enDoor from './en/door.json';
import enConsole from './en/console.json';
import deCommon from './de/common.json';
import deDoor from './de/door.json';
import deConsole from './de/console.json';
import frCommon from './fr/common.json';
import frDoor from './fr/door.json';
import frConsole from './fr/console.json';
import esCommon from './es/common.json';
import esDoor from './es/door.json';
import esConsole from './es/console.json';
import nlCommon from './nl/common.json';
import nlDoor from './nl/door.json';
import nlConsole from './nl/console.json';

/**
 * Every string of the screen, per language and namespace: `common` (shared words), `door`
 * (the door screen) and `console` (the organiser's screens). English is the reference: a key
 * missing in another language falls back to it, which the language test catches.
 */
export const RESOURCES = {
  en: { common: enCommon, door: enDoor, console: enConsole },
  de: { common: deCommon, door: deDoor, console: deConsole },
  fr: { common: frCommon, door: frDoor, console: frConsole },
  es: { common: esCommon, door: esDoor, console: esConsole },
  nl: { common: nlCommon, door: nlDoor, console: nlConsole },
} as const;

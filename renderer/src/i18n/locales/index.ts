import enCommon from './en/common.json';
import enDoor from './en/door.json';
import enConsole from './en/console.json';
import enSync from './en/sync.json';
import enBadges from './en/badges.json';
import enLan from './en/lan.json';
import deCommon from './de/common.json';
import deDoor from './de/door.json';
import deConsole from './de/console.json';
import deSync from './de/sync.json';
import deBadges from './de/badges.json';
import deLan from './de/lan.json';
import frCommon from './fr/common.json';
import frDoor from './fr/door.json';
import frConsole from './fr/console.json';
import frSync from './fr/sync.json';
import frBadges from './fr/badges.json';
import frLan from './fr/lan.json';
import esCommon from './es/common.json';
import esDoor from './es/door.json';
import esConsole from './es/console.json';
import esSync from './es/sync.json';
import esBadges from './es/badges.json';
import esLan from './es/lan.json';
import nlCommon from './nl/common.json';
import nlDoor from './nl/door.json';
import nlConsole from './nl/console.json';
import nlSync from './nl/sync.json';
import nlLan from './nl/lan.json';
import nlBadges from './nl/badges.json';

/**
 * Every string of the screen, per language and namespace: `common` (shared words), `door`
 * (the door screen), `console` (the organiser's screens) and `sync` (following a central
 * Doorlist), `badges` (printing them) and `lan` (sharing on the LAN). English is the reference: a key missing in another language falls back to it,
 * which the language test catches.
 */
export const RESOURCES = {
  en: { common: enCommon, door: enDoor, console: enConsole, sync: enSync, badges: enBadges, lan: enLan },
  de: { common: deCommon, door: deDoor, console: deConsole, sync: deSync, badges: deBadges, lan: deLan },
  fr: { common: frCommon, door: frDoor, console: frConsole, sync: frSync, badges: frBadges, lan: frLan },
  es: { common: esCommon, door: esDoor, console: esConsole, sync: esSync, badges: esBadges, lan: esLan },
  nl: { common: nlCommon, door: nlDoor, console: nlConsole, sync: nlSync, badges: nlBadges, lan: nlLan },
} as const;

import badges from './badges.json';
import common from './common.json';
import console from './console.json';
import door from './door.json';
import lan from './lan.json';
import sync from './sync.json';

/** Every screen string in this language, by namespace: one chunk, downloaded when the language is chosen. */
export const strings = { common, door, console, sync, badges, lan };

/** Vowels (with their accents) before which French elides: "d’Ada", "d’Émile", "de Grace". */
const VOWEL = /^[aeiouyàáâäåæéèêëíîïóôöøœùúûüÿ]/i;

/**
 * French "de" before a name the screen fills in: "d’Ada Lovelace", "de Grace Hopper". Used in the
 * French strings as `{{name, de}}` (an i18next formatter), where the name is only known at run time;
 * an h is left alone, since French cannot tell a silent h from an aspirated one by its spelling.
 */
export function frenchDe(value: unknown): string {
  const text = String(value ?? '');
  return VOWEL.test(text) ? `d’${text}` : `de ${text}`;
}

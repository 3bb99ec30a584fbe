import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import i18next from 'i18next';
import { frenchDe } from '../../renderer/src/i18n/elision';
import fr from '../../renderer/src/i18n/locales/fr/door.json';

describe('French "de" before a name (frenchDe)', () => {
  for (const [name, expected] of [
    ['Ada Lovelace', 'd’Ada Lovelace'],
    ['Émile Zola', 'd’Émile Zola'],
    ['Ødegård', 'd’Ødegård'],
    ['Yvonne', 'd’Yvonne'],
    ['Grace Hopper', 'de Grace Hopper'],
    ['Hélène', 'de Hélène'],
    ['', 'de '],
  ] as const) {
    it(`${JSON.stringify(name)} -> ${JSON.stringify(expected)}`, () => assert.equal(frenchDe(name), expected));
  }

  it('the French strings use it through i18next: "L’entrée d’Ada a été annulée"', async () => {
    const i18n = i18next.createInstance();
    await i18n.init({ lng: 'fr', resources: { fr: { door: fr } }, interpolation: { escapeValue: false } });
    i18n.services.formatter?.add('de', frenchDe);
    assert.equal(i18n.t('door:result.undoneIn', { name: 'Ada Lovelace' }), 'L’entrée d’Ada Lovelace a été annulée');
    assert.equal(i18n.t('door:result.undoneOut', { name: 'Grace Hopper' }), 'La sortie de Grace Hopper a été annulée');
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MSG } from '../../core/messages';
import { refusalSentence } from '../../server/cli';

describe('the command line says why it refused, in a sentence', () => {
  it('prints the message itself for {detail} and {details}', () => {
    assert.equal(refusalSentence({ detail: MSG.eventFileDamaged }), MSG.eventFileDamaged);
    assert.equal(refusalSentence({ details: MSG.groupNotFound }), MSG.groupNotFound);
  });

  it('prints field errors as "field: message", never as JSON', () => {
    const sentence = refusalSentence({ group_id: [MSG.required], name: [MSG.blank, 'Too long.'] });
    assert.equal(sentence, `--group: ${MSG.required}; name: ${MSG.blank} Too long.`);
    assert.doesNotMatch(sentence, /[{}[\]"]/);
  });
});

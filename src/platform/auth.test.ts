import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PASSWORD_COST } from '../config.ts';
import { PasswordHasher } from './auth.ts';

describe('PasswordHasher', () => {
  it("hashes at the cost it is given, OWASP's as production gives it: Argon2id, 19 MiB, 2 passes, one lane", async () => {
    const stored = await new PasswordHasher(PASSWORD_COST).hash('correct horse battery');
    assert.match(stored, /^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
  });

  it('checks a hash of any cost, whatever its own cost: the hash names it', async () => {
    const cheap = new PasswordHasher({ memoryKib: 8, passes: 1, lanes: 1 });
    const stored = await new PasswordHasher({ memoryKib: 64, passes: 2, lanes: 1 }).hash(
      'correct horse battery',
    );
    assert.match(stored, /\$m=64,t=2,p=1\$/);
    assert.equal(await cheap.verify(stored, 'correct horse battery'), true);
    assert.equal(await cheap.verify(stored, 'correct horse battery!'), false);
  });

  it('answers false, not an error, for a stored value that is no hash', async () => {
    const hasher = new PasswordHasher({ memoryKib: 8, passes: 1, lanes: 1 });
    assert.equal(await hasher.verify('', 'correct horse battery'), false);
    assert.equal(await hasher.verify('not a hash', 'correct horse battery'), false);
  });

  it('keeps one decoy, of its own cost, so an unknown email costs what a wrong password does', async () => {
    const hasher = new PasswordHasher({ memoryKib: 16, passes: 1, lanes: 1 });
    const decoy = await hasher.decoy();
    assert.match(decoy, /\$m=16,t=1,p=1\$/);
    assert.equal(await hasher.decoy(), decoy);
  });
});

import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Config } from './config.ts';

export type Secrets = { tokenDigestKey: string; embeddedPgPassword: string };

/**
 * Creates `file` with `content` only if it does not exist yet, atomically: several processes
 * starting together on one shared DATA_DIR must end up with the same secrets. The content is
 * written to a private temporary file first, then linked into place (link fails if the name
 * exists), so no reader ever sees a half-written file.
 */
function createOnce(file: string, content: string): void {
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  fs.writeFileSync(temporary, content, { mode: 0o600 });
  try {
    fs.linkSync(temporary, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    fs.rmSync(temporary, { force: true });
  }
}

const readStored = (file: string): Partial<Secrets> => (fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : {});

/**
 * Secrets given by the environment win; the others are generated on first start and kept in
 * DATA_DIR/secrets.json (mode 0600) so tokens stay valid across restarts. The file is created
 * once: whichever process creates it first decides for all, and every process uses what is on
 * disk after that. A file from an older version that lacks a key gets it added.
 */
export function loadSecrets(config: Config): Secrets {
  const file = path.join(config.dataDir, 'secrets.json');
  let stored = readStored(file);
  if (!complete(stored)) {
    fs.mkdirSync(config.dataDir, { recursive: true });
    // Created only if no file exists now, whatever this process read a moment ago: writing it
    // unconditionally let a process that had read "no file" replace the one another process had
    // just created and was already using (two servers, two token digest keys).
    createOnce(file, JSON.stringify(withMissingKeys(stored), null, 2));
    stored = readStored(file);
  }
  if (!complete(stored)) {
    fs.writeFileSync(file, JSON.stringify(withMissingKeys(stored), null, 2), { mode: 0o600 });
    stored = readStored(file);
  }
  return {
    tokenDigestKey: config.tokenDigestKey ?? stored.tokenDigestKey!,
    embeddedPgPassword: config.embeddedPgPassword ?? stored.embeddedPgPassword!,
  };
}

const complete = (stored: Partial<Secrets>) => Boolean(stored.tokenDigestKey && stored.embeddedPgPassword);

const withMissingKeys = (stored: Partial<Secrets>): Secrets => ({
  tokenDigestKey: stored.tokenDigestKey ?? randomBytes(32).toString('hex'),
  embeddedPgPassword: stored.embeddedPgPassword ?? randomBytes(18).toString('base64url'),
});

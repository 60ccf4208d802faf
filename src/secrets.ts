import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Config } from './config.ts';

export type Secrets = { tokenDigestKey: string; embeddedPgPassword: string };

/**
 * Secrets given by the environment win; the others are generated on first start and kept in
 * DATA_DIR/secrets.json (mode 0600) so tokens stay valid across restarts.
 */
export function loadSecrets(config: Config): Secrets {
  const file = path.join(config.dataDir, 'secrets.json');
  let stored: Partial<Secrets> = {};
  if (fs.existsSync(file)) stored = JSON.parse(fs.readFileSync(file, 'utf8'));
  const generated: Secrets = {
    tokenDigestKey: stored.tokenDigestKey ?? randomBytes(32).toString('hex'),
    embeddedPgPassword: stored.embeddedPgPassword ?? randomBytes(18).toString('base64url'),
  };
  if (generated.tokenDigestKey !== stored.tokenDigestKey || generated.embeddedPgPassword !== stored.embeddedPgPassword) {
    fs.mkdirSync(config.dataDir, { recursive: true });
    fs.writeFileSync(file, JSON.stringify(generated, null, 2), { mode: 0o600 });
  }
  return {
    tokenDigestKey: config.tokenDigestKey ?? generated.tokenDigestKey,
    embeddedPgPassword: config.embeddedPgPassword ?? generated.embeddedPgPassword,
  };
}

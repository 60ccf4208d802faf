// Rewrites docs/integrations.md's table of integration kinds from src/modules/integrations/registry.ts.
import fs from 'node:fs';
import { withTable } from '../src/modules/integrations/docs.ts';

const file = new URL('../docs/integrations.md', import.meta.url);
fs.writeFileSync(file, withTable(fs.readFileSync(file, 'utf8')));

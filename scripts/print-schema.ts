// npm run schema:print — rewrites schema.graphql from the code (a test fails when they differ).
import fs from 'node:fs';
import { printSchema } from 'graphql';
import { schema } from '../src/kernel.ts';

fs.writeFileSync(new URL('../schema.graphql', import.meta.url), `${printSchema(schema)}\n`);
console.log('wrote schema.graphql');

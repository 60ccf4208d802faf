import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { z } from 'zod';

/** GitLab's feature flag types; `experiment` definitions are what `/experiments` lists. */
export const FLAG_TYPES = ['gitlab_com_derisk', 'wip', 'beta', 'ops', 'experiment', 'worker'] as const;

const FLAG_NAME = /^[a-z][a-z0-9_]*$/;

const definitionSchema = z.strictObject({
  name: z.string().regex(FLAG_NAME, 'must be lower snake_case'),
  introduced_by_url: z.url({ protocol: /^https?$/ }).nullable(),
  rollout_issue_url: z.url({ protocol: /^https?$/ }).nullable(),
  milestone: z
    .string()
    .regex(/^\d+\.\d+$/, 'must look like 17.11')
    .nullable(),
  type: z.enum(FLAG_TYPES),
  group: z.string().regex(/^group::[a-z0-9 &_-]+$/, 'must look like group::name'),
  default_enabled: z.boolean(),
});

export type FlagDefinition = z.infer<typeof definitionSchema>;

export class FlagDefinitionError extends Error {}

/** The product's definitions: `config/feature_flags/<type>/<name>.yml`, as GitLab lays them out. */
export const DEFAULT_DEFINITIONS_DIR = fileURLToPath(new URL('../../config/feature_flags', import.meta.url));

function readDefinition(file: string, typeDir: string): FlagDefinition {
  let raw: unknown;
  try {
    raw = parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    throw new FlagDefinitionError(`${file}: not valid YAML (${(error as Error).message})`);
  }
  const parsed = definitionSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
    throw new FlagDefinitionError(`${file}: ${problems}`);
  }
  const definition = parsed.data;
  // The file's place must agree with its content, or two files could claim one name.
  if (path.basename(file, '.yml') !== definition.name) throw new FlagDefinitionError(`${file}: name must match the file name`);
  if (typeDir !== definition.type) throw new FlagDefinitionError(`${file}: type ${definition.type} must match its folder ${typeDir}`);
  return definition;
}

/**
 * Reads and validates every definition under `dirs` (each `<type>/<name>.yml`). Called once at
 * start; any invalid or duplicated definition stops the start with a message naming the file.
 */
export function loadFlagDefinitions(dirs: string[] = [DEFAULT_DEFINITIONS_DIR]): Map<string, FlagDefinition> {
  const definitions = new Map<string, FlagDefinition>();
  for (const dir of dirs) {
    for (const typeDir of fs.readdirSync(dir, { withFileTypes: true })) {
      if (!typeDir.isDirectory()) continue;
      for (const entry of fs.readdirSync(path.join(dir, typeDir.name)).sort()) {
        if (!entry.endsWith('.yml')) throw new FlagDefinitionError(`${path.join(dir, typeDir.name, entry)}: definitions are .yml files`);
        const definition = readDefinition(path.join(dir, typeDir.name, entry), typeDir.name);
        if (definitions.has(definition.name)) throw new FlagDefinitionError(`feature flag ${definition.name} is defined twice`);
        definitions.set(definition.name, definition);
      }
    }
  }
  return definitions;
}

/** GitLab names an experiment's flag `<key>_experiment_percentage`; the experiment key drops that. */
export const experimentKey = (definition: FlagDefinition) => definition.name.replace(/_experiment_percentage$/, '');

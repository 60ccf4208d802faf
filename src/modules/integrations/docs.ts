import { KINDS, type ParamDef } from './registry.ts';

const describeParam = (param: ParamDef) => {
  const parts = [`\`${param.name}\``, param.type, param.required ? 'required' : 'optional'];
  if (param.default !== undefined) parts.push(`default \`${param.default}\``);
  if (param.values) parts.push(`one of ${param.values.map((v) => `\`${v}\``).join(', ')}`);
  if (param.secret) parts.push('secret');
  if (param.url) parts.push('http(s) URL');
  if (param.deprecated) parts.push(param.deprecated === 'ignored' ? 'deprecated, ignored' : 'deprecated');
  if (param.aliases?.length) parts.push(`alias ${param.aliases.map((a) => `\`${a}\``).join(', ')}`);
  return parts.join(' ');
};

/** The README's table of integration kinds, from the registry (`npm run docs:integrations` writes it). */
export function integrationsTable(): string {
  const rows = KINDS.map(
    (kind) =>
      `| \`${kind.slug}\` | ${kind.title}${kind.developmentOnly ? ' (development mode only)' : ''} | ${kind.kind} | ${kind.delivery} | ${kind.params.map(describeParam).join('; ')} |`,
  );
  return ['| Slug | Title | Kind | Delivery | Parameters |', '|---|---|---|---|---|', ...rows].join('\n');
}

export const TABLE_START = '<!-- integrations-table:start -->';
export const TABLE_END = '<!-- integrations-table:end -->';

/** The README with its table section replaced by the current one. */
export const withTable = (readme: string) =>
  readme.replace(new RegExp(`${TABLE_START}[\\s\\S]*?${TABLE_END}`), `${TABLE_START}\n${integrationsTable()}\n${TABLE_END}`);

/**
 * A repository's languages as GitLab's `GET /projects/:id/languages` reports them: each
 * language's share of the bytes of the files recognised, in percent with two decimals, largest
 * first. Files are recognised by their extension (or their whole name); others do not count,
 * prose (Markdown, text) included, as Linguist's language statistics leave it out.
 */
const BY_EXTENSION: Record<string, string> = {
  rb: 'Ruby',
  rake: 'Ruby',
  gemspec: 'Ruby',
  js: 'JavaScript',
  mjs: 'JavaScript',
  cjs: 'JavaScript',
  jsx: 'JavaScript',
  ts: 'TypeScript',
  mts: 'TypeScript',
  cts: 'TypeScript',
  tsx: 'TSX',
  py: 'Python',
  go: 'Go',
  rs: 'Rust',
  java: 'Java',
  kt: 'Kotlin',
  scala: 'Scala',
  swift: 'Swift',
  c: 'C',
  h: 'C',
  cc: 'C++',
  cpp: 'C++',
  cxx: 'C++',
  hpp: 'C++',
  hh: 'C++',
  cs: 'C#',
  m: 'Objective-C',
  php: 'PHP',
  pl: 'Perl',
  lua: 'Lua',
  r: 'R',
  ex: 'Elixir',
  exs: 'Elixir',
  erl: 'Erlang',
  hs: 'Haskell',
  clj: 'Clojure',
  dart: 'Dart',
  groovy: 'Groovy',
  vue: 'Vue',
  svelte: 'Svelte',
  sh: 'Shell',
  bash: 'Shell',
  zsh: 'Shell',
  ps1: 'PowerShell',
  html: 'HTML',
  htm: 'HTML',
  css: 'CSS',
  scss: 'SCSS',
  sass: 'Sass',
  less: 'Less',
  haml: 'Haml',
  erb: 'HTML+ERB',
  sql: 'PLpgSQL',
  graphql: 'GraphQL',
  tf: 'HCL',
  nix: 'Nix',
};

const BY_NAME: Record<string, string> = { Dockerfile: 'Dockerfile', Makefile: 'Makefile', Rakefile: 'Ruby', Gemfile: 'Ruby' };

export type LanguageShare = { name: string; share: number };

function languageOf(path: string): string | null {
  const name = path.slice(path.lastIndexOf('/') + 1);
  if (BY_NAME[name]) return BY_NAME[name];
  const dot = name.lastIndexOf('.');
  return dot > 0 ? (BY_EXTENSION[name.slice(dot + 1).toLowerCase()] ?? null) : null;
}

export function languageShares(files: { path: string; bytes: number }[]): LanguageShare[] {
  const bytes = new Map<string, number>();
  for (const file of files) {
    const language = languageOf(file.path);
    if (language) bytes.set(language, (bytes.get(language) ?? 0) + file.bytes);
  }
  const total = [...bytes.values()].reduce((sum, n) => sum + n, 0);
  if (!total) return [];
  return [...bytes]
    .map(([name, n]) => ({ name, share: Math.round((n / total) * 10_000) / 100 }))
    .sort((a, b) => b.share - a.share || a.name.localeCompare(b.name));
}

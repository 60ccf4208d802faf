/**
 * git-check-ref-format rules for one branch or tag name, checked before any name reaches git.
 * A leading '-' is refused too, so a name can never be read as a command-line option.
 */
export function isValidRefName(name: string): boolean {
  if (name.length === 0 || name.length > 255) return false;
  if (name.startsWith('-') || name.startsWith('/') || name.endsWith('/') || name.endsWith('.')) return false;
  if (name.endsWith('.lock') || name.includes('..') || name.includes('//') || name.includes('@{') || name === '@') return false;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: git refuses control bytes in ref names (git-check-ref-format)
  if (/[\x00-\x20\x7f~^:?*[\\]/.test(name)) return false;
  return name.split('/').every((part) => part.length > 0 && !part.startsWith('.') && !part.endsWith('.lock'));
}

export const isValidBranchName = (name: string) => isValidRefName(name) && name !== 'HEAD' && !/^[0-9a-f]{40}$/.test(name);

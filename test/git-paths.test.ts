// Unit tests of the checks every file path and ref passes before it reaches git: the whole hostile
// corpus runs here in microseconds; test/repository-files.test.ts sends a sample of it over HTTP.
import { describe, expect, it } from 'vitest';
import { checkFilePath, isStorablePath } from '../src/git/paths.ts';
import { isAcceptableRef } from '../src/git/repository.ts';
import { isValidBranchName } from '../src/git/refs.ts';

describe('checkFilePath (GitLab path traversal rule), on paths as the router decodes them', () => {
  it('refuses traversal, absolute paths, control characters and oversized paths', () => {
    const refused = [
      '../outside.txt',
      '../../outside.txt',
      '..\\..\\outside.txt',
      'a/../../b',
      '..',
      '.',
      'README.md/..',
      './..',
      'a/..',
      // Encoded once more: GitLab decodes a second time before judging, so does forgegate.
      '%2e%2e%2foutside.txt',
      '%2E%2E',
      'a%2F..%2F..%2Fb',
      '/etc/passwd',
      '/',
      'README.md\0.txt',
      '\0',
      'a\nb',
      'a\rb',
      '',
      'x'.repeat(4097),
      'é'.repeat(2049),
    ];
    for (const path of refused) expect(checkFilePath(path), JSON.stringify(path)).toBeNull();
  });

  it('accepts odd but harmless names as they are: they are looked up in the tree, never run', () => {
    const accepted = [
      'README.md',
      'd/'.repeat(400) + 'f',
      '--upload-pack=touch /tmp/pwned',
      '-',
      '-n',
      'HEAD',
      '~',
      ':README.md',
      'main:README.md',
      ':main',
      '.git/config',
      'a//b',
      'a..b',
      '...',
      '.hidden',
      'dir/.hidden',
      'x'.repeat(4096),
      'ünïcødé.txt',
      'a b.txt',
      '%zz',
    ];
    for (const path of accepted) expect(checkFilePath(path), JSON.stringify(path)).toBe(path);
  });

  it('stores only paths git can hold as tree entries', () => {
    for (const path of ['a//b', '.git/config', 'a/.GIT/b', 'dir/', './a', 'a/./b']) expect(isStorablePath(path), path).toBe(false);
    for (const path of ['a/b', '.gitignore', 'a/.git-keep', '...']) expect(isStorablePath(path), path).toBe(true);
  });
});

describe('refs a user may name', () => {
  it('refuses options, revision syntax and malformed names before libgit2 sees them', () => {
    const refused = [
      '--upload-pack=touch /tmp/pwned',
      '-n',
      '..',
      'main..HEAD',
      'main:README.md',
      'main^{tree}',
      'HEAD~100',
      '@{-1}',
      '@',
      'x'.repeat(300),
      'refs/heads/../../config',
      'main\0',
      'a b',
      'a\nb',
      'feature.lock',
      'a/',
      '/a',
      'a//b',
      '.hidden',
      'end.',
      '',
    ];
    for (const ref of refused) expect(isAcceptableRef(ref), JSON.stringify(ref)).toBe(false);
  });

  it('accepts branch and tag names, HEAD and commit SHAs', () => {
    const accepted = ['main', 'HEAD', 'feature/x', 'v1.0', 'debian/2.0', 'abcd', 'a'.repeat(40), '$(id)', 'main%00', '%2Fetc%2Fpasswd'];
    for (const ref of accepted) expect(isAcceptableRef(ref), JSON.stringify(ref)).toBe(true);
  });

  it('refuses branch names that are options, ranges, NUL, HEAD or traversal', () => {
    for (const branch of ['--upload-pack=x', '-b', 'a..b', 'x\0y', 'HEAD', 'refs/heads/../x', 'a'.repeat(40)]) {
      expect(isValidBranchName(branch), JSON.stringify(branch)).toBe(false);
    }
    expect(isValidBranchName('feature/x')).toBe(true);
  });
});

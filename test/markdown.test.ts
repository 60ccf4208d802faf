import MarkdownIt from 'markdown-it';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderMarkdown } from '../src/modules/releases/markdown.ts';

afterEach(() => vi.restoreAllMocks());

describe('renderMarkdown', () => {
  it('renders a description once, then answers the same HTML from its cache', () => {
    const render = vi.spyOn(MarkdownIt.prototype, 'render');
    const text = `The **first** release ${Math.random()}`;
    const html = renderMarkdown(text);
    expect(html).toMatch(/^<p>The <strong>first<\/strong> release /);
    expect(renderMarkdown(text)).toBe(html);
    expect(render).toHaveBeenCalledTimes(1);
    // Positive control: another text is rendered, and so is one too long to keep.
    expect(renderMarkdown(`${text} (edited)`)).toContain('(edited)');
    const long = `# Notes\n\n${'x'.repeat(17 * 1024)}`;
    renderMarkdown(long);
    renderMarkdown(long);
    expect(render).toHaveBeenCalledTimes(4);
  });
});

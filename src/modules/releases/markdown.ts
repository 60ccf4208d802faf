import MarkdownIt from 'markdown-it';
import { BoundedCache } from '../../core/bounded-cache.ts';

// Raw HTML is escaped and markdown-it refuses javascript:/vbscript:/data: links by default, so the
// output is safe to embed without a separate sanitizer.
const markdown = new MarkdownIt({ html: false, linkify: true });

/** Texts kept rendered, and the longest kept: at most ~16 MB of markdown, plus its HTML. */
const RENDERED_TEXTS = 1_000;
const CACHED_TEXT_LENGTH = 16 * 1024;

// Keyed by the text itself, so an entry never goes stale; an edited description is a new key.
const rendered = new BoundedCache<string, string>(RENDERED_TEXTS);

/**
 * Markdown as HTML, rendered once per text: lists with `include_html_description` render the
 * same descriptions on every request. Texts longer than CACHED_TEXT_LENGTH (rare, up to the
 * column's size) are rendered each time rather than kept.
 */
export function renderMarkdown(source: string): string {
  if (source.length > CACHED_TEXT_LENGTH) return markdown.render(source);
  return rendered.get(source) ?? rendered.set(source, markdown.render(source));
}

/** One line of markdown as inline HTML, without a paragraph (GitLab's single-line pipeline, for titles). */
export function renderInlineMarkdown(source: string): string {
  return markdown.renderInline(source);
}

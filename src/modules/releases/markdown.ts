import MarkdownIt from 'markdown-it';

// Raw HTML is escaped and markdown-it refuses javascript:/vbscript:/data: links by default, so the
// output is safe to embed without a separate sanitizer.
const markdown = new MarkdownIt({ html: false, linkify: true });

export const renderMarkdown = (source: string) => markdown.render(source);

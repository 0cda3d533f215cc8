import MarkdownIt from "markdown-it";

/**
 * Markdown a researcher wrote (a consent text) as HTML that is safe to insert: raw HTML in the source
 * is shown as text, and links may only go to http(s) and mailto addresses (markdown-it's own check
 * already refuses javascript:, vbscript:, file: and data: links). Links open in a new tab so a
 * participant reading the consent form does not leave the study.
 */
const md = new MarkdownIt({ html: false, linkify: true, typographer: true });
const renderLink = md.renderer.rules.link_open;
md.renderer.rules.link_open = (tokens, index, options, env, self) => {
  const token = tokens[index];
  if (token) {
    token.attrSet("target", "_blank");
    token.attrSet("rel", "noopener noreferrer");
  }
  return renderLink
    ? renderLink(tokens, index, options, env, self)
    : self.renderToken(tokens, index, options);
};

export function renderMarkdown(source: string): string {
  return md.render(source);
}

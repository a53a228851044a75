/** Lays a page out at the device's width: without it a phone shows a desktop's layout shrunk. */
export const VIEWPORT = '<meta name="viewport" content="width=device-width, initial-scale=1">';

/**
 * A page the server writes whole for someone who followed a link holding a secret (an
 * invitation, an offer): never indexed, and the link is never sent on as a referrer.
 * `title` and `body` are HTML already escaped by the caller.
 */
export function linkPage(page: {
  lang: string;
  title: string;
  style: string;
  body: string;
  script?: string;
}) {
  return `<!doctype html>
<html lang="${page.lang}">
<head>
<meta charset="utf-8">
${VIEWPORT}
<meta name="robots" content="noindex, nofollow">
<meta name="referrer" content="no-referrer">
<title>${page.title}</title>
<link rel="icon" href="data:,">
<style>${page.style}</style>
${page.script ? `<script src="${page.script}" defer></script>\n` : ''}</head>
<body>
<main>
${page.body}
</main>
</body>
</html>
`;
}

/**
 * The page every dashboard screen is drawn in: no inline script or style, so the policy allows
 * only the dashboard's own files, and the API on the same origin.
 */
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  'img-src data:',
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export const SHELL_HEADERS: Record<string, string> = {
  'Content-Security-Policy': CSP,
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-cache',
  'X-Robots-Tag': 'noindex, nofollow',
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
};

/** The HTML of `/staff/`: the styles, the entry and its static imports preloaded, and a mount point. */
export function dashboardPage(initialFiles: string[]): string {
  const preloads = initialFiles
    .filter((file) => file.startsWith('chunks/') && file.endsWith('.js'))
    .map((file) => `<link rel="modulepreload" href="/staff/${file}">\n`)
    .join('');
  const styles = initialFiles.includes('app.css') ? '<link rel="stylesheet" href="/staff/app.css">\n' : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<title>Slotwise</title>
<link rel="icon" href="data:,">
${styles}${preloads}<script type="module" src="/staff/app.js"></script>
</head>
<body>
<div id="app"></div>
<noscript><p>The Slotwise dashboard needs JavaScript.</p></noscript>
</body>
</html>
`;
}

import { render } from 'preact';
import { restoreSession } from './api.ts';
import { App } from './app.tsx';
import { pickLanguage, switchLanguage } from './i18n.ts';
import { report } from './problems.ts';

addEventListener('unhandledrejection', (event) => report(event.reason));

// The browser's language until a business's own is known; the tab's session again after a reload.
await Promise.all([switchLanguage(pickLanguage(navigator.language)), restoreSession()]).catch(report);
render(<App />, document.getElementById('app')!);

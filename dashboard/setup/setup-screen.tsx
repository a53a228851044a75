import type { TextKey } from '../i18n.ts';
import { t } from '../i18n.ts';
import type { ScreenProps } from '../router.ts';
import { hrefOf } from '../router.ts';
import { SECTIONS } from '../settings/sections.ts';
import { SectionBody } from '../settings/settings-screen.tsx';
import { venue } from '../venue.ts';

/** The set-up's steps after a venue is made: settings sections, in the order a venue needs them. */
const STEPS = ['tables', 'hours', 'periods'].map((id) => SECTIONS.find((section) => section.id === id)!);

const HINTS: Record<string, TextKey> = {
  tables: 'setupTablesHint',
  hours: 'setupHoursHint',
  periods: 'setupPeriodsHint',
};

/** `#/setup/<step>`: a new venue's tables, hours and periods, one after the other, then where guests book. */
export default function SetupScreen({ params }: ScreenProps) {
  const index =
    params[0] === 'ready'
      ? STEPS.length
      : Math.max(
          0,
          STEPS.findIndex((s) => s.id === params[0]),
        );
  const step = STEPS[index];
  const total = STEPS.length + 1;
  const previous = index > 0 ? hrefOf('setup', STEPS[index - 1]!.id) : undefined;
  const next = hrefOf('setup', STEPS[index + 1]?.id ?? 'ready');
  return (
    <div class="setup">
      <h1>{t('setupTitle', { name: venue.value!.name })}</h1>
      <p class="setup-progress">{t('setupProgress', { step: index + 1, total })}</p>
      {step ? (
        <section class="settings-section" aria-labelledby="setup-step">
          <h2 id="setup-step">{t(step.label)}</h2>
          <p class="hint">{t(HINTS[step.id]!)}</p>
          <SectionBody section={step} />
        </section>
      ) : (
        <Ready />
      )}
      <nav class="setup-nav" aria-label={t('setupSteps')}>
        {previous && <a href={previous}>{t('setupBack')}</a>}
        {step ? (
          <a class="button" href={next}>
            {t('setupNext')}
          </a>
        ) : (
          <a class="button" href={hrefOf('today')}>
            {t('setupOpenToday')}
          </a>
        )}
      </nav>
    </div>
  );
}

/** Where guests book: the venue's own page, and the snippet for a website of its own. */
function Ready() {
  const page = `${location.origin}/book/${venue.value!.slug}`;
  const snippet = `<script src="${location.origin}/widget/v1/slotwise.js" defer></script>\n<slotwise-booking business="${venue.value!.slug}" key="…"></slotwise-booking>`;
  return (
    <section class="settings-section" aria-labelledby="setup-step">
      <h2 id="setup-step">{t('setupReady')}</h2>
      <p>{t('setupPageIntro')}</p>
      <p>
        <a href={page} target="_blank" rel="noopener">
          {page}
        </a>
      </p>
      <p>
        {t('setupSnippetIntro')} <a href={hrefOf('settings', 'keys')}>{t('settingsKeys')}</a>
      </p>
      <pre class="snippet">
        <code>{snippet}</code>
      </pre>
    </section>
  );
}

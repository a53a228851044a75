import { addDays } from '../src/engine/time.ts';
import { t } from './i18n.ts';
import { go, hrefOf } from './router.ts';

/**
 * The days of a screen that shows one day at a time (`#/<screen>/<date>`): the day before,
 * today, the day after, and any date picked.
 */
export function DayNav({ screen, date, today }: { screen: string; date: string; today: string }) {
  return (
    <nav class="day-nav" aria-label={t('date')}>
      <a class="button" href={hrefOf(screen, addDays(date, -1))}>
        <span aria-hidden="true">← </span>
        {t('previousDay')}
      </a>
      <a class="button" href={hrefOf(screen, today)} aria-current={date === today ? 'date' : undefined}>
        {t('today')}
      </a>
      <a class="button" href={hrefOf(screen, addDays(date, 1))}>
        {t('nextDay')}
        <span aria-hidden="true"> →</span>
      </a>
      <label class="date">
        <span>{t('date')}</span>
        <input
          type="date"
          value={date}
          onChange={(event) => event.currentTarget.value && go(screen, event.currentTarget.value)}
        />
      </label>
    </nav>
  );
}

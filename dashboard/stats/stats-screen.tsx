import { useMemo, useState } from 'preact/hooks';
import { todayIn } from '../../src/engine/time.ts';
import { ApiError, call } from '../api.ts';
import { versionOf } from '../changes.ts';
import { isDate } from '../dates.ts';
import { CsvDownload } from '../download.tsx';
import { language, t } from '../i18n.ts';
import { useLatest } from '../latest.ts';
import { problem, report } from '../problems.ts';
import type { ScreenProps } from '../router.ts';
import { go } from '../router.ts';
import { venue, venueMinutes } from '../venue.ts';
import { BarChart } from './bar-chart.tsx';
import { datesBetween, type PeriodKind, periodOf } from './period.ts';

type Stats = Awaited<ReturnType<typeof loadStats>>;

const loadStats = (from: string, to: string) =>
  call((api) => api.GET('/v1/manage/stats', { params: { query: { from_date: from, to_date: to } } }));

const PRESETS: { kind: Exclude<PeriodKind, 'custom'>; label: 'statsWeek' | 'statsMonth' | 'stats30Days' }[] =
  [
    { kind: 'week', label: 'statsWeek' },
    { kind: 'month', label: 'statsMonth' },
    { kind: '30days', label: 'stats30Days' },
  ];

/** A venue's date (its wall clock) as a UTC instant, so the reader's zone never shifts it. */
const wall = (date: string) => new Date(`${date}T12:00:00Z`);

/** The numbers of the screen, written the way the dashboard's language writes them. */
function formatsOf(lang: string) {
  const number = new Intl.NumberFormat(lang, { maximumFractionDigits: 1 });
  const share = new Intl.NumberFormat(lang, { style: 'percent', maximumFractionDigits: 1 });
  // The axis's steps may be finer than the figures' one decimal (0.25 %).
  const axisShare = new Intl.NumberFormat(lang, { style: 'percent', maximumFractionDigits: 2 });
  const dayShort = new Intl.DateTimeFormat(lang, { timeZone: 'UTC', day: 'numeric', month: 'short' });
  const range = new Intl.DateTimeFormat(lang, {
    timeZone: 'UTC',
    day: 'numeric',
    month: 'long',
    year: 'numeric',
  });
  return {
    number: (value: number) => number.format(value),
    percent: (value: number) => share.format(value / 100),
    axisPercent: (value: number) => axisShare.format(value / 100),
    day: (date: string) => dayShort.format(wall(date)),
    period: (from: string, to: string) => range.formatRange(wall(from), wall(to)),
  };
}

/** The hours from the first to the last that has bookings, each with its bookings and guests. */
function hourly(stats: Stats) {
  const hours = stats.busy_hours.map((entry) => entry.hour);
  if (!hours.length) return [];
  const first = Math.min(...hours);
  return Array.from({ length: Math.max(...hours) - first + 1 }, (_, index) => {
    const found = stats.busy_hours.find((entry) => entry.hour === first + index);
    return { hour: first + index, count: found?.count ?? 0, covers: found?.covers ?? 0 };
  });
}

/** Every day of the period, in date order, each with its bookings and guests. */
const daily = (stats: Stats) =>
  datesBetween(stats.period.from, stats.period.to).map((date) => {
    const found = stats.busy_days.find((entry) => entry.date === date);
    return { date, count: found?.count ?? 0, covers: found?.covers ?? 0 };
  });

/** Statistics of a period (`#/stats/week`, `/month`, `/30days`, `/<from>/<to>`): figures and charts. */
export default function StatsScreen({ params }: ScreenProps) {
  const { timezone } = venue.value!;
  const period = periodOf(params, todayIn(timezone, Date.now()));
  const [stats, setStats] = useState<Stats | null>(null);
  const [customOpen, setCustomOpen] = useState(false);
  const [showTables, setShowTables] = useState(false);
  const version = versionOf('bookings');
  const lang = language.value;
  const format = useMemo(() => formatsOf(lang), [lang]);

  const [failed, setFailed] = useState(false);

  useLatest(
    () => {
      setFailed(false);
      return loadStats(period.from, period.to);
    },
    setStats,
    [period.from, period.to, version],
    (error) => {
      setFailed(true);
      // The presets are always accepted; a range of one's own may be longer than the API allows.
      if (error instanceof ApiError && error.status === 422) problem.value = t('statsRangeRefused');
      else report(error);
    },
  );

  const shown = stats?.period.from === period.from && stats.period.to === period.to ? stats : null;
  const custom = customOpen || period.kind === 'custom';

  const applyCustom = (event: SubmitEvent) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const [from, to] = [String(form.get('from')), String(form.get('to'))];
    if (isDate(from) && isDate(to)) go('stats', ...(to < from ? [to, from] : [from, to]));
  };

  return (
    <div class="stats">
      <h1>{t('statsTitle')}</h1>
      <div class="toolbar">
        <fieldset class="views">
          <legend class="sr-only">{t('statsPeriod')}</legend>
          {PRESETS.map((preset) => (
            <button
              key={preset.kind}
              type="button"
              aria-pressed={!custom && period.kind === preset.kind}
              onClick={() => {
                setCustomOpen(false);
                go('stats', preset.kind);
              }}
            >
              {t(preset.label)}
            </button>
          ))}
          <button type="button" aria-pressed={custom} onClick={() => setCustomOpen(true)}>
            {t('statsCustom')}
          </button>
        </fieldset>
        <button
          type="button"
          class="quiet"
          aria-pressed={showTables}
          onClick={() => setShowTables(!showTables)}
        >
          {t('statsShowTables')}
        </button>
        <CsvDownload
          filename={`stats-${period.from}-${period.to}.csv`}
          load={() =>
            call((api) =>
              api.GET('/v1/manage/stats.csv', {
                params: { query: { from_date: period.from, to_date: period.to } },
                parseAs: 'blob',
              }),
            )
          }
        />
      </div>
      {custom && (
        <form class="stats-range" key={`${period.from}/${period.to}`} onSubmit={applyCustom}>
          <label class="date">
            <span>{t('statsFrom')}</span>
            <input type="date" name="from" required defaultValue={period.from} />
          </label>
          <label class="date">
            <span>{t('statsTo')}</span>
            <input type="date" name="to" required defaultValue={period.to} />
          </label>
          <button type="submit">{t('statsShow')}</button>
        </form>
      )}
      {failed ? null : !shown ? (
        <p role="status">{t('loading')}</p>
      ) : (
        <StatsBody stats={shown} format={format} showTables={showTables} />
      )}
    </div>
  );
}

function StatsBody({
  stats,
  format,
  showTables,
}: {
  stats: Stats;
  format: ReturnType<typeof formatsOf>;
  showTables: boolean;
}) {
  const { bookings, rates, capacity } = stats;
  const hours = hourly(stats);
  const days = daily(stats);
  const hourLabel = (hour: number) => venueMinutes(hour * 60);
  const rateRows = [
    { label: t('statsNoShows'), pct: rates.no_show_pct, count: bookings.no_show },
    { label: t('statsCancelled'), pct: rates.cancellation_pct, count: bookings.cancelled },
    { label: t('statsCompleted'), pct: rates.completion_pct, count: bookings.completed },
  ];
  const summary = [
    { term: t('statsBookings'), value: format.number(bookings.total) },
    { term: t('statsGuests'), value: format.number(capacity.total_covers) },
    { term: t('statsAvgParty'), value: format.number(capacity.avg_party_size) },
    { term: t('statsNoShowRate'), value: format.percent(rates.no_show_pct) },
    { term: t('statsCancelRate'), value: format.percent(rates.cancellation_pct) },
  ];
  return (
    <>
      <p class="summary" role="status">
        {format.period(stats.period.from, stats.period.to)}
      </p>
      <dl class="stats-figures">
        {summary.map((item) => (
          <div key={item.term}>
            <dt>{item.term}</dt>
            <dd>{item.value}</dd>
          </div>
        ))}
      </dl>
      {!bookings.total ? (
        <p>{t('statsNone')}</p>
      ) : (
        <div class="charts">
          <BarChart
            caption={t('statsCoversPerHour')}
            labelHeading={t('statsHour')}
            labels={hours.map((entry) => hourLabel(entry.hour))}
            values={hours.map((entry) => entry.covers)}
            formatValue={format.number}
            whole
            columns={[
              { heading: t('statsGuests'), cells: hours.map((entry) => format.number(entry.covers)) },
              { heading: t('statsBookings'), cells: hours.map((entry) => format.number(entry.count)) },
            ]}
            showTable={showTables}
          />
          <BarChart
            caption={t('statsBookingsPerDay')}
            labelHeading={t('statsDay')}
            labels={days.map((entry) => format.day(entry.date))}
            values={days.map((entry) => entry.count)}
            formatValue={format.number}
            whole
            columns={[
              { heading: t('statsBookings'), cells: days.map((entry) => format.number(entry.count)) },
              { heading: t('statsGuests'), cells: days.map((entry) => format.number(entry.covers)) },
            ]}
            showTable={showTables}
          />
          <BarChart
            caption={t('statsRates')}
            labelHeading={t('statsOutcome')}
            labels={rateRows.map((row) => row.label)}
            values={rateRows.map((row) => row.pct)}
            formatValue={format.axisPercent}
            columns={[
              { heading: t('statsShare'), cells: rateRows.map((row) => format.percent(row.pct)) },
              { heading: t('statsBookings'), cells: rateRows.map((row) => format.number(row.count)) },
            ]}
            showTable={showTables}
          />
          <BarChart
            caption={t('statsTableUse')}
            labelHeading={t('statsTable')}
            labels={stats.top_resources.map((resource) => resource.resource_name)}
            values={stats.top_resources.map((resource) => resource.utilization_pct)}
            formatValue={format.axisPercent}
            columns={[
              {
                heading: t('statsUse'),
                cells: stats.top_resources.map((resource) => format.percent(resource.utilization_pct)),
              },
              {
                heading: t('statsBookings'),
                cells: stats.top_resources.map((resource) => format.number(resource.booking_count)),
              },
            ]}
            showTable={showTables}
          />
        </div>
      )}
    </>
  );
}

import { Dialog } from '../dialog.tsx';
import { t } from '../i18n.ts';
import { BookingLines } from './booking-list.tsx';
import { timeRange } from './booking-text.ts';
import { type BookingItem, type DayPlan, placesTaken, tableNames } from './day-plan.ts';

/**
 * A class's participants, opened from its block: its places, then a line per booking as the day's
 * list draws them, each opening that booking's panel (where one participant is moved or cancelled).
 */
export function ClassDialog({
  plan,
  item,
  onSelect,
  onClose,
}: {
  plan: DayPlan;
  item: BookingItem;
  onSelect: (item: BookingItem) => void;
  onClose: () => void;
}) {
  const { name, seats } = item.ofClass!;
  const taken = placesTaken(item);
  return (
    <Dialog
      title={t('classTitle', { name, time: timeRange(item), room: tableNames(plan, item).join(' + ') })}
      onClose={onClose}
    >
      <p>{t('classPlaces', { taken, seats, left: Math.max(0, seats - taken) })}</p>
      <BookingLines plan={plan} items={[item, ...item.classmates]} onSelect={onSelect} />
    </Dialog>
  );
}

import { useState } from 'preact/hooks';
import { PARTY_SIZE_MAX } from '../../src/engine/party.ts';
import { call } from '../api.ts';
import { Dialog } from '../dialog.tsx';
import { t } from '../i18n.ts';
import { report } from '../problems.ts';
import { TimeInput } from '../time-input.tsx';
import { venue } from '../venue.ts';

/**
 * A guest who called, put on the waitlist: the public join route, which a staff token makes a
 * trusted caller (the customer's record takes the name and email given, as a staff booking does).
 */
export function AddEntryDialog({
  date,
  onAdded,
  onClose,
}: {
  date: string;
  onAdded: (name: string) => void;
  onClose: () => void;
}) {
  const [fields, setFields] = useState({
    capacity: '2',
    preferred_date: date,
    from: '',
    to: '',
    first_name: '',
    last_name: '',
    phone: '',
    email: '',
    notes: '',
  });
  const [busy, setBusy] = useState(false);
  const field = (name: keyof typeof fields) => ({
    value: fields[name],
    onInput: (event: { currentTarget: HTMLInputElement | HTMLTextAreaElement }) =>
      setFields({ ...fields, [name]: event.currentTarget.value }),
  });
  const timeField = (name: 'from' | 'to') => ({
    value: fields[name],
    onTime: (time: string) => setFields({ ...fields, [name]: time }),
  });

  async function submit(event: SubmitEvent) {
    event.preventDefault();
    setBusy(true);
    const trimmed = (value: string) => value.trim() || null;
    try {
      await call((api) =>
        api.POST('/v1/waitlist/{business_id}', {
          params: { path: { business_id: venue.value!.id } },
          body: {
            customer: {
              first_name: fields.first_name.trim(),
              last_name: fields.last_name.trim(),
              phone: fields.phone.trim(),
              email: trimmed(fields.email),
            },
            preferred_date: fields.preferred_date || null,
            capacity: Number(fields.capacity),
            notes: trimmed(fields.notes),
            preferred_time_from: fields.from || null,
            preferred_time_to: fields.to || null,
          },
        }),
      );
      onAdded(`${fields.first_name.trim()} ${fields.last_name.trim()}`);
    } catch (error) {
      report(error);
      setBusy(false);
    }
  }

  // A window is given whole or not at all: either end asks for the other.
  const windowWanted = Boolean(fields.from || fields.to);
  return (
    <Dialog title={t('waitAdd')} onClose={onClose}>
      <form class="new-booking" onSubmit={submit}>
        <div class="new-when">
          <label>
            <span>{t('party')}</span>
            <input
              type="number"
              inputMode="numeric"
              min={1}
              max={PARTY_SIZE_MAX}
              required
              autoFocus
              {...field('capacity')}
            />
          </label>
          <label>
            <span>{t('date')}</span>
            <input type="date" {...field('preferred_date')} />
          </label>
          <label>
            <span>{t('waitFrom')}</span>
            <TimeInput required={windowWanted} {...timeField('from')} />
          </label>
          <label>
            <span>{t('waitTo')}</span>
            <TimeInput required={windowWanted} {...timeField('to')} />
          </label>
        </div>
        <div class="new-guest">
          <label>
            <span>{t('newFirstName')}</span>
            <input required maxLength={100} autoComplete="off" {...field('first_name')} />
          </label>
          <label>
            <span>{t('newLastName')}</span>
            <input required maxLength={100} autoComplete="off" {...field('last_name')} />
          </label>
          <label>
            <span>{t('phone')}</span>
            <input type="tel" required maxLength={40} autoComplete="off" {...field('phone')} />
          </label>
          <label>
            <span>{t('email')}</span>
            <input type="email" maxLength={254} autoComplete="off" {...field('email')} />
          </label>
          <label class="wide">
            <span>{t('notes')}</span>
            <textarea maxLength={1000} rows={2} {...field('notes')} />
          </label>
        </div>
        <div class="sheet-actions">
          <button type="submit" disabled={busy}>
            {t('waitAddSubmit')}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

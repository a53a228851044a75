/**
 * A guest's profile on their page: what the staff keep (allergies first, tags, notes) with a form
 * to change it, and the guest's privacy rights: a download of everything held, and erasure behind
 * the guest's name typed again.
 */
import { useId, useState } from 'preact/hooks';
import { dataChanged } from '../changes.ts';
import { saveJson } from '../download.tsx';
import { t } from '../i18n.ts';
import { report } from '../problems.ts';
import { Field, mayChange, TextArea, useSaving } from '../settings/form.tsx';
import {
  type CustomerRecord,
  eraseCustomer,
  exportCustomer,
  fullName,
  saveProfile,
  tagsOf,
} from './customer-data.ts';

/** Allergies (an icon with the word, never colour alone), tags as chips and the staff's notes. */
export function ProfileFacts({ customer }: { customer: CustomerRecord }) {
  return (
    <div class="profile-facts">
      {customer.allergies && (
        <p class="allergy">
          <span aria-hidden="true">⚠ </span>
          <strong>{t('profileAllergies')}:</strong> {customer.allergies}
        </p>
      )}
      {customer.tags.length > 0 && (
        <ul class="tags" aria-label={t('profileTags')}>
          {customer.tags.map((tag) => (
            <li key={tag}>{tag}</li>
          ))}
        </ul>
      )}
      {customer.staff_notes && (
        <p class="staff-notes">
          <strong>{t('profileStaffNotes')}:</strong> {customer.staff_notes}
        </p>
      )}
    </div>
  );
}

/** The profile's form; `titled` false where a heading around it already names it (the booking panel). */
export function ProfileForm({ customer, titled = true }: { customer: CustomerRecord; titled?: boolean }) {
  const headingId = useId();
  const saving = useSaving();
  const [tags, setTags] = useState(customer.tags.join(', '));
  const [allergies, setAllergies] = useState(customer.allergies ?? '');
  const [notes, setNotes] = useState(customer.staff_notes ?? '');
  return (
    <form
      class="profile-form settings-form"
      {...(titled ? { 'aria-labelledby': headingId } : { 'aria-label': t('profileEdit') })}
      onSubmit={(event) => {
        event.preventDefault();
        saving.submit(() =>
          saveProfile(customer.id, {
            tags: tagsOf(tags),
            allergies: allergies || null,
            staff_notes: notes || null,
          }),
        );
      }}
    >
      {titled && <h3 id={headingId}>{t('profileEdit')}</h3>}
      <TextArea
        field="allergies"
        label={t('profileAllergies')}
        errors={saving.errors}
        value={allergies}
        onValue={setAllergies}
        maxLength={500}
      />
      <Field
        field="tags"
        label={t('profileTags')}
        hint={t('profileTagsHint')}
        errors={saving.errors}
        value={tags}
        onValue={setTags}
        maxLength={900}
      />
      <TextArea
        field="staff_notes"
        label={t('profileStaffNotes')}
        errors={saving.errors}
        value={notes}
        onValue={setNotes}
        maxLength={2000}
      />
      <button type="submit" disabled={saving.busy}>
        {t('profileSave')}
      </button>
      <p role="status">{saving.done}</p>
    </form>
  );
}

export function Privacy({ customer }: { customer: CustomerRecord }) {
  const [typed, setTyped] = useState('');
  const [said, setSaid] = useState('');
  if (!mayChange()) return null;
  const name = fullName(customer);
  const erase = async () => {
    try {
      await eraseCustomer(customer.id);
      setSaid(t('privacyErased'));
      dataChanged('bookings');
    } catch (error) {
      report(error);
    }
  };
  return (
    <section class="privacy" aria-labelledby="privacy-title">
      <h3 id="privacy-title">{t('privacyTitle')}</h3>
      <button
        type="button"
        onClick={() =>
          exportCustomer(customer.id)
            .then((data) => {
              saveJson(`guest-${customer.id}.json`, data);
              setSaid(t('privacyExported'));
            })
            .catch(report)
        }
      >
        {t('privacyExport')}
      </button>
      {customer.erased_at === null && (
        <form
          class="erase"
          onSubmit={(event) => {
            event.preventDefault();
            if (typed.trim() === name) void erase();
          }}
        >
          <label for="erase-confirm">{t('privacyEraseConfirm', { name })}</label>
          <input
            id="erase-confirm"
            value={typed}
            autoComplete="off"
            aria-describedby="erase-hint"
            onInput={(event) => setTyped(event.currentTarget.value)}
          />
          <small id="erase-hint">{t('privacyEraseHint')}</small>
          <button type="submit" class="danger" disabled={typed.trim() !== name}>
            {t('privacyErase')}
          </button>
        </form>
      )}
      <p role="status">{said}</p>
    </section>
  );
}

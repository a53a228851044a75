/**
 * What every settings section's form shares: saving through the API with the refused fields'
 * messages shown beside their inputs (422 `validation_error`), and inputs labelled and tied to
 * their message for a screen reader.
 */
import type { ComponentChildren, InputHTMLAttributes } from 'preact';
import { useState } from 'preact/hooks';
import { ApiError, currentBusiness, session } from '../api.ts';
import { dataChanged } from '../changes.ts';
import { t } from '../i18n.ts';
import { clearProblem, problem, report } from '../problems.ts';
import { TimeInput } from '../time-input.tsx';

/** The API's messages by field path (`hours[2].open_time`). */
export type FieldErrors = Record<string, string>;

/** Whether the signed-in account may change the business's settings: staff members only read them. */
export const mayChange = () =>
  session.value?.kind === 'developer' || currentBusiness.value?.role === 'business_owner';

export interface Saving {
  errors: FieldErrors;
  /** A short "Saved" once the last change went through, for the section's status line. */
  done: string;
  busy: boolean;
  submit: <T>(change: () => Promise<T>, doneText?: string) => Promise<T | undefined>;
}

export function useSaving(): Saving {
  const [errors, setErrors] = useState<FieldErrors>({});
  const [done, setDone] = useState('');
  const [busy, setBusy] = useState(false);
  async function submit<T>(change: () => Promise<T>, doneText = t('settingsSaved')): Promise<T | undefined> {
    setErrors({});
    setDone('');
    setBusy(true);
    try {
      const result = await change();
      clearProblem();
      setDone(doneText);
      dataChanged();
      return result;
    } catch (error) {
      if (error instanceof ApiError && error.code === 'validation_error' && error.fields.length) {
        setErrors(Object.fromEntries(error.fields.map(({ field, message }) => [field, message])));
        problem.value = t('settingsFixFields');
      } else {
        report(error);
      }
      return undefined;
    } finally {
      setBusy(false);
    }
  }
  return { errors, done, busy, submit };
}

/** A DOM id for a field path: `hours[2].open_time` -> `f-hours-2-open_time`. */
export const fieldId = (field: string) => `f-${field.replace(/[^\w-]+/g, '-').replace(/-$/, '')}`;

/** What a field may say of its input beyond its value. */
interface InputProps {
  type?: 'text' | 'email' | 'tel' | 'url' | 'number' | 'time' | 'date' | 'password';
  required?: boolean;
  min?: number;
  max?: number;
  maxLength?: number;
  placeholder?: string;
  autoComplete?: string;
  inputMode?: 'decimal' | 'numeric';
  /** The id of a `<datalist>` of suggestions. */
  list?: string;
}

interface FieldProps extends InputProps {
  /** The field's path in the API's answers (and the key of its message in `errors`). */
  field: string;
  label: string;
  errors: FieldErrors;
  value: string;
  onValue: (value: string) => void;
  hint?: string;
}

/** A labelled input; the API's message for its field under it, announced with it. */
export function Field({ field, label, errors, value, onValue, hint, ...input }: FieldProps) {
  const id = fieldId(field);
  const error = errors[field];
  const described = [hint && `${id}-hint`, error && `${id}-error`].filter(Boolean).join(' ') || undefined;
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {input.type === 'time' ? (
        <TimeInput
          id={id}
          required={input.required}
          value={value}
          aria-invalid={error ? true : undefined}
          aria-describedby={described}
          onTime={onValue}
        />
      ) : (
        <input
          // Preact types each input type's attributes apart (no `list` on a password), which a spread of optional ones cannot show.
          {...(input as InputHTMLAttributes)}
          id={id}
          value={value}
          aria-invalid={error ? true : undefined}
          aria-describedby={described}
          onInput={(event) => onValue(event.currentTarget.value)}
        />
      )}
      {hint && (
        <small id={`${id}-hint`} class="hint">
          {hint}
        </small>
      )}
      <FieldError id={id} error={error} />
    </div>
  );
}

interface AreaProps {
  field: string;
  label: string;
  errors: FieldErrors;
  value: string;
  onValue: (value: string) => void;
  maxLength: number;
}

export function TextArea({ field, label, errors, value, onValue, maxLength }: AreaProps) {
  const id = fieldId(field);
  const error = errors[field];
  return (
    <div class="field wide">
      <label for={id}>{label}</label>
      <textarea
        id={id}
        rows={3}
        maxLength={maxLength}
        value={value}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
        onInput={(event) => onValue(event.currentTarget.value)}
      />
      <FieldError id={id} error={error} />
    </div>
  );
}

interface CheckProps {
  field: string;
  label: string;
  errors: FieldErrors;
  checked: boolean;
  onChecked: (checked: boolean) => void;
}

export function Check({ field, label, errors, checked, onChecked }: CheckProps) {
  const id = fieldId(field);
  const error = errors[field];
  return (
    <div class="field check">
      <input
        type="checkbox"
        id={id}
        checked={checked}
        aria-describedby={error ? `${id}-error` : undefined}
        onChange={(event) => onChecked(event.currentTarget.checked)}
      />
      <label for={id}>{label}</label>
      <FieldError id={id} error={error} />
    </div>
  );
}

interface ChoiceProps {
  field: string;
  label: string;
  errors: FieldErrors;
  value: string;
  onValue: (value: string) => void;
  options: { value: string; label: string }[];
}

export function Choice({ field, label, errors, value, onValue, options }: ChoiceProps) {
  const id = fieldId(field);
  const error = errors[field];
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <select
        id={id}
        value={value}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
        onChange={(event) => onValue(event.currentTarget.value)}
      >
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
      <FieldError id={id} error={error} />
    </div>
  );
}

interface VenueFieldProps {
  errors: FieldErrors;
  value: string;
  onValue: (value: string) => void;
}

/** The venue's time zone: every zone the browser knows, and the one set if the browser does not know it. */
export function TimezoneChoice({ errors, value, onValue }: VenueFieldProps) {
  const zones = Intl.supportedValuesOf('timeZone');
  return (
    <Choice
      field="timezone"
      label={t('rulesTimezone')}
      errors={errors}
      value={value}
      onValue={onValue}
      options={(zones.includes(value) ? zones : [value, ...zones]).map((zone) => ({
        value: zone,
        label: zone.replace(/_/g, ' '),
      }))}
    />
  );
}

/** The venue's country, in which national phone numbers are read; empty: the time zone's. */
export function CountryField({ errors, value, onValue }: VenueFieldProps) {
  return (
    <Field
      field="country"
      label={t('rulesCountry')}
      hint={t('rulesCountryHint')}
      errors={errors}
      value={value}
      onValue={onValue}
      maxLength={2}
      autoComplete="off"
    />
  );
}

function FieldError({ id, error }: { id: string; error: string | undefined }) {
  if (!error) return null;
  return (
    <p id={`${id}-error`} class="field-error">
      {error}
    </p>
  );
}

/**
 * A section's form: its fields disabled for an account that may only read them, a save button,
 * the status line saying it was saved, and the messages of refused fields the form does not show.
 */
export function SettingsForm({
  saving,
  onSave,
  saveLabel = t('settingsSave'),
  shown,
  children,
}: {
  saving: Saving;
  onSave: () => void;
  saveLabel?: string;
  /** The field paths the form shows a message beside; any other refused field is listed above the button. */
  shown: (field: string) => boolean;
  children: ComponentChildren;
}) {
  const readOnly = !mayChange();
  const others = Object.entries(saving.errors).filter(([field]) => !shown(field));
  return (
    <form
      class="settings-form"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        onSave();
      }}
    >
      <fieldset disabled={readOnly || saving.busy}>
        {children}
        {others.length > 0 && (
          <ul class="field-error">
            {others.map(([field, message]) => (
              <li key={field}>
                {field}: {message}
              </li>
            ))}
          </ul>
        )}
        {!readOnly && (
          <div class="form-actions">
            <button type="submit">{saveLabel}</button>
            <span role="status">{saving.done}</span>
          </div>
        )}
      </fieldset>
    </form>
  );
}

/** '' for null, the number as text otherwise: inputs hold text. */
export const text = (value: string | number | null | undefined) => (value == null ? '' : String(value));
/** An optional text: blank is null. */
export const orNull = (value: string) => (value.trim() === '' ? null : value.trim());
/** A whole number typed in an input; blank is null, anything else is sent as typed for the API to judge. */
export const numberOrNull = (value: string): number | null => (value.trim() === '' ? null : Number(value));

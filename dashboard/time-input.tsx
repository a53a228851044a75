import type { RefObject } from 'preact';
import { useId, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { readTime } from '../src/engine/clock.ts';
import { formatMinutes } from '../src/engine/time.ts';
import { t } from './i18n.ts';
import { venueTime } from './venue.ts';

/** Suggested under the field as a time is typed: every quarter of an hour. */
const QUARTERS = Array.from({ length: 96 }, (_, quarter) => formatMinutes(quarter * 15));

const shown = (time: string) => (time ? venueTime(time) : '');

interface TimeInputProps {
  id?: string;
  required?: boolean;
  disabled?: boolean;
  'aria-label'?: string;
  'aria-invalid'?: boolean;
  'aria-describedby'?: string;
  /** `HH:MM`, or '' for none. */
  value: string;
  /** `HH:MM` once what is typed reads as a time, '' while it does not (the field then says why). */
  onTime: (time: string) => void;
  /** The field, for a form that says more of it (`setCustomValidity`). */
  inputRef?: RefObject<HTMLInputElement | null>;
}

/**
 * A time field that reads as the venue's clock does, in the dashboard's language, whatever the
 * browser's own clock: a browser's time input follows the browser's locale (AM/PM beside a
 * 24-hour Today, cut short on a phone). Typed on either clock; suggests the quarters.
 */
export function TimeInput({ value, onTime, inputRef, ...input }: TimeInputProps) {
  const suggestions = useId();
  const own = useRef<HTMLInputElement>(null);
  const field = inputRef ?? own;
  // What was typed, and the time it read as ('' for none); a time set from outside (a free time
  // chosen, a form emptied) shows instead.
  const [typed, setTyped] = useState({ time: value, text: shown(value) });
  const showsTyped = typed.time === value;
  const text = showsTyped ? typed.text : shown(value);
  const unread = showsTyped && text.trim() !== '' && readTime(text) === null;
  useLayoutEffect(() => {
    field.current?.setCustomValidity(unread ? t('timeUnread', { example: venueTime('19:30') }) : '');
  }, [unread]);
  return (
    <>
      <input
        {...input}
        ref={field}
        type="text"
        inputMode="text"
        autoComplete="off"
        spellcheck={false}
        class="time-input"
        list={suggestions}
        value={text}
        onInput={(event) => {
          const entered = event.currentTarget.value;
          const time = (entered.trim() && readTime(entered)) || '';
          setTyped({ time, text: entered });
          onTime(time);
        }}
        onBlur={() => {
          if (showsTyped && value) setTyped({ time: value, text: shown(value) });
        }}
      />
      <datalist id={suggestions}>
        {QUARTERS.map((time) => (
          <option key={time} value={shown(time)} />
        ))}
      </datalist>
    </>
  );
}

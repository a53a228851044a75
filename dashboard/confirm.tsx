import type { RefObject } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

/**
 * A question asked before a change that cannot be taken back: the focus on its yes; its no gives
 * the focus back to the button that asked.
 */
export function Confirm({
  question,
  yes,
  no,
  danger = false,
  onYes,
  onNo,
  asker,
}: {
  question: string;
  yes: string;
  no: string;
  danger?: boolean;
  onYes: () => void;
  onNo: () => void;
  asker: RefObject<HTMLButtonElement | null>;
}) {
  const yesButton = useRef<HTMLButtonElement>(null);
  useEffect(() => yesButton.current?.focus(), []);
  return (
    <fieldset class="confirm">
      <legend>{question}</legend>
      <button type="button" class={danger ? 'danger' : undefined} ref={yesButton} onClick={onYes}>
        {yes}
      </button>
      <button
        type="button"
        class="quiet"
        onClick={() => {
          onNo();
          requestAnimationFrame(() => asker.current?.focus());
        }}
      >
        {no}
      </button>
    </fieldset>
  );
}

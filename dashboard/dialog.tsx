import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef } from 'preact/hooks';
import { t } from './i18n.ts';

/**
 * A modal dialog (the browser's own `<dialog>`: focus kept inside, Escape closes it), a sheet on a
 * tablet and the whole screen on a phone. It is open while it is drawn; focus goes back to what
 * opened it when it goes, unless the screen moves it on (to the booking just made, say).
 */
export function Dialog({
  title,
  onClose,
  children,
}: {
  title: string;
  onClose: () => void;
  children: ComponentChildren;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current!;
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    dialog.showModal();
    return () => {
      if (dialog.open) dialog.close();
      opener?.focus();
    };
  }, []);
  return (
    <dialog ref={ref} class="sheet" aria-labelledby={titleId} onClose={onClose}>
      <div class="sheet-head">
        <h2 id={titleId}>{title}</h2>
        <button type="button" class="quiet" onClick={onClose}>
          {t('close')}
        </button>
      </div>
      {children}
    </dialog>
  );
}

import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { t } from '../i18n.ts';

/**
 * A secret the API answers only once (a new key, a webhook's signing secret), in full: a copy
 * button, and a button to close it once stored. It takes the focus so a screen reader reads it.
 */
export function ShownOnce({
  title,
  copyLabel,
  secret,
  onClose,
  children,
}: {
  title: string;
  copyLabel: string;
  secret: string;
  onClose: () => void;
  /** What goes with the secret and is needed beside it (a partner's user name and addresses). */
  children?: ComponentChildren;
}) {
  const box = useRef<HTMLElement>(null);
  const [copied, setCopied] = useState('');
  useEffect(() => box.current?.focus(), [secret]);
  const copy = () =>
    navigator.clipboard.writeText(secret).then(
      () => setCopied(t('settingsCopied')),
      () => setCopied(t('settingsCopyFailed')),
    );
  return (
    <section class="new-key" tabIndex={-1} ref={box} aria-label={title}>
      <p>
        <strong>{title}</strong>
      </p>
      <p>
        <code class="secret">{secret}</code>
      </p>
      {children}
      <button type="button" onClick={copy}>
        {copyLabel}
      </button>{' '}
      <span role="status">{copied}</span>{' '}
      <button type="button" class="quiet" onClick={onClose}>
        {t('settingsKeyStored')}
      </button>
    </section>
  );
}

/**
 * Files the dashboard hands to the browser's downloads: a guest's export, and the CSVs of the
 * lists and statistics, fetched with the session's credentials (a plain link would carry none).
 */
import { useState } from 'preact/hooks';
import { t } from './i18n.ts';
import { report } from './problems.ts';

/** Offers `blob` as a file the browser saves. */
export function saveFile(filename: string, blob: Blob) {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

export const saveJson = (filename: string, data: unknown) =>
  saveFile(filename, new Blob([JSON.stringify(data, null, 2)], { type: 'application/json' }));

/** A button that fetches a CSV (`load`, by `call` with `parseAs: 'blob'`) and saves it as `filename`. */
export function CsvDownload({ filename, load }: { filename: string; load: () => Promise<Blob> }) {
  const [busy, setBusy] = useState(false);
  return (
    <button
      type="button"
      class="quiet csv-download"
      disabled={busy}
      onClick={() => {
        setBusy(true);
        load()
          .then((blob) => saveFile(filename, blob))
          .catch(report)
          .finally(() => setBusy(false));
      }}
    >
      <span aria-hidden="true">⤓ </span>
      {t('csvDownload')}
    </button>
  );
}

import { type Inputs, useEffect } from 'preact/hooks';
import { report } from './problems.ts';

/**
 * Loads when `inputs` change and hands the answer to `use`, or its failure to `failed` (reported
 * by default), only while that load is the latest: an answer that comes after the inputs changed
 * again, or after the screen was left, is dropped, so an older answer never overwrites a newer
 * one. `load` answering null loads nothing.
 */
export function useLatest<T>(
  load: () => Promise<T> | null,
  use: (value: T) => void,
  inputs: Inputs,
  failed: (error: unknown) => void = report,
): void {
  useEffect(() => {
    const loading = load();
    if (!loading) return;
    let latest = true;
    loading.then(
      (value) => latest && use(value),
      (error: unknown) => latest && failed(error),
    );
    return () => {
      latest = false;
    };
  }, inputs);
}

/**
 * The dashboard's texts: English is in the first script, every other language is a chunk of its
 * own (`texts/<lang>.json`, named by its content) loaded when first chosen. A text missing from a
 * language falls back to English.
 */
import { signal } from '@preact/signals';
import EN from './texts/en.json';

export type Texts = typeof EN;
export type TextKey = keyof Texts;

const LOADERS: Record<string, () => Promise<{ default: Partial<Texts> }>> = {
  de: () => import('./texts/de.json'),
  fr: () => import('./texts/fr.json'),
  nl: () => import('./texts/nl.json'),
  es: () => import('./texts/es.json'),
};

export const LANGUAGES = ['en', ...Object.keys(LOADERS)];

export const language = signal('en');
const texts = signal<Texts>(EN);

/** The text named `key` in the current language, `{name}` placeholders filled from `values`. */
export const t = (key: TextKey, values: Record<string, string | number> = {}) =>
  texts.value[key].replace(/\{(\w+)\}/g, (_, name: string) => String(values[name] ?? ''));

/** The first supported language among the candidates (`de-CH` counts as `de`), else English. */
export function pickLanguage(...candidates: (string | null | undefined)[]): string {
  for (const candidate of candidates) {
    const base = candidate?.toLowerCase().split('-')[0];
    if (base && LANGUAGES.includes(base)) return base;
  }
  return 'en';
}

/** Switches the interface to `lang` once its texts are loaded; `<html lang>` follows. */
export async function switchLanguage(lang: string): Promise<void> {
  const chosen = pickLanguage(lang);
  const loaded = chosen === 'en' ? EN : { ...EN, ...(await LOADERS[chosen]!()).default };
  texts.value = loaded;
  language.value = chosen;
  document.documentElement.lang = chosen;
}

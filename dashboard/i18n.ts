/**
 * The dashboard's texts: English is in the first script, every other language is a chunk of its
 * own (`texts/<lang>.json`, named by its content) loaded when first chosen. A text missing from a
 * language falls back to English.
 */
import { signal } from '@preact/signals';
import { IntlMessageFormat } from 'intl-messageformat';
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

/** Each language by its own name, as a choice of language shows it. */
export const LANGUAGE_NAMES: Record<string, string> = {
  en: 'English',
  de: 'Deutsch',
  fr: 'Français',
  nl: 'Nederlands',
  es: 'Español',
};

export const language = signal('en');
const texts = signal<Texts>(EN);

/** Texts with a count, as ICU messages compiled once per language: `{n, plural, one {…} other {…}}`. */
const counted = new Map<string, IntlMessageFormat>();

/**
 * The text named `key` in the current language, `{name}` placeholders filled from `values`; a
 * count's words follow the language's plural rules (`Intl.PluralRules`, by intl-messageformat).
 */
export function t(key: TextKey, values: Record<string, string | number> = {}): string {
  const text = texts.value[key];
  if (text.includes(', plural,')) {
    const id = `${language.value}:${key}`;
    let message = counted.get(id);
    if (!message) {
      message = new IntlMessageFormat(text, language.value);
      counted.set(id, message);
    }
    return String(message.format(values));
  }
  return text.replace(/\{(\w+)\}/g, (_, name: string) => String(values[name] ?? ''));
}

/** Whether `key` names a text: for texts named after what the API answers (an audit action, a message type). */
export const isTextKey = (key: string): key is TextKey => key in EN;

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

import type { ComponentType } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { t } from '../i18n.ts';
import { report } from '../problems.ts';
import type { ScreenProps } from '../router.ts';
import { hrefOf } from '../router.ts';
import { mayChange } from './form.tsx';
import { SECTIONS, type Section } from './sections.ts';

const loaded = new Map<string, ComponentType>();

/** The business's settings (`#/settings/<section>`): a sub-navigation and the section it names. */
export default function SettingsScreen({ params }: ScreenProps) {
  const owner = mayChange();
  const offered = SECTIONS.filter((section) => owner || !section.owner);
  const section = offered.find((candidate) => candidate.id === params[0]) ?? offered[0]!;
  return (
    <div class="settings">
      <h1>{t('navSettings')}</h1>
      <nav class="settings-nav" aria-label={t('settingsSections')}>
        <ul>
          {offered.map((candidate) => (
            <li key={candidate.id}>
              <a
                href={hrefOf('settings', candidate.id)}
                aria-current={candidate === section ? 'page' : undefined}
              >
                {t(candidate.label)}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      {!owner && <p class="note">{t('settingsStaffNote')}</p>}
      <SectionHost key={section.id} section={section} />
    </div>
  );
}

let sectionsShown = 0;

/** The section's module, loaded when first shown; its heading takes the focus when another section is chosen. */
function SectionHost({ section }: { section: Section }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    // The first section shown with the screen leaves the focus where the navigation put it.
    if (sectionsShown++ > 0) heading.current?.focus();
  }, []);
  return (
    <section class="settings-section" aria-labelledby="settings-title">
      <h2 id="settings-title" tabIndex={-1} ref={heading}>
        {t(section.label)}
      </h2>
      <SectionBody section={section} />
    </section>
  );
}

/** A section's form, its module loaded when first shown (the set-up's steps show them too). */
export function SectionBody({ section }: { section: Section }) {
  const [, setReady] = useState(0);
  const Body = loaded.get(section.id);
  useEffect(() => {
    if (Body) return;
    section
      .load()
      .then((module) => {
        loaded.set(section.id, module.default);
        setReady((count) => count + 1);
      })
      .catch(report);
  }, [section, Body]);
  return Body ? <Body /> : <p role="status">{t('loading')}</p>;
}

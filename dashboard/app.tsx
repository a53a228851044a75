import { computed, useSignalEffect } from '@preact/signals';
import type { ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { currentBusiness, type Session, session, signOut, switchBusiness } from './api.ts';
import { CreateVenue } from './create-venue.tsx';
import { pickLanguage, switchLanguage, t } from './i18n.ts';
import { followBusiness, liveState } from './live.ts';
import { clearProblem, problem, report } from './problems.ts';
import { hrefOf, route, type ScreenProps } from './router.ts';
import { currentScreen, SCREENS } from './screens.ts';
import { SignIn } from './sign-in.tsx';
import { SignUp } from './sign-up.tsx';
import { loadVenue, venue } from './venue.ts';

/** The page: the skip link, the live region of problems, then the sign-in form or the signed-in shell. */
export function App() {
  return (
    <>
      {/* biome-ignore lint/a11y/useValidAnchor: the hash is the route, so the skip link moves the focus itself */}
      <a
        class="skip"
        href="#main"
        onClick={(event) => {
          // The hash is the route: the skip link moves the focus instead of changing it.
          event.preventDefault();
          document.getElementById('main')?.focus();
        }}
      >
        {t('skip')}
      </a>
      <Problems />
      {session.value?.accessToken ? (
        <Shell current={session.value} />
      ) : route.value.screen === 'sign-up' ? (
        <SignUp />
      ) : (
        <SignIn />
      )}
    </>
  );
}

function Problems() {
  return (
    <div class="problem" role="alert">
      {problem.value && (
        <p>
          {problem.value}{' '}
          <button type="button" class="link" onClick={clearProblem}>
            {t('dismiss')}
          </button>
        </p>
      )}
    </div>
  );
}

/** The business acted on: a refreshed token leaves it unchanged, a switch changes it. */
const businessId = computed(() => session.value?.businessId ?? '');

function Shell({ current }: { current: Session }) {
  useSignalEffect(() => {
    const id = businessId.value;
    if (!id) return;
    venue.value = null;
    loadVenue(id)
      .then((loaded) => switchLanguage(pickLanguage(loaded.language, navigator.language)))
      .catch(report);
  });
  useSignalEffect(() => {
    const id = businessId.value;
    const kind = session.peek()?.kind;
    if (!id || !kind) return;
    return followBusiness({ kind, businessId: id });
  });
  return (
    <>
      <header class="top">
        <span class="brand">{t('appName')}</span>
        {current.businessId && <LiveStatus />}
        <BusinessSwitch current={current} />
        <button type="button" class="quiet" onClick={signOut}>
          {t('signOut')}
        </button>
      </header>
      {current.businessId && (
        <nav class="screens" aria-label={t('mainNav')}>
          <ul>
            {SCREENS.filter((screen) => !screen.hidden).map((screen) => (
              <li key={screen.id}>
                <a
                  href={hrefOf(screen.id)}
                  aria-current={currentScreen.value === screen ? 'page' : undefined}
                >
                  {t(screen.label)}
                </a>
              </li>
            ))}
          </ul>
        </nav>
      )}
      <main id="main" tabIndex={-1}>
        {!current.businessId ? (
          current.kind === 'developer' ? (
            <CreateVenue />
          ) : (
            <p>{t('noBusiness')}</p>
          )
        ) : venue.value?.id === current.businessId ? (
          <ScreenHost key={current.businessId} />
        ) : (
          <p role="status">{t('loading')}</p>
        )}
      </main>
    </>
  );
}

/** Whether changes made elsewhere show by themselves: said, not only coloured. */
function LiveStatus() {
  const state = liveState.value;
  const live = state === 'open';
  return (
    <span class={live ? 'live on' : 'live'} role="status">
      <span aria-hidden="true">{live ? '●' : '○'} </span>
      {t(live ? 'liveOn' : state === 'closed' ? 'liveOff' : 'liveReconnecting')}
    </span>
  );
}

function BusinessSwitch({ current }: { current: Session }) {
  if (current.businesses.length < 2) {
    return <span class="business">{currentBusiness.value?.name}</span>;
  }
  return (
    <span class="business">
      <label for="business">{t('business')}</label>
      <select
        id="business"
        value={current.businessId}
        onChange={(event) => switchBusiness(event.currentTarget.value).then(clearProblem, report)}
      >
        {current.businesses.map((business) => (
          <option key={business.id} value={business.id}>
            {business.name}
          </option>
        ))}
      </select>
    </span>
  );
}

const loadedScreens = new Map<string, ComponentType<ScreenProps>>();

/** The screen the route names (the first one for any other route), its module loaded when first shown. */
function ScreenHost() {
  const screen = currentScreen.value;
  const [, setLoaded] = useState(0);
  const Screen = loadedScreens.get(screen.id);
  useEffect(() => {
    if (Screen) return;
    screen
      .load()
      .then((module) => {
        loadedScreens.set(screen.id, module.default);
        setLoaded((count) => count + 1);
      })
      .catch(report);
  }, [screen, Screen]);
  if (!Screen) return <p role="status">{t('loading')}</p>;
  const params = screen.id === route.value.screen ? route.value.params : [];
  return <Screen params={params} />;
}

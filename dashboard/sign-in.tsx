import { useState } from 'preact/hooks';
import { ApiError, signIn } from './api.ts';
import { t } from './i18n.ts';
import { clearProblem, problem, report } from './problems.ts';

/**
 * One form for both kinds of account: the API finds the account by the email, and asks which
 * only when the email and password open a developer's account and a dashboard user's.
 */
export function SignIn() {
  const [busy, setBusy] = useState(false);
  const [askWhich, setAskWhich] = useState(false);
  async function submit(event: SubmitEvent) {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const account = form.get('account');
    setBusy(true);
    try {
      await signIn(
        String(form.get('email')),
        String(form.get('password')),
        account === 'developer' || account === 'user' ? account : undefined,
      );
      clearProblem();
    } catch (error) {
      if (error instanceof ApiError && error.code === 'account_choice_required') {
        setAskWhich(true);
        clearProblem();
        setBusy(false);
        return;
      }
      if (error instanceof ApiError && error.status === 401) problem.value = t('errWrongLogin');
      else if (error instanceof ApiError && error.status === 404) problem.value = t('noBusiness');
      else report(error);
      setBusy(false);
    }
  }
  return (
    <main id="main" tabIndex={-1} class="sign-in">
      <h1>{t('signInTitle')}</h1>
      <form onSubmit={submit}>
        <label for="email">{t('email')}</label>
        <input id="email" name="email" type="email" autocomplete="username" required />
        <label for="password">{t('password')}</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required />
        {askWhich && (
          <fieldset class="account-choice">
            <legend>{t('whichAccount')}</legend>
            <label class="check">
              <input name="account" type="radio" value="user" required /> {t('dashboardAccount')}
            </label>
            <label class="check">
              <input name="account" type="radio" value="developer" required /> {t('developerAccount')}
            </label>
          </fieldset>
        )}
        <button type="submit" disabled={busy}>
          {busy ? t('signingIn') : t('signIn')}
        </button>
      </form>
      <p class="hint">
        {t('newHere')} <a href="#/sign-up">{t('signUpLink')}</a>
      </p>
      <p class="hint">{t('invitedHint')}</p>
    </main>
  );
}

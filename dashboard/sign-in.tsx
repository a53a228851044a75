import { useState } from 'preact/hooks';
import { ApiError, signIn } from './api.ts';
import { t } from './i18n.ts';
import { clearProblem, problem, report } from './problems.ts';

/**
 * One form for both kinds of account. The developer says so with the checkbox rather than the
 * dashboard trying one login after the other: a wrong password then counts once against one
 * account, and costs one password check.
 */
export function SignIn() {
  const [busy, setBusy] = useState(false);
  async function submit(event: SubmitEvent) {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    setBusy(true);
    try {
      await signIn(String(form.get('email')), String(form.get('password')), form.get('developer') === 'on');
      clearProblem();
    } catch (error) {
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
        <label class="check">
          <input name="developer" type="checkbox" /> {t('asDeveloper')}
        </label>
        <button type="submit" disabled={busy}>
          {busy ? t('signingIn') : t('signIn')}
        </button>
      </form>
      <p class="hint">{t('invitedHint')}</p>
    </main>
  );
}

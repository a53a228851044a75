import { useState } from 'preact/hooks';
import { signUp } from './api.ts';
import { t } from './i18n.ts';
import { Field, useSaving } from './settings/form.tsx';

const EMPTY = { first_name: '', last_name: '', email: '', password: '' };

/** A new developer account, signed in at once: the dashboard then asks for the first venue. */
export function SignUp() {
  const saving = useSaving();
  const [account, setAccount] = useState(EMPTY);
  const set = (field: keyof typeof EMPTY) => (value: string) => setAccount({ ...account, [field]: value });
  const common = { errors: saving.errors, required: true };
  return (
    <main id="main" tabIndex={-1} class="sign-in">
      <h1>{t('signUpTitle')}</h1>
      <form
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          void saving.submit(() => signUp(account), '');
        }}
      >
        <fieldset class="plain" disabled={saving.busy}>
          <Field
            {...common}
            field="first_name"
            label={t('newFirstName')}
            value={account.first_name}
            onValue={set('first_name')}
            autoComplete="given-name"
          />
          <Field
            {...common}
            field="last_name"
            label={t('newLastName')}
            value={account.last_name}
            onValue={set('last_name')}
            autoComplete="family-name"
          />
          <Field
            {...common}
            field="email"
            label={t('email')}
            type="email"
            value={account.email}
            onValue={set('email')}
            autoComplete="username"
          />
          <Field
            {...common}
            field="password"
            label={t('password')}
            type="password"
            value={account.password}
            onValue={set('password')}
            autoComplete="new-password"
            hint={t('signUpPasswordHint')}
          />
          <button type="submit">{saving.busy ? t('signingUp') : t('signUp')}</button>
        </fieldset>
      </form>
      <p class="hint">
        {t('haveAccount')} <a href="#/">{t('signIn')}</a>
      </p>
    </main>
  );
}

import { useState } from 'preact/hooks';
import { signUp } from './api.ts';
import { type TextKey, t } from './i18n.ts';
import { Field, useSaving } from './settings/form.tsx';

const EMPTY = { first_name: '', last_name: '', email: '', password: '' };

/** The account's fields, in the order the form asks for them. */
const FIELDS: {
  field: keyof typeof EMPTY;
  label: TextKey;
  type: 'text' | 'email' | 'password';
  autoComplete: string;
  hint?: TextKey;
}[] = [
  { field: 'first_name', label: 'newFirstName', type: 'text', autoComplete: 'given-name' },
  { field: 'last_name', label: 'newLastName', type: 'text', autoComplete: 'family-name' },
  { field: 'email', label: 'email', type: 'email', autoComplete: 'username' },
  {
    field: 'password',
    label: 'password',
    type: 'password',
    autoComplete: 'new-password',
    hint: 'signUpPasswordHint',
  },
];

/** A new developer account, signed in at once: the dashboard then asks for the first venue. */
export function SignUp() {
  const saving = useSaving();
  const [account, setAccount] = useState(EMPTY);
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
          {FIELDS.map(({ field, label, type, autoComplete, hint }) => (
            <Field
              key={field}
              field={field}
              label={t(label)}
              type={type}
              autoComplete={autoComplete}
              hint={hint && t(hint)}
              errors={saving.errors}
              value={account[field]}
              onValue={(value) => setAccount({ ...account, [field]: value })}
              required
            />
          ))}
          <button type="submit">{saving.busy ? t('signingUp') : t('signUp')}</button>
        </fieldset>
      </form>
      <p class="hint">
        {t('haveAccount')} <a href="#/">{t('signIn')}</a>
      </p>
    </main>
  );
}

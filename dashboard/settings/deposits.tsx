import { useState } from 'preact/hooks';
import { t } from '../i18n.ts';
import { Choice, Field, SettingsForm, text, useSaving } from './form.tsx';
import { patchSettings, type Settings, useSettings } from './settings-data.ts';

const SHOWN = ['deposit_type', 'default_deposit_amount_cents', 'payment_hold_minutes'];

/** Whether online bookings pay a deposit, how much per guest, and how long one waits for it. */
export default function Deposits() {
  const settings = useSettings();
  if (!settings) return <p role="status">{t('loading')}</p>;
  return <DepositsForm settings={settings} />;
}

/** Euros as typed (`12,50` or `12.50`) in cents; anything else is sent as it is for the API to refuse. */
const cents = (euros: string) => Math.round(Number(euros.replace(',', '.')) * 100);

function DepositsForm({ settings }: { settings: Settings }) {
  const saving = useSaving();
  const [type, setType] = useState(settings.deposit_type);
  const [amount, setAmount] = useState((settings.default_deposit_amount_cents / 100).toFixed(2));
  const [hold, setHold] = useState(text(settings.payment_hold_minutes));
  const { errors } = saving;
  const save = () =>
    saving.submit(() =>
      patchSettings({
        deposit_type: type,
        default_deposit_amount_cents: cents(amount),
        payment_hold_minutes: Number(hold),
      }),
    );
  return (
    <SettingsForm saving={saving} onSave={save} shown={(field) => SHOWN.includes(field)}>
      <Choice
        field="deposit_type"
        label={t('settingsDepositType')}
        errors={errors}
        value={type}
        onValue={(value) => setType(value as Settings['deposit_type'])}
        options={[
          { value: 'none', label: t('settingsDepositNone') },
          { value: 'charge', label: t('settingsDepositCharge') },
          { value: 'authorization_hold', label: t('settingsDepositHold') },
        ]}
      />
      <Field
        field="default_deposit_amount_cents"
        label={t('settingsDepositAmount')}
        hint={t('settingsDepositAmountHint')}
        errors={errors}
        value={amount}
        onValue={setAmount}
        inputMode="decimal"
      />
      <Field
        field="payment_hold_minutes"
        label={t('settingsHoldMinutes')}
        hint={t('settingsHoldMinutesHint')}
        errors={errors}
        value={hold}
        onValue={setHold}
        type="number"
        min={5}
        max={1440}
      />
    </SettingsForm>
  );
}

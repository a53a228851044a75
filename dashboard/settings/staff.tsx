import type { operations } from '@slotwise/sdk';
import { useEffect, useState } from 'preact/hooks';
import { allPages, call } from '../api.ts';
import { dataChanged, versionOf } from '../changes.ts';
import { language, t } from '../i18n.ts';
import { report } from '../problems.ts';
import { Choice, Field, SettingsForm, useSaving } from './form.tsx';

type Member = operations['listStaff']['responses'][200]['content']['application/json']['items'][number];
type Role = Member['role'];

const roleText = (role: Role) => (role === 'business_owner' ? t('settingsOwner') : t('settingsStaffMember'));

/** The dashboard's users: invited by email with a role, their invitation sent again, removed. */
export default function Staff() {
  const [members, setMembers] = useState<Member[] | null>(null);
  const [done, setDone] = useState('');
  const version = versionOf('settings');
  useEffect(() => {
    allPages((cursor) =>
      call((api) => api.GET('/v1/manage/staff', { params: { query: { limit: 200, cursor } } })),
    )
      .then(setMembers)
      .catch(report);
  }, [version]);

  const act = async (change: () => Promise<unknown>, doneText: string) => {
    try {
      await change();
      setDone(doneText);
      dataChanged();
    } catch (error) {
      report(error);
    }
  };
  const resend = (member: Member) =>
    act(
      () =>
        call((api) =>
          api.POST('/v1/manage/staff/{user_id}/resend', { params: { path: { user_id: member.id } } }),
        ),
      t('settingsResent', { email: member.email }),
    );
  const remove = (member: Member) => {
    if (!confirm(t('settingsRemoveConfirm', { email: member.email }))) return;
    return act(
      async () => {
        await call((api) =>
          api.DELETE('/v1/manage/staff/{user_id}', { params: { path: { user_id: member.id } } }),
        );
        document.getElementById('settings-title')?.focus();
      },
      t('settingsRemoved', { email: member.email }),
    );
  };

  if (!members) return <p role="status">{t('loading')}</p>;
  const date = new Intl.DateTimeFormat(language.value, { dateStyle: 'medium' });
  return (
    <>
      <p role="status" class="done">
        {done}
      </p>
      <ul class="rows">
        {members.map((member) => (
          <li key={member.id} class="row">
            <span class="row-main">
              <strong>{member.email}</strong> {roleText(member.role)} ·{' '}
              {member.status === 'invited'
                ? t('settingsInvitedOn', { date: date.format(new Date(member.invited_at)) })
                : t('settingsActiveMember')}
            </span>
            <span class="row-actions">
              {member.status === 'invited' && (
                <button type="button" class="quiet" onClick={() => resend(member)}>
                  {t('settingsResend', { email: member.email })}
                </button>
              )}
              <button type="button" class="quiet danger" onClick={() => remove(member)}>
                {t('settingsRemove', { email: member.email })}
              </button>
            </span>
          </li>
        ))}
      </ul>
      <h3>{t('settingsInvite')}</h3>
      <InviteForm />
    </>
  );
}

function InviteForm() {
  const saving = useSaving();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('staff_member');
  const save = async () => {
    const invited = await saving.submit(
      () => call((api) => api.POST('/v1/manage/staff', { body: { email: email.trim(), role } })),
      t('settingsInvited', { email: email.trim() }),
    );
    if (invited) setEmail('');
  };
  return (
    <SettingsForm
      saving={saving}
      onSave={save}
      saveLabel={t('settingsSendInvite')}
      shown={(field) => field === 'email' || field === 'role'}
    >
      <div class="fields">
        <Field
          field="email"
          label={t('email')}
          errors={saving.errors}
          value={email}
          onValue={setEmail}
          type="email"
          maxLength={254}
          autoComplete="off"
        />
        <Choice
          field="role"
          label={t('settingsRole')}
          errors={saving.errors}
          value={role}
          onValue={(value) => setRole(value as Role)}
          options={[
            { value: 'staff_member', label: t('settingsStaffMember') },
            { value: 'business_owner', label: t('settingsOwner') },
          ]}
        />
      </div>
    </SettingsForm>
  );
}
